import ArgumentParser
import CaptureCore
import CaptureStorage
import Foundation

/// `capturectl db`: the database itself.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Work on the database itself: copy it to another backend.",
        subcommands: [Copy.self])

    /// `capturectl db copy --from A --to B`: every row, ids and hashes as they are (StoreCopy).
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy every record from one database to another, empty one (e.g. a SQLite file to PostgreSQL).",
            discussion: """
                Both take what --db takes: a SQLite file or sqlite: URL, or a postgres:// URL (PGUSER/PGPASSWORD fill \
                in what it leaves out). The target is migrated first and must hold no records; nothing is written \
                to it otherwise. Stop the service on the source first, or copy from a backup: writes made during \
                the copy may be missed. Prints how many rows of each table were copied.
                """)

        @Option(help: ArgumentHelp("The database to read.", valueName: "path-or-url")) var from: String
        @Option(help: ArgumentHelp("The database to fill (created when a SQLite file).", valueName: "path-or-url")) var to: String
        @Flag(help: "Print JSON instead of a table.") var json = false

        func run() async throws {
            let output = Output(json: json)
            try await Output.guarding {
                let environment = ProcessInfo.processInfo.environment
                let source = try Self.location(from, "from", environment)
                if case .sqlite(let path) = source, !FileManager.default.fileExists(atPath: path) {
                    throw CaptureError.recordNotFound("database file '\(path)'")
                }
                let target = try Self.location(to, "to", environment)
                guard source != target else { throw CaptureError.invalidArgument("to", "is the same database as --from") }
                let reading = try await OpenedStorage.open(source)
                let writing = try await OpenedStorage.open(target)
                let report = try await StoreCopy.copy(from: reading.records, to: writing.records)
                try await reading.close()
                try await writing.close()
                output.list(
                    ["TABLE", "ROWS"], rows: report.map { [$0.table, String($0.rows)] },
                    objects: report.map { ["table": .string($0.table), "rows": .int(Int64($0.rows))] })
            }
        }

        static func location(_ text: String, _ name: String, _ environment: [String: String]) throws -> DatabaseLocation {
            do {
                return try DatabaseLocation(text, environment: environment)
            } catch let error as DatabaseLocationError {
                throw CaptureError.invalidArgument(name, error.problem)
            }
        }
    }
}
