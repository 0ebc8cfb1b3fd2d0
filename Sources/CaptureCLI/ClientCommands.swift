import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl client …`
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Register, list, show, update and remove clients (apps and backends that ask for tokens); rotate secrets.",
        subcommands: [Add.self, List.self, Show.self, Update.self, Remove.self, RotateSecret.self])

    static let columns: [Output.Column] = [
        .init("CLIENT ID", "client_id"), .init("NAME", "name"), .init("TYPE", "type"), .init("RESPONSE TYPES", "response_types"),
        .init("FEATURES", "features"), .init("REDIRECT URIS", "redirect_uris"), .init("CREATED", "created_at"),
    ]
    static let fields = [
        "client_id", "name", "type", "redirect_uris", "allowed_origins", "response_types", "legacy_token_url",
        "access_token_life_hours", "site_name", "verify_email_url", "password_recover_url", "features", "whitelist",
        "created_at",
    ]
}

/// The values `client add` and `client update` take.
struct ClientValueOptions: ParsableArguments {
    @Option(help: "Display name (default for add: the client id).")
    var name: String?
    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("An allowed redirect URI: absolute http(s) URL or a path; repeatable.", valueName: "uri"))
    var redirectURIs: [String] = []
    @Option(
        name: .customLong("origin"),
        help: ArgumentHelp("An allowed origin such as https://app.example.com; repeatable.", valueName: "origin"))
    var origins: [String] = []
    @Option(
        name: .customLong("response-type"),
        help: ArgumentHelp("token, code or code_and_token; repeatable (default for add: token).", valueName: "type"))
    var responseTypes: [String] = []
    @Option(
        name: .customLong("site-name"),
        help: ArgumentHelp("The name the client's mail goes by (Janrain's site_name; update: '' clears it).", valueName: "name"))
    var siteName: String?
    @Option(
        name: .customLong("verify-email-url"),
        help: ArgumentHelp(
            "The client's page a verification mail's link opens, on one of its origins (Janrain's verify_email_url; "
                + "update: '' clears it).", valueName: "url"))
    var verifyEmailURL: String?
    @Option(
        name: .customLong("password-recover-url"),
        help: ArgumentHelp(
            "The client's page a reset mail's link opens, on one of its origins (Janrain's password_recover_url; "
                + "update: '' clears it).", valueName: "url"))
    var passwordRecoverURL: String?
    @Option(
        name: .customLong("feature"),
        help: ArgumentHelp(
            "A Janrain client feature: owner, direct_access, direct_read_access, access_issuer or login_client; "
                + "repeatable (default for add: login_client; update: the ones given replace the stored ones).",
            valueName: "name"))
    var features: [String] = []
    @Option(
        name: .customLong("whitelist"),
        help: ArgumentHelp(
            "An address or CIDR range the client's server API calls may come from; repeatable (none: anywhere; "
                + "update: the ones given replace the stored ones, '' alone clears them).", valueName: "cidr"))
    var whitelist: [String] = []

    /// The features asked for; nil when none were.
    func parsedFeatures() throws -> Set<ClientFeature>? {
        features.isEmpty ? nil : try ClientFeature.parsed(features, argument: "feature")
    }

    /// The whitelist asked for (empty entries dropped: `--whitelist ''` clears it); nil when none was.
    var givenWhitelist: [String]? {
        whitelist.isEmpty ? nil : whitelist.filter { !$0.isEmpty }
    }
}

extension ClientCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a client; a confidential client's secret is printed once (only its hash is stored).")

        @Argument(help: ArgumentHelp("3-64 letters, digits, '-', '_' or '.'.", valueName: "client-id"))
        var clientID: String
        @Flag(help: "Give the client a secret (for a backend); without it the client is public (a native app).")
        var confidential = false
        @OptionGroup var values: ClientValueOptions
        @Flag(name: .customLong("legacy-token-url"), help: "Turn on the legacy token URL for this client.")
        var legacyTokenURL = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            var draft = ClientDraft(id: clientID)
            draft.name = values.name
            draft.confidential = confidential
            draft.redirectURIs = values.redirectURIs
            draft.allowedOrigins = values.origins
            draft.responseTypes = values.responseTypes
            draft.legacyTokenURL = legacyTokenURL
            draft.pages = ClientPages(
                siteName: values.siteName, verifyEmailURL: values.verifyEmailURL, passwordRecoverURL: values.passwordRecoverURL)
            draft.features = try values.parsedFeatures()
            draft.whitelist = values.givenWhitelist ?? []
            let client = draft
            try await options.withConsole(creatingDatabase: true) { console, output in
                let added = try await console.perform(AdminOperations.addClient, client)
                if output.json { return output.emit(try AdminViews.document(added)) }
                try output.record(ClientCommand.fields + ["client_secret"], added)
                if added.clientSecret != nil { print("\n" + AdminDocuments.secretNote) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered clients.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(ClientCommand.columns, try await console.perform(AdminOperations.clients))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one client (never its secret or the secret's hash).")

        @Argument(help: ArgumentHelp("The client id.", valueName: "client-id"))
        var clientID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.record(ClientCommand.fields, try await console.perform(AdminOperations.client, clientID))
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Change a client added with 'client add': the values given replace the stored ones.")

        @Argument(help: ArgumentHelp("The client id.", valueName: "client-id"))
        var clientID: String
        @OptionGroup var values: ClientValueOptions
        @Option(
            name: .customLong("legacy-token-url"), help: ArgumentHelp("Turn the legacy token URL on or off.", valueName: "on|off")
        )
        var legacyTokenURL: String?
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            if let legacyTokenURL, !["on", "off"].contains(legacyTokenURL) {
                throw ValidationError("--legacy-token-url takes on or off")
            }
        }

        func run() async throws {
            var change = ClientChange()
            change.name = values.name
            change.redirectURIs = values.redirectURIs.isEmpty ? nil : values.redirectURIs
            change.allowedOrigins = values.origins.isEmpty ? nil : values.origins
            change.responseTypes = values.responseTypes.isEmpty ? nil : values.responseTypes
            change.legacyTokenURL = legacyTokenURL.map { $0 == "on" }
            change.siteName = values.siteName
            change.verifyEmailURL = values.verifyEmailURL
            change.passwordRecoverURL = values.passwordRecoverURL
            change.features = try values.parsedFeatures()
            change.whitelist = values.givenWhitelist
            let asked = change
            try await options.withConsole { console, output in
                try output.record(
                    ClientCommand.fields,
                    try await console.perform(AdminOperations.updateClient, ClientUpdate(id: clientID, change: asked)))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a client added with 'client add' and revoke its tokens (Settings clients are edited there).")

        @Argument(help: ArgumentHelp("The client id.", valueName: "client-id"))
        var clientID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.removeClient, clientID)
                try output.message(
                    "removed \(result.removed); revoked \(Output.plural(result.revoked, "token"))", view: result)
            }
        }
    }

    struct RotateSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "Give a confidential client a new secret, printed once; the old one stops working at once.")

        @Argument(help: ArgumentHelp("The client id.", valueName: "client-id"))
        var clientID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.rotateClientSecret, clientID)
                try output.message("client_secret: \(result.clientSecret)\n\n\(AdminDocuments.secretNote)", view: result)
            }
        }
    }
}
