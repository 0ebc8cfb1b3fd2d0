import CaptureCore
import PostgresNIO

/// An `EntityFilter` (and an order) as SQL over `users`, every value a bound parameter (`$n`). The only text taken
/// from a filter is a profile path's names, which `ProfileField` guarantees are `[A-Za-z_][A-Za-z0-9_]*` (the
/// schema's own names, checked again when the field is made): they are spliced into the `'{a,b}'` path of `#>>`,
/// nothing else is. `profile` is text, read as `jsonb`; `#>>` gives SQL NULL for an absent attribute and a JSON null
/// alike. Text compares byte by byte (`COLLATE "C"`), as SQLite does, whatever the database's collation. A number is
/// read only when the JSON holds one (never a cast error). `expression(of:)` is also the expression of the indexes on
/// profile attributes (`prepareFilterIndexes`), so the planner can use them.
struct PostgresFilterSQL {
    private(set) var sql = ""
    private(set) var bindings = PostgresBindings()

    /// `filter` as a condition, its values appended to `bindings` (numbered after those already there).
    static func condition(_ filter: EntityFilter, bindings: inout PostgresBindings) -> String {
        var compiled = PostgresFilterSQL(bindings: bindings)
        compiled.append(filter)
        bindings = compiled.bindings
        return compiled.sql
    }

    private init(bindings: PostgresBindings) {
        self.bindings = bindings
    }

    /// The value a field compares and sorts by.
    static func expression(of field: FilterField) -> String {
        switch field {
        case .record(let column):
            switch column {
            case .uuid: return "id"
            case .id: return "number"
            // Stored lower-cased; `users_by_email` is on lower(email).
            case .email: return "lower(email)"
            case .created: return "created_at"
            case .lastUpdated: return "updated_at"
            case .lastLogin: return "last_login_at"
            case .emailVerified: return "email_verified_at"
            }
        case .profile(let profile):
            let path = "'{\(profile.names.joined(separator: ","))}'"
            switch profile.kind {
            case .number:
                return "(CASE WHEN jsonb_typeof(profile::jsonb #> \(path)) = 'number' "
                    + "THEN (profile::jsonb #>> \(path))::numeric END)"
            case .text: return "((profile::jsonb #>> \(path)) COLLATE \"C\")"
            case .boolean, .instant: return "(profile::jsonb #>> \(path))"
            }
        }
    }

    /// `expression(of:)`, byte-wise for ordering when it is a text column (a profile text's is already).
    static func ordered(_ field: FilterField) -> String {
        switch field {
        case .record(.uuid), .record(.email): "(\(expression(of: field)) COLLATE \"C\")"
        default: expression(of: field)
        }
    }

    /// `ORDER BY`'s keys, NULL first ascending and last descending, as on SQLite. The columns that are never null get
    /// no NULLS clause, so their btree indexes (ascending, nulls last: PostgreSQL's default) give the order, as
    /// `number` does for exports paging by `id > n`; the profile indexes are made `NULLS FIRST` for the same reason.
    static func orderBy(_ order: [EntitySort]) -> String {
        order.map { key in
            let nulls: String
            switch key.field {
            case .record(.uuid), .record(.id), .record(.email), .record(.created), .record(.lastUpdated): nulls = ""
            default: nulls = key.descending ? " NULLS LAST" : " NULLS FIRST"
            }
            return "\(ordered(key.field)) \(key.descending ? "DESC" : "ASC")\(nulls)"
        }.joined(separator: ", ")
    }

    /// The key of a profile attribute's index: its expression, ascending with nulls first (scanned forward for an
    /// ascending sort, backward for a descending one).
    static func indexKey(of field: ProfileField) -> String {
        "(\(expression(of: .profile(field)))) NULLS FIRST"
    }

    private mutating func append(_ filter: EntityFilter) {
        switch filter {
        case .all(let terms): join(terms, with: " AND ", empty: "true")
        case .any(let terms): join(terms, with: " OR ", empty: "false")
        case .not(let inner):
            sql += "NOT ("
            append(inner)
            sql += ")"
        case .isNull(let field): sql += "\(Self.expression(of: field)) IS NULL"
        case .compare(let field, let comparison, let value):
            let operand = comparison.orders ? Self.ordered(field) : Self.expression(of: field)
            bind(value)
            sql += "\(operand) \(comparison == .notEqual ? "<>" : comparison.rawValue) $\(bindings.count)"
        case .never: sql += "false"
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

    /// A value as the expression holds it: a boolean as `#>>` writes it, `true` / `false`.
    private mutating func bind(_ value: FilterValue) {
        switch value {
        case .text(let text): bindings.append(text)
        case .integer(let integer): bindings.append(integer)
        case .decimal(let decimal): bindings.append(decimal)
        case .boolean(let bool): bindings.append(bool ? "true" : "false")
        case .instant(let date): bindings.append(date)
        }
    }
}
