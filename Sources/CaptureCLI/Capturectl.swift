import ArgumentParser
import Foundation

/// `capturectl`: the operator's CLI over the service's database. Every rule lives in the feature services (CaptureFeatures);
/// the commands here only parse arguments, call a use case and print the outcome.
public struct Capturectl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "capturectl",
        abstract: "Administers capture-bridge: tokens, users, clients, flow definitions, the entity schema and the outbox.",
        discussion: """
            Works directly on the service's database (a SQLite file, safe while the service runs, or PostgreSQL), or with --server URL over
            the admin API (key from CAPTURE_ADMIN_KEY): token, user (but import), client, keys and audit commands work both
            ways, with the same output and exit codes.
            Exit codes: 0 ok, 1 not found or refused, 2 usage error, 3 the database was migrated by a newer version.
            Every command takes --db (CAPTURE_DB), --settings (CAPTURE_SETTINGS), --server and --json.
            """,
        subcommands: [
            TokenCommand.self, UserCommand.self, ClientCommand.self, AuditCommand.self, AdminKeyCommand.self, KeysCommand.self,
            FlowsCommand.self,
            SchemaCommand.self, MailCommand.self, PurgeCommand.self, DatabaseCommand.self, MigrateCommand.self,
            WebhookCommand.self,
        ])

    public init() {}

    /// Parses the command line, runs the command and exits: 0 ok, 1 not found or refused, 2 usage error.
    /// (ArgumentParser alone would exit 64, EX_USAGE, on a usage error; docs/contract.md §9 asks for 2.)
    public static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
