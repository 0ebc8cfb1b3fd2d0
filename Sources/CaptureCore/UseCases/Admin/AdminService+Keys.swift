import Foundation

extension AdminService {
    /// Makes an admin key; the returned string is the key, shown once (only its secret's hash is kept).
    public func createAdminKey(name: String, by actor: AuditActor) async throws -> (key: AdminKey, presented: String) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            throw CaptureError.invalidArgument("name", "must be 1 to 100 characters")
        }
        let id = String(TokenMinter.hash(minter.mint()).prefix(10))
        let secret = minter.mint()
        let key = AdminKey(id: id, name: trimmed, secretHash: TokenMinter.hash(secret), createdAt: time.now())
        try await audit.audited("admin_key.create", target: id, by: actor) { try await adminKeys.insert(key) }
        return (key, AdminKey.prefix + id + "_" + secret)
    }

    public func listAdminKeys() async throws -> [AdminKey] {
        try await adminKeys.list()
    }

    public func revokeAdminKey(_ id: String, by actor: AuditActor) async throws {
        try await audit.audited("admin_key.revoke", target: id, by: actor) {
            guard try await adminKeys.revoke(id: id, at: time.now()) else {
                throw CaptureError.recordNotFound("active admin key '\(id)'")
            }
        }
    }

    /// The key a bearer presented, if it is one of ours and not revoked. The id finds the row; the secret's hash is
    /// compared in constant time.
    public func authenticateAdmin(_ presented: String?) async throws -> AdminKey {
        guard let presented, let (id, secret) = AdminKey.parse(presented),
            let key = try await adminKeys.find(id: id), !key.isRevoked,
            ConstantTime.equals(TokenMinter.hash(secret), key.secretHash)
        else { throw CaptureError.adminKeyRequired }
        return key
    }
}
