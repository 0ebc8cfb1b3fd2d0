import Foundation

/// One audit row as operators read it. Apart from `AuditEntry`, whose Codable conformance is its database row.
public struct AuditEntryView: Codable, Sendable, Equatable {
    public var id: Int64?
    public var at: Date
    public var actor: String
    public var action: String
    public var target: String
    public var outcome: String
    public var detail: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, at, actor, action, target, outcome, detail
    }

    public init(_ entry: AuditEntry) {
        id = entry.id
        at = entry.at
        actor = entry.actor
        action = entry.action
        target = entry.target
        outcome = entry.outcome
        detail = entry.detail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(at, forKey: .at)
        try container.encode(actor, forKey: .actor)
        try container.encode(action, forKey: .action)
        try container.encode(target, forKey: .target)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(detail, forKey: .detail)
    }
}
