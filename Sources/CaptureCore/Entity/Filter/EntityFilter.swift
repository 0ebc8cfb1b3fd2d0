import Foundation

/// A filter of `entity.find` and `entity.count` (Janrain's grammar, docs/adr/0062-entity-filters.md), parsed and
/// checked against the entity schema: every path names a scalar attribute, every value has that attribute's type
/// and the form storage keeps. Each storage backend compiles it to parameterised SQL (values are always bound, and
/// a profile path's names are the schema's, `[A-Za-z_][A-Za-z0-9_]*`), so no filter text ever reaches SQL.
public indirect enum EntityFilter: Sendable, Equatable {
    /// Every condition holds (`and`).
    case all([EntityFilter])
    /// At least one holds (`or`).
    case any([EntityFilter])
    case not(EntityFilter)
    /// The attribute is absent or null.
    case isNull(FilterField)
    /// A comparison; false when the attribute is absent or null (as in SQL).
    case compare(FilterField, FilterComparison, FilterValue)
    /// Holds for no record: a `date` attribute compared `=` with a time that is not midnight.
    case never

    /// Bounds on a filter's text and tree.
    public struct Limits: Sendable, Equatable {
        /// Bytes of UTF-8.
        public var maxLength: Int
        /// Parentheses and `not`s inside one another.
        public var maxDepth: Int
        /// Conditions and operators.
        public var maxNodes: Int

        public static let standard = Limits(maxLength: 4096, maxDepth: 32, maxNodes: 256)

        public init(maxLength: Int, maxDepth: Int, maxNodes: Int) {
            self.maxLength = maxLength
            self.maxDepth = maxDepth
            self.maxNodes = maxNodes
        }
    }

    /// `text` parsed and checked against `schema`. A mistake is `CaptureError.invalidArgument("filter", "… at
    /// position N")` (Janrain's 200), an attribute the schema lacks `.schemaViolation` (223), `contains` Janrain's 485.
    public static func parse(
        _ text: String, schema: EntitySchema, limits: Limits = .standard
    ) throws(CaptureError) -> EntityFilter {
        try FilterResolver(schema: schema).resolve(try FilterParser.parse(text, limits: limits))
    }

    /// Whether at most one record can match: an equality on one of the record's keys (`uuid`, `id`, `email`, each
    /// unique in storage), alone or as one condition of an `and`. Storage may read such a filter as it reads one record
    /// by selector (an index lookup, no scan), whatever else the filter says.
    public var matchesAtMostOne: Bool {
        switch self {
        case .compare(.record(.uuid), .equal, _), .compare(.record(.id), .equal, _),
            .compare(.record(.email), .equal, _), .never:
            true
        case .all(let conditions): conditions.contains { $0.matchesAtMostOne }
        case .any, .not, .isNull, .compare: false
        }
    }

    static func error(_ problem: String, at position: Int) -> CaptureError {
        .invalidArgument("filter", "\(problem) at position \(position)")
    }
}

/// Janrain's comparison operators.
public enum FilterComparison: String, Sendable, Equatable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// Orders values (`<`, `<=`, `>`, `>=`) rather than matching them.
    public var orders: Bool { self != .equal && self != .notEqual }
}

/// What a filter or a sort names: one of the record's own columns, or a scalar attribute of the profile.
public enum FilterField: Sendable, Hashable {
    case record(RecordField)
    case profile(ProfileField)

    public var kind: FilterValueKind {
        switch self {
        case .record(let field): field.kind
        case .profile(let field): field.kind
        }
    }

    /// The name a filter gives it (`lastUpdated`, `primaryAddress.city`).
    public var path: String {
        switch self {
        case .record(let field): field.rawValue
        case .profile(let field): field.names.joined(separator: ".")
        }
    }
}

/// The service's own attributes that storage keeps in columns, by Janrain's names.
public enum RecordField: String, Sendable, Hashable, CaseIterable {
    /// `User.id`.
    case uuid
    /// `User.number`, Janrain's numeric id.
    case id
    case email
    /// `User.createdAt`.
    case created
    /// `User.updatedAt`.
    case lastUpdated
    /// `User.lastLoginAt`.
    case lastLogin
    /// `User.emailVerifiedAt`.
    case emailVerified

    public var kind: FilterValueKind {
        switch self {
        case .uuid, .email: .text
        case .id: .number
        case .created, .lastUpdated, .lastLogin, .emailVerified: .instant
        }
    }
}

/// A scalar attribute of the profile JSON, outside any plural.
public struct ProfileField: Sendable, Hashable {
    /// The path's names, each `[A-Za-z_][A-Za-z0-9_]*` (checked when the field is made).
    public let names: [String]
    public let kind: FilterValueKind

    /// Nil unless every name is a plain name, the only text a backend splices into a JSON path.
    public init?(names: [String], kind: FilterValueKind) {
        guard !names.isEmpty, names.allSatisfy(Self.isPlainName) else { return nil }
        self.names = names
        self.kind = kind
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(first >= 48 && first <= 57) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 95
        }
    }
}

/// How a field's values compare, which is how storage keeps them.
public enum FilterValueKind: String, Sendable, Hashable {
    /// Text compared byte by byte: strings, emails (lower-cased), uuids, and the profile's `date` (`yyyy-MM-dd`) and
    /// `dateTime` (Janrain's `yyyy-MM-dd HH:mm:ss.SSSSSS +0000`, UTC, as `CaptureDate.format` writes), whose text
    /// sorts as their time does.
    case text
    /// Integers and decimals.
    case number
    /// `true` / `false`; only `=` and `!=`.
    case boolean
    /// A date column of the record (`created`, `lastUpdated`, `lastLogin`, `emailVerified`).
    case instant
}

/// A comparison's value, in its field's kind.
public enum FilterValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case decimal(Double)
    case boolean(Bool)
    case instant(Date)
}
