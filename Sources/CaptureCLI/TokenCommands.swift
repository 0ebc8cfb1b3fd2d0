import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl token …`
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "List, show, revoke, introspect and purge stored tokens (only fingerprints are ever shown).",
        subcommands: [List.self, Show.self, Revoke.self, Introspect.self, PurgeExpired.self])

    static let columns: [Output.Column] = [
        .init("ID", "id"), .init("FINGERPRINT", "fingerprint"), .init("KIND", "kind"), .init("USER", "email", "user_id"),
        .init("CLIENT", "client_id"), .init("STATE", "state"), .init("ISSUED", "issued_at"), .init("EXPIRES", "expires_at"),
    ]
    static let fields = [
        "id", "fingerprint", "kind", "state", "user_id", "email", "client_id", "chain_id", "scope", "auth_provider",
        "issued_at", "expires_at", "used_at", "revoked_at",
    ]
}

/// `--limit` and `--offset` of list commands.
struct PageOptions: ParsableArguments {
    @Option(help: "At most this many (1 to \(Page.maxLimit)).")
    var limit = Page.defaultLimit
    @Option(help: "Skip this many first (for the next page).")
    var offset = 0

    func validate() throws {
        guard (1...Page.maxLimit).contains(limit) else { throw ValidationError("--limit must be from 1 to \(Page.maxLimit)") }
        guard offset >= 0 else { throw ValidationError("--offset must be 0 or more") }
    }

    var page: Page { Page(limit: limit, offset: offset) }
}

extension TokenCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List tokens, newest first, optionally by user, client, kind or state.")

        @Option(help: ArgumentHelp("Only tokens of this user (id or email address).", valueName: "user"))
        var user: String?
        @Option(help: ArgumentHelp("Only tokens issued to this client id.", valueName: "client-id"))
        var client: String?
        @Option(help: ArgumentHelp("Only tokens of this kind: access, refresh, code, device or sign_out.", valueName: "kind"))
        var kind: String?
        @Option(help: ArgumentHelp("Only tokens in this state: active, expired, revoked or used.", valueName: "state"))
        var state: String?
        @Flag(help: "Only tokens active now (the same as --state active).")
        var active = false
        @OptionGroup var paging: PageOptions
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if active, let state, state != "active" { throw ValidationError("give either --active or --state, not both") }
        }

        func run() async throws {
            try await options.withConsole { console, output in
                let list = try await console.perform(
                    AdminOperations.tokens,
                    TokenQuery(user: user, client: client, kind: kind, state: active ? "active" : state, page: paging.page))
                try output.list(TokenCommand.columns, list)
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one token by fingerprint (at least 6 hex digits) or numeric id.")

        @Argument(help: ArgumentHelp("The token's fingerprint or id.", valueName: "fingerprint|id"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.record(TokenCommand.fields, try await console.perform(AdminOperations.token, reference))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke one token (a refresh token takes its session with it), or every token of a user or a client.",
            discussion: "Give exactly one of <fingerprint|id>, --user and --client. Revocation takes effect immediately.")

        @Argument(help: ArgumentHelp("The token's fingerprint or id.", valueName: "fingerprint|id"))
        var reference: String?
        @Option(help: ArgumentHelp("Revoke every token of this user (id or email address).", valueName: "user"))
        var user: String?
        @Option(help: ArgumentHelp("Revoke every token issued to this client.", valueName: "client-id"))
        var client: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            switch [reference, user, client].compactMap({ $0 }).count {
            case 0: throw ValidationError("give a token <fingerprint|id>, --user <user> or --client <client-id>")
            case 1: break
            default: throw ValidationError("give only one of a token <fingerprint|id>, --user and --client")
            }
        }

        func run() async throws {
            try await options.withConsole { console, output in
                let result =
                    if let user {
                        try await console.perform(AdminOperations.signOutUser, user)
                    } else if let client {
                        try await console.perform(AdminOperations.revokeClientTokens, client)
                    } else {
                        try await console.perform(AdminOperations.revokeToken, reference ?? "")
                    }
                try output.message("revoked \(Output.plural(result.revoked, "token"))", view: result)
            }
        }
    }

    struct Introspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "introspect",
            abstract: "Say whether a token is active and whose it is (RFC 7662 fields); exit 1 when it is not active.",
            discussion: "Pass '-' to read the token from standard input, which keeps it out of the shell history.")

        @Argument(help: ArgumentHelp("The token itself, or '-' to read it from standard input.", valueName: "token"))
        var token: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var value = token
            if value == "-" {
                value = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            }
            let presented = value.trimmingCharacters(in: .whitespacesAndNewlines)
            var active = false
            try await options.withConsole { console, output in
                let view = try await console.perform(AdminOperations.introspect, presented)
                active = view.active
                guard active else { return try output.message("active: false", view: view) }
                var pairs = [
                    ("active", "true"), ("sub", view.sub ?? "-"), ("username", view.username ?? "-"),
                    ("client_id", view.clientID ?? "-"), ("token_type", view.tokenType ?? "-"),
                ]
                for (key, seconds) in [("iat", view.iat ?? 0), ("exp", view.exp ?? 0)] {
                    pairs.append((key, "\(seconds) (\(iso(Date(timeIntervalSince1970: TimeInterval(seconds)))))"))
                }
                pairs.append(("fingerprint", view.fingerprint ?? "-"))
                if let scope = view.scope { pairs.append(("scope", scope)) }
                output.record(pairs, object: try AdminViews.document(view))
            }
            if !active { throw ExitCode(1) }
        }
    }

    struct PurgeExpired: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge-expired",
            abstract: "Delete tokens that have expired; prints how many were deleted.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.purgeExpiredTokens)
                try output.message("purged \(Output.plural(result.purged, "expired token"))", view: result)
            }
        }
    }
}
