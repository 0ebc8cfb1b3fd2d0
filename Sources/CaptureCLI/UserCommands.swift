import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl user …`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "List and show users; disable (signing them out everywhere), re-enable, delete or import them.",
        subcommands: [List.self, Show.self, Disable.self, Enable.self, Delete.self, Import.self])
}

extension UserCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List users.")

        @Option(help: "At most this many users.")
        var limit = 100
        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be above 0") }
        }

        func run() async throws {
            try await options.withService { service, output in
                let users = try await service.listUsers(limit: limit)
                output.list(
                    ["ID", "EMAIL", "NAME", "STATE", "CREATED", "LAST LOGIN"],
                    rows: users.map {
                        [$0.id, $0.email, $0.displayName ?? "-", $0.isDisabled ? "disabled" : "active", iso($0.createdAt),
                         iso($0.lastLoginAt)]
                    },
                    objects: users.map(userJSON))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one user by id (uuid) or email address.")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService { service, output in
                let user = try await service.findUser(reference)
                let links = try await service.linkedAccounts(of: user)
                var object = userJSON(user)
                if case .object(var fields) = object {
                    fields["linked_accounts"] = .array(links.map { link in
                        ["provider": .string(link.provider), "identifier": .string(link.identifier),
                         "email": .optional(link.email), "linked_at": isoJSON(link.linkedAt), "last_used_at": isoJSON(link.lastUsedAt)]
                    })
                    object = .object(fields)
                }
                let linked = links.map { "\($0.identifier) (\($0.email ?? "no email"), linked \(iso($0.linkedAt)))" }
                output.record(userPairs(user) + [("linked_accounts", linked.isEmpty ? "-" : linked.joined(separator: "; "))], object: object)
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
            try await options.withService { service, output in
                let user = try await service.setDisabled(reference, disabled: true)
                output.message("disabled \(user.email) (\(user.id)); their tokens are revoked", object: userJSON(user))
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete a user and all their tokens (cannot be undone; takes effect immediately).")

        @Argument(help: ArgumentHelp("The user's id or email address.", valueName: "uuid|email"))
        var reference: String
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await options.withService { service, output in
                let user = try await service.deleteUser(reference)
                output.message(
                    "deleted \(user.email) (\(user.id)) and their tokens",
                    object: ["deleted": .string(user.id), "email": .string(user.email)])
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
            try await options.withService { service, output in
                let user = try await service.setDisabled(reference, disabled: false)
                output.message("enabled \(user.email) (\(user.id))", object: userJSON(user))
            }
        }
    }
}

/// A user's fields for operators; the password hash is never printed.
func userPairs(_ user: User) -> [(String, String)] {
    [
        ("id", user.id),
        ("email", user.email),
        ("state", user.isDisabled ? "disabled" : "active"),
        ("display_name", user.displayName ?? "-"),
        ("given_name", user.givenName ?? "-"),
        ("family_name", user.familyName ?? "-"),
        ("birthday", user.birthday ?? "-"),
        ("phone", user.phone ?? "-"),
        ("password", user.passwordHash == nil ? "none" : "set"),
        ("email_verified", iso(user.emailVerifiedAt)),
        ("created", iso(user.createdAt)),
        ("updated", iso(user.updatedAt)),
        ("last_login", iso(user.lastLoginAt)),
        ("disabled", iso(user.disabledAt)),
    ]
}

func userJSON(_ user: User) -> JSONValue {
    [
        "id": .string(user.id),
        "email": .string(user.email),
        "state": .string(user.isDisabled ? "disabled" : "active"),
        "display_name": .optional(user.displayName),
        "given_name": .optional(user.givenName),
        "family_name": .optional(user.familyName),
        "birthday": .optional(user.birthday),
        "phone": .optional(user.phone),
        "has_password": .bool(user.passwordHash != nil),
        "email_verified_at": isoJSON(user.emailVerifiedAt),
        "created_at": isoJSON(user.createdAt),
        "updated_at": isoJSON(user.updatedAt),
        "last_login_at": isoJSON(user.lastLoginAt),
        "disabled_at": isoJSON(user.disabledAt),
    ]
}
