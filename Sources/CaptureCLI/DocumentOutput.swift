import CaptureCore
import CaptureJSON

/// Prints the admin views (`TokenView`, `UserView`, …) as the admin API's documents (`AdminViews`), the same from
/// the database and from a server: a table or `key: value` lines by member name, or the JSON itself with `--json`.
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

    func list<Item>(_ columns: [Column], _ page: AdminList<Item>) throws {
        let items = try page.items.map { try AdminViews.document($0) }
        list(
            columns.map(\.header),
            rows: items.map { item in columns.map { column in Self.cell(item, column.keys) } },
            objects: items)
    }

    /// One view as `key: value` lines in the order of `keys` (its members' names).
    func record(_ keys: [String], _ view: some Encodable) throws {
        let document = try AdminViews.document(view)
        record(keys.map { ($0, Self.text(Self.member(document, $0))) }, object: document)
    }

    /// A one-line outcome, or the view as JSON.
    func message(_ text: String, view: some Encodable) throws {
        message(text, object: try AdminViews.document(view))
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

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
