import CaptureCore
import GRDB

/// An `EntityFilter` (and an order) as SQL over `users`, every value a bound argument. The only text taken from a
/// filter is a profile path's names, which `ProfileField` guarantees are `[A-Za-z_][A-Za-z0-9_]*` (the schema's own
/// names, checked again when the field is made): they are spliced into the JSON path of `json_extract`, nothing else
/// is. `expression(of:)` is also the expression of the indexes on profile attributes (`SQLiteFilterIndexes`), byte for
/// byte, so the planner can use them.
struct SQLiteFilterSQL {
    private(set) var sql = ""
    private(set) var arguments = StatementArguments()

    /// `filter` as a condition, with its arguments.
    static func condition(_ filter: EntityFilter) -> (sql: String, arguments: StatementArguments) {
        var compiled = SQLiteFilterSQL()
        compiled.append(filter)
        return (compiled.sql, compiled.arguments)
    }

    /// The column, or the profile's value at the path: `json_extract` gives SQL NULL for an absent attribute and for
    /// a JSON null alike, integers and reals as numbers, `true`/`false` as 1/0, and text as text.
    static func expression(of field: FilterField) -> String {
        switch field {
        case .record(let column):
            switch column {
            case .uuid: "id"
            case .id: "number"
            case .email: "email"
            case .created: "createdAt"
            case .lastUpdated: "updatedAt"
            case .lastLogin: "lastLoginAt"
            case .emailVerified: "emailVerifiedAt"
            }
        case .profile(let profile):
            "json_extract(profile, '$.\(profile.names.joined(separator: "."))')"
        }
    }

    /// `ORDER BY`'s keys. SQLite puts NULL first ascending and last descending, which `EntitySort` promises.
    static func orderBy(_ order: [EntitySort]) -> String {
        order.map { "\(expression(of: $0.field)) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
    }

    private mutating func append(_ filter: EntityFilter) {
        switch filter {
        case .all(let terms): join(terms, with: " AND ", empty: "1")
        case .any(let terms): join(terms, with: " OR ", empty: "0")
        case .not(let inner):
            sql += "NOT ("
            append(inner)
            sql += ")"
        case .isNull(let field): sql += "\(Self.expression(of: field)) IS NULL"
        case .compare(let field, let comparison, let value):
            sql += "\(Self.expression(of: field)) \(comparison == .notEqual ? "<>" : comparison.rawValue) ?"
            arguments += [Self.argument(value)]
        case .never: sql += "0"
        }
    }

    private mutating func join(_ terms: [EntityFilter], with separator: String, empty: String) {
        guard !terms.isEmpty else { return sql += empty }
        sql += "("
        for (index, term) in terms.enumerated() {
            if index > 0 { sql += separator }
            append(term)
        }
        sql += ")"
    }

    /// A value as the column or `json_extract` holds it: dates in GRDB's text (`StoredDate`), booleans as 1/0.
    static func argument(_ value: FilterValue) -> any DatabaseValueConvertible {
        switch value {
        case .text(let text): text
        case .integer(let integer): integer
        case .decimal(let decimal): decimal
        case .boolean(let bool): Int64(bool ? 1 : 0)
        case .instant(let date): StoredDate.text(date)
        }
    }
}
