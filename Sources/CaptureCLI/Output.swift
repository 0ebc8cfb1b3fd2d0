import ArgumentParser
import CaptureCore
import CaptureJSON
import Foundation

/// Prints tables, key/value lines or JSON, and reports failures with the right exit code.
struct Output: Sendable {
    var json: Bool

    /// A list: an aligned table with a header, or a JSON array of objects.
    func list(_ columns: [String], rows: [[String]], objects: [JSONValue]) {
        if json {
            emit(.array(objects))
        } else {
            print(Output.table(columns, rows: rows), terminator: "")
        }
    }

    /// One record: `key: value` lines, or a JSON object.
    func record(_ pairs: [(String, String)], object: JSONValue) {
        if json {
            emit(object)
        } else {
            let width = pairs.map(\.0.count).max() ?? 0
            for (key, value) in pairs {
                print(key + ":" + String(repeating: " ", count: width - key.count + 1) + value)
            }
        }
    }

    /// A one-line outcome, or a JSON object.
    func message(_ text: String, object: JSONValue) {
        if json { emit(object) } else { print(text) }
    }

    func emit(_ value: JSONValue) {
        print(String(decoding: value.encoded(), as: UTF8.self))
    }

    static func table(_ columns: [String], rows: [[String]]) -> String {
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                text += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text + "\n"
        }
        return line(columns) + rows.map(line).joined()
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("capturectl: \(message)\n".utf8))
    }

    /// A bad argument → message on stderr, exit 2 (usage); not found / refused → exit 1.
    /// Usage errors and explicit exits pass through.
    static func guarding(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CaptureError {
            printError(error.errorDescription)
            switch error {
            case .invalidArgument, .missingArgument, .malformedRequest: throw ExitCode(2)
            default: throw ExitCode(1)
            }
        } catch let refusal as RemoteRefusal {
            printError(refusal.detail)
            throw ExitCode(refusal.isUsage ? 2 : 1)
        } catch let error as SettingsError {
            printError(error.description)
            throw ExitCode(1)
        } catch let error as DatabaseTooNew {
            // Its own code: a script that upgrades capturectl and the service together can tell this apart.
            printError("refusing to open: \(error)")
            throw ExitCode(DatabaseTooNew.exitCode)
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            throw error
        } catch let error as CleanExit {
            throw error
        } catch {
            printError(String(describing: error))
            throw ExitCode(1)
        }
    }
}

/// ISO-8601 UTC, the one date format the CLI prints.
func iso(_ date: Date) -> String {
    AdminDocuments.iso(date)
}

func iso(_ date: Date?) -> String {
    date.map { iso($0) } ?? "-"
}
