import Foundation

/// A signing key for operators: what it is and when it retires, never its private material (`SigningKey.sealedKey`
/// stays in storage).
public struct SigningKeyView: Codable, Sendable, Equatable {
    public var kid: String
    public var alg: String
    /// `active` (signs), `retiring` (published until `retires_at`) or `retired` (no longer published; deleted at the
    /// next rotation).
    public var state: String
    public var createdAt: Date
    public var retiresAt: Date?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kid, alg, state
        case createdAt = "created_at", retiresAt = "retires_at"
    }

    public init(_ key: SigningKey, now: Date) {
        kid = key.kid
        alg = key.algorithm.rawValue
        state = key.retireAt == nil ? "active" : key.isPublished(at: now) ? "retiring" : "retired"
        createdAt = key.createdAt
        retiresAt = key.retireAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kid, forKey: .kid)
        try container.encode(alg, forKey: .alg)
        try container.encode(state, forKey: .state)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(retiresAt, forKey: .retiresAt)
    }
}
