import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl user …`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract:
            "List, search, show and export users; sign them out everywhere, disable, re-enable, reset their factors, deactivate or reactivate their accounts, erase or import them.",
        subcommands: [
            List.self, Find.self, Show.self, Export.self, SignOut.self, Disable.self, Enable.self, ResetFactors.self,
            Deactivate.self,
            Reactivate.self, Delete.self, Import.self, Passwords.self,
        ])

    static let columns: [Output.Column] = [
        .init("ID", "id"), .init("EMAIL", "email"), .init("NAME", "display_name"), .init("STATE", "state"),
        .init("CREATED", "created_at"), .init("LAST LOGIN", "last_login_at"),
    ]
    static let fields = [
        "id", "email", "state", "display_name", "given_name", "family_name", "birthday", "phone", "has_password", "password",
        "email_verified_at", "created_at", "updated_at", "last_login_at", "disabled_at", "delete_requested_at",
    ]
}

extension UserCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List users in order of registration, optionally those matching --search.")

        @Option(help: ArgumentHelp("Only users whose email address or display name contains this.", valueName: "text"))
        var search: String?
        @OptionGroup var paging: PageOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(
                    UserCommand.columns,
                    try await console.perform(AdminOperations.users, UserQuery(search: search, page: paging.page)))
            }
        }
    }

    /// Janrain's filters for operators, as a backend's `entity.find` takes them.
    struct Find: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find",
            abstract: "Users matching a Janrain filter (entity.find's grammar), in order of Janrain's id.",
            discussion: "Example: capturectl user find --filter \"primaryAddress.city = 'Paris' and lastUpdated > '2026-01-01'\"")

        @Option(help: ArgumentHelp("Janrain's filter grammar, run in the database.", valueName: "filter"))
        var filter: String
        @OptionGroup var paging: PageOptions
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.list(
                    UserCommand.columns,
                    try await console.perform(AdminOperations.users, UserQuery(filter: filter, page: paging.page)))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one user by id (uuid) or email address, with their linked accounts.")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                try output.record(
                    UserCommand.fields + ["linked_accounts"], try await console.perform(AdminOperations.user, reference))
            }
        }
    }

    /// How many users' passwords are in each format: imported legacy hashes left to migrate at sign-in.
    struct Passwords: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passwords",
            abstract: "Count users per stored password format (bcrypt, none, imported formats still migrating).",
            discussion: """
                Imported formats other than bcrypt become bcrypt at each user's first sign-in. --clear FORMAT removes \
                the passwords still in one of them (the users set a new one through a reset link), for weak formats \
                an operator will not keep (docs/threat-model.md).
                """)

        @Option(help: ArgumentHelp("Remove the passwords still in this imported format.", valueName: "format"))
        var clear: String?
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                if let clear {
                    let result = try await console.perform(AdminOperations.clearPasswords, clear)
                    try output.message("cleared \(Output.plural(result.cleared, "password")) in \(clear)", view: result)
                    return
                }
                let view = try await console.perform(AdminOperations.passwordFormats, AdminNothing())
                if output.json {
                    output.emit(try AdminViews.document(view))
                } else {
                    let rows = view.formats.map { [$0.format, String($0.users)] }
                    print(Output.table(["FORMAT", "USERS"], rows: rows), terminator: "")
                }
            }
        }
    }

    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out",
            abstract: "Sign a user out everywhere: revoke every token of theirs (takes effect immediately).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.signOutUser, reference)
                try output.message("signed out everywhere: revoked \(Output.plural(result.revoked, "token"))", view: result)
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable",
            abstract: "Deactivate a user and revoke all their tokens (takes effect immediately).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let user = try await console.perform(AdminOperations.disableUser, reference)
                try output.message("disabled \(UserCommand.name(user)); their tokens are revoked", view: user)
            }
        }
    }

    struct ResetFactors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-factors",
            abstract: "Remove a user's passkeys and second factor (they lost them; the password stays).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.resetFactors, reference)
                try output.message(
                    "removed \(Output.plural(result.passkeysRemoved, "passkey"))"
                        + (result.secondFactorRemoved ? " and the second factor" : "") + " of \(reference)",
                    view: result)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract:
                "Erase a user now: the record, tokens, codes, linked sign-ins, passkeys and messages (cannot be undone).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let result = try await console.perform(AdminOperations.deleteUser, reference)
                try output.message("erased \(result.email) (\(result.deleted)) and everything of theirs", view: result)
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract:
                "Print everything kept about a user as one JSON document (record, linked sign-ins, sessions, audit rows).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                // The document itself whether or not --json was given: it is what the person asked for.
                output.emit(try AdminViews.document(try await console.perform(AdminOperations.exportUser, reference)))
            }
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deactivate",
            abstract: "Delete a user's account on their behalf: deactivated now, erased after the grace period.")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let user = try await console.perform(AdminOperations.deactivateUser, reference)
                try output.message("deleted \(UserCommand.name(user)); erased after the grace period", view: user)
            }
        }
    }

    struct Reactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reactivate", abstract: "Take back a user's deletion: active again, not erased.")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let user = try await console.perform(AdminOperations.reactivateUser, reference)
                try output.message("reactivated \(UserCommand.name(user))", view: user)
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable", abstract: "Re-activate a disabled user (they sign in again to get tokens).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withConsole { console, output in
                let user = try await console.perform(AdminOperations.enableUser, reference)
                try output.message("enabled \(UserCommand.name(user))", view: user)
            }
        }
    }
}

extension UserCommand {
    /// "address (id)" of a user.
    static func name(_ user: UserView) -> String {
        "\(user.email) (\(user.id))"
    }
}
