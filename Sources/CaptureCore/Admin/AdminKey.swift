import Foundation

/// An admin API key. The key itself (`cbk_<id>_<secret>`) is shown once, when it is made; only the SHA-256 of its
/// secret part is stored, and a presented key is checked by its id, then by comparing hashes in constant time.
public struct AdminKey: Sendable, Equatable {
    public var id: String
    public var name: String
    public var secretHash: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, name: String, secretHash: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    public var isRevoked: Bool { revokedAt != nil }

    static let prefix = "cbk_"

    /// `cbk_<id>_<secret>` → (id, secret); nil for anything else.
    static func parse(_ presented: String) -> (id: String, secret: String)? {
        guard presented.hasPrefix(prefix), presented.count <= 200 else { return nil }
        let parts = presented.dropFirst(prefix.count).split(separator: "_", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

/// Storage of admin keys.
public protocol AdminKeyRepository: Sendable {
    func insert(_ key: AdminKey) async throws
    func find(id: String) async throws -> AdminKey?
    func list() async throws -> [AdminKey]
    /// Marks the key revoked; false when there was no such key or it was already revoked.
    func revoke(id: String, at: Date) async throws -> Bool
}
