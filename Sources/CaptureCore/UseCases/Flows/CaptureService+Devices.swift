import Foundation

extension CaptureService {
    /// How long a device stays one its owner signed in on, and how many an account keeps.
    static let deviceLifetime: TimeInterval = 365 * 86400
    static let devicesPerUser = 10

    /// The stored key of `token` when it is an active device token of `user`.
    func trustedDevice(_ token: String?, of user: User?) async throws -> String? {
        guard let token, !token.isEmpty, let user else { return nil }
        let hash = TokenMinter.key(token)
        guard let record = try await store.tokens.find(hash: hash), record.kind == .device, record.userID == user.id,
            record.state(at: time.now()) == .active
        else { return nil }
        return hash
    }

    /// A new device token for `user` when the caller asked for one (sent `device_token`) and had none valid;
    /// the oldest beyond `devicesPerUser` are revoked so an account's list stays short.
    func deviceToken(for user: User, client: Client, request: FlowRequest, trusted: String?) async throws -> String? {
        guard request.deviceToken != nil, trusted == nil else { return nil }
        let token = mintToken()
        let now = time.now()
        let device = TokenRecord(
            kind: .device, hash: TokenMinter.key(token), userID: user.id, clientID: client.clientID,
            chainID: minter.identifier(), issuedAt: now, expiresAt: now + Self.deviceLifetime)
        try await store.tokens.insert([device])
        metrics.issued([device])
        let devices = try await store.tokens.list(TokenFilter(userID: user.id, kind: .device, state: .active, now: now))
        for stale in devices.dropFirst(Self.devicesPerUser) {
            if let id = stale.id { metrics.revoked(try await store.tokens.revoke(id: id, at: now), .deviceReplaced) }
        }
        return token
    }
}
