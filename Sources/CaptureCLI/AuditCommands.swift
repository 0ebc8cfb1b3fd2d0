import ArgumentParser
import CaptureCore

/// `capturectl audit list`: who did what, newest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read the audit log: operators' actions and the service's security events.",
        subcommands: [List.self])
}

extension AuditCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List audit rows, newest first.")

        @Option(help: ArgumentHelp("Only rows of this actor (admin-key:<id>, capturectl:<user> or service).", valueName: "actor"))
        var actor: String?
        @Option(help: ArgumentHelp("Only rows of this action, e.g. token.revoke or signin.burst.", valueName: "action"))
        var action: String?
        @Option(
            help: ArgumentHelp(
                "Only rows about this target (a user, client, token or key as the action named it).", valueName: "target"))
        var target: String?
        @OptionGroup var paging: PageOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(
                    [
                        .init("ID", "id"), .init("AT", "at"), .init("ACTOR", "actor"), .init("ACTION", "action"),
                        .init("TARGET", "target"), .init("OUTCOME", "outcome"), .init("DETAIL", "detail"),
                    ],
                    try await console.perform(
                        AdminOperations.audit, AuditFilter(actor: actor, action: action, target: target, page: paging.page)))
            }
        }
    }
}

/// `capturectl admin-key …`: the keys of the admin API. Direct on the database file only: a key is what reaching
/// the admin API needs in the first place.
struct AdminKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-key", abstract: "Make, list and revoke admin API keys (on the database file).",
        subcommands: [Add.self, List.self, Revoke.self])
}

extension AdminKeyCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Make an admin key; it is printed once (only its hash is stored).")

        @Argument(help: ArgumentHelp("What the key is for, e.g. support-tool.", valueName: "name"))
        var name: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withFeatures(creatingDatabase: true) { features, output in
                let (key, presented) = try await features.admin.createAdminKey(name: name, by: .currentOperator)
                let document = AdminDocuments.adminKey(key, presented: presented)
                output.message(
                    "admin key \(key.id) (\(key.name)):\n\(presented)\n\n\(Output.text(Output.member(document, "note")))",
                    object: document)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List admin keys (never the keys).")

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withFeatures { features, output in
                let keys = try await features.admin.listAdminKeys().map { AdminDocuments.adminKey($0) }
                try output.list(
                    [
                        .init("ID", "id"), .init("NAME", "name"), .init("STATE", "state"), .init("CREATED", "created_at"),
                        .init("REVOKED", "revoked_at"),
                    ],
                    AdminList(items: keys, nextOffset: nil))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke an admin key; requests with it are refused from now on.")

        @Argument(help: ArgumentHelp("The key's id (see admin-key list).", valueName: "id"))
        var id: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withFeatures { features, output in
                try await features.admin.revokeAdminKey(id, by: .currentOperator)
                output.message("revoked admin key \(id)", object: ["revoked": .string(id)])
            }
        }
    }
}
