import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl client …`
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Register, list, show and remove clients (apps and backends that ask for tokens); rotate secrets.",
        subcommands: [Add.self, List.self, Show.self, Remove.self, RotateSecret.self])
}

extension ClientCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Register a client; a confidential client's secret is printed once (only its hash is stored).")

        @Argument(help: ArgumentHelp("3-64 letters, digits, '-', '_' or '.'.", valueName: "client-id"))
        var clientID: String
        @Option(help: "Display name (default: the client id).")
        var name: String?
        @Flag(help: "Give the client a secret (for a backend); without it the client is public (a native app).")
        var confidential = false
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
            help: ArgumentHelp("token, code or code_and_token; repeatable (default: token).", valueName: "type"))
        var responseTypes: [String] = []
        @Flag(name: .customLong("legacy-token-url"), help: "Turn on the legacy token URL for this client.")
        var legacyTokenURL = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService(creatingDatabase: true) { service, output in
                let (client, secret) = try await service.addClient(
                    id: clientID, name: name, confidential: confidential, redirectURIs: redirectURIs,
                    allowedOrigins: origins, responseTypes: responseTypes, legacyTokenURL: legacyTokenURL)
                let note = "This secret is shown only once: only its hash is stored. Keep it somewhere safe."
                if output.json {
                    var object = clientFields(client)
                    if let secret {
                        object["client_secret"] = .string(secret)
                        object["note"] = .string(note)
                    }
                    output.emit(.object(object))
                } else {
                    var pairs = clientPairs(client)
                    if let secret { pairs.append(("client_secret", secret)) }
                    output.record(pairs, object: .null)
                    if secret != nil { print("\n" + note) }
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered clients.")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService { service, output in
                let clients = try await service.listClients()
                output.list(
                    ["CLIENT ID", "NAME", "TYPE", "RESPONSE TYPES", "REDIRECT URIS", "CREATED"],
                    rows: clients.map {
                        [$0.clientID, $0.name, clientType($0), $0.responseTypes.joined(separator: ","),
                         "\($0.redirectURIs.count)", iso($0.createdAt)]
                    },
                    objects: clients.map { .object(clientFields($0)) })
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
            try await options.withService { service, output in
                let client = try await service.findClient(clientID)
                output.record(clientPairs(client), object: .object(clientFields(client)))
            }
        }
    }
}

extension ClientCommand {
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a client added with 'client add' and revoke its tokens (Settings clients are edited there).")

        @Argument(help: ArgumentHelp("The client id.", valueName: "client-id"))
        var clientID: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService { service, output in
                let (client, revoked) = try await service.removeClient(clientID)
                output.message(
                    "removed \(client.clientID); revoked \(revoked) token\(revoked == 1 ? "" : "s")",
                    object: ["removed": .string(client.clientID), "revoked": .int(Int64(revoked))])
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
            try await options.withService { service, output in
                let (client, secret) = try await service.rotateClientSecret(clientID)
                output.message(
                    "client_secret: \(secret)\n\nThis secret is shown only once: only its hash is stored.",
                    object: ["client_id": .string(client.clientID), "client_secret": .string(secret)])
            }
        }
    }
}

func clientType(_ client: Client) -> String {
    client.isConfidential ? "confidential" : "public"
}

func clientPairs(_ client: Client) -> [(String, String)] {
    func list(_ values: [String]) -> String { values.isEmpty ? "-" : values.joined(separator: ", ") }
    return [
        ("client_id", client.clientID),
        ("name", client.name),
        ("type", clientType(client)),
        ("redirect_uris", list(client.redirectURIs)),
        ("allowed_origins", list(client.allowedOrigins)),
        ("response_types", list(client.responseTypes)),
        ("legacy_token_url", client.legacyTokenURL ? "on" : "off"),
        ("access_token_life_hours", client.accessTokenLifeHours.map { "\($0)" } ?? "default"),
        ("created", iso(client.createdAt)),
    ]
}

/// A client as JSON; the secret hash is left out.
func clientFields(_ client: Client) -> [String: JSONValue] {
    [
        "client_id": .string(client.clientID),
        "name": .string(client.name),
        "type": .string(clientType(client)),
        "confidential": .bool(client.isConfidential),
        "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
        "allowed_origins": .array(client.allowedOrigins.map(JSONValue.string)),
        "response_types": .array(client.responseTypes.map(JSONValue.string)),
        "legacy_token_url": .bool(client.legacyTokenURL),
        "access_token_life_hours": client.accessTokenLifeHours.map(JSONValue.double) ?? .null,
        "created_at": isoJSON(client.createdAt),
    ]
}
