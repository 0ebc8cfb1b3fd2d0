import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl token …`
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "List, show, revoke, introspect and purge stored tokens (only fingerprints are ever shown).",
        subcommands: [List.self, Show.self, Revoke.self, Introspect.self, PurgeExpired.self])
}

extension TokenCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List tokens, newest first, optionally by user, client or only active ones.")

        @Option(help: ArgumentHelp("Only tokens of this user (id or email address).", valueName: "user"))
        var user: String?
        @Option(help: ArgumentHelp("Only tokens issued to this client id.", valueName: "client-id"))
        var client: String?
        @Flag(help: "Only tokens active now (not expired, revoked or used).")
        var active = false
        @Option(help: "At most this many tokens.")
        var limit = 100
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be above 0") }
        }

        func run() async throws {
            try await options.withService { service, output in
                let records = try await service.listTokens(user: user, client: client, activeOnly: active, limit: limit)
                let now = service.time.now()
                var emails = EmailCache()
                var rows: [[String]] = []
                var objects: [JSONValue] = []
                for record in records {
                    let email = await emails.email(of: record.userID, in: service)
                    rows.append([
                        record.id.map(String.init) ?? "-", record.fingerprint, record.kind.rawValue, email ?? record.userID,
                        record.clientID, record.state(at: now).rawValue, iso(record.issuedAt), iso(record.expiresAt),
                    ])
                    objects.append(tokenJSON(record, email: email, now: now))
                }
                output.list(
                    ["ID", "FINGERPRINT", "KIND", "USER", "CLIENT", "STATE", "ISSUED", "EXPIRES"], rows: rows,
                    objects: objects)
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
            try await options.withService { service, output in
                let record = try await service.findToken(reference)
                let now = service.time.now()
                var emails = EmailCache()
                let email = await emails.email(of: record.userID, in: service)
                output.record(
                    [
                        ("id", record.id.map(String.init) ?? "-"),
                        ("fingerprint", record.fingerprint),
                        ("kind", record.kind.rawValue),
                        ("state", record.state(at: now).rawValue),
                        ("user", record.userID),
                        ("email", email ?? "-"),
                        ("client", record.clientID),
                        ("chain", record.chainID),
                        ("scope", record.scope.isEmpty ? "-" : record.scope),
                        ("provider", record.authProvider),
                        ("issued", iso(record.issuedAt)),
                        ("expires", iso(record.expiresAt)),
                        ("used", iso(record.usedAt)),
                        ("revoked", iso(record.revokedAt)),
                    ], object: tokenJSON(record, email: email, now: now))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke one token (a refresh token takes its session with it) or every token of a user.",
            discussion: "Give exactly one of <fingerprint|id> and --user. Revocation takes effect immediately.")

        @Argument(help: ArgumentHelp("The token's fingerprint or id.", valueName: "fingerprint|id"))
        var reference: String?
        @Option(help: ArgumentHelp("Revoke every token of this user (id or email address).", valueName: "user"))
        var user: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            switch (reference, user) {
            case (nil, nil): throw ValidationError("give a token <fingerprint|id> or --user <user>")
            case (.some, .some): throw ValidationError("give either a token <fingerprint|id> or --user, not both")
            default: break
            }
        }

        func run() async throws {
            try await options.withService { service, output in
                let count: Int
                if let user {
                    count = try await service.revokeTokens(ofUser: user)
                } else {
                    count = try await service.revokeToken(reference ?? "")
                }
                output.message("revoked \(count) token\(count == 1 ? "" : "s")", object: ["revoked": .int(Int64(count))])
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
            value = value.trimmingCharacters(in: .whitespacesAndNewlines)
            let presented = value
            var active = false
            try await options.withService { service, output in
                guard let introspection = try await service.introspect(token: presented) else {
                    output.message("active: false", object: Introspection.inactive)
                    return
                }
                active = true
                let (record, user) = (introspection.record, introspection.user)
                var pairs: [(String, String)] = [
                    ("active", "true"), ("sub", user.id), ("username", user.email), ("client_id", record.clientID),
                    ("token_type", introspection.tokenType),
                    ("iat", "\(Int64(record.issuedAt.timeIntervalSince1970)) (\(iso(record.issuedAt)))"),
                    ("exp", "\(Int64(record.expiresAt.timeIntervalSince1970)) (\(iso(record.expiresAt)))"),
                    ("fingerprint", record.fingerprint),
                ]
                if !record.scope.isEmpty { pairs.append(("scope", record.scope)) }
                output.record(pairs, object: .object(introspection.fields))
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
            try await options.withService { service, output in
                let count = try await service.purgeExpiredTokens()
                output.message("purged \(count) expired token\(count == 1 ? "" : "s")", object: ["purged": .int(Int64(count))])
            }
        }
    }
}

/// A token as JSON: never the token or its full hash.
func tokenJSON(_ record: TokenRecord, email: String?, now: Date) -> JSONValue {
    [
        "id": record.id.map { .int($0) } ?? .null,
        "fingerprint": .string(record.fingerprint),
        "kind": .string(record.kind.rawValue),
        "state": .string(record.state(at: now).rawValue),
        "user_id": .string(record.userID),
        "email": .optional(email),
        "client_id": .string(record.clientID),
        "chain_id": .string(record.chainID),
        "scope": .string(record.scope),
        "auth_provider": .string(record.authProvider),
        "issued_at": isoJSON(record.issuedAt),
        "expires_at": isoJSON(record.expiresAt),
        "used_at": isoJSON(record.usedAt),
        "revoked_at": isoJSON(record.revokedAt),
    ]
}

/// Resolves user ids to addresses once each; an unresolvable id stays nil.
struct EmailCache {
    private var known: [String: String?] = [:]

    mutating func email(of userID: String, in service: CaptureService) async -> String? {
        if let cached = known[userID] { return cached }
        let email = try? await service.findUser(userID).email
        known[userID] = .some(email)
        return email
    }
}
