import CaptureCore
import CaptureJSON

/// Prints the admin API's documents (`AdminDocuments`), the same from the database and from a server: a table or
/// `key: value` lines, or the JSON itself with `--json`.
extension Output {
    /// A column of a table: its header and the members it shows (the first that is not null).
    struct Column {
        let header: String
        let keys: [String]
        init(_ header: String, _ keys: String...) {
            self.header = header
            self.keys = keys
        }
    }

    func list(_ columns: [Column], _ page: AdminList) {
        list(
            columns.map(\.header),
            rows: page.items.map { item in columns.map { column in Self.cell(item, column.keys) } },
            objects: page.items)
    }

    /// One document as `key: value` lines in the order of `keys`.
    func record(_ keys: [String], _ document: JSONValue) {
        record(keys.map { ($0, Self.text(Self.member(document, $0))) }, object: document)
    }

    static func member(_ document: JSONValue, _ key: String) -> JSONValue {
        guard case .object(let fields) = document else { return .null }
        return fields[key] ?? .null
    }

    static func cell(_ document: JSONValue, _ keys: [String]) -> String {
        for key in keys {
            let value = member(document, key)
            if value != .null { return text(value) }
        }
        return "-"
    }

    /// A value as one line: strings as they are, lists joined, linked accounts by identifier, null as "-".
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: return "-"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let string): return string
        case .array(let values):
            return values.isEmpty ? "-" : values.map(text).joined(separator: "; ")
        case .object:
            // A linked account: "provider:subject (email, linked <date>)".
            let email = member(value, "email")
            return
                "\(text(member(value, "identifier"))) (\(email == .null ? "no email" : text(email)), linked \(text(member(value, "linked_at"))))"
        }
    }

    static func int(_ document: JSONValue, _ key: String) -> Int {
        if case .int(let number) = member(document, key) { return Int(number) }
        return 0
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
