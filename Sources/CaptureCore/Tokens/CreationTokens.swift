import Foundation

/// Janrain's creation tokens (`access/getCreationToken`): a short-lived token that lets one client — typically an
/// app's public client — call `entity.create` once without a secret. Nothing is stored when one is issued: the token
/// is its expiry, a nonce and an HMAC under the code key over them and the client. Redeeming one records its hash in
/// the throttle store (one transaction, shared by every instance) until it expires, so it works once.
public struct CreationTokens: Sendable {
    let key: CodeKey
    let store: any ThrottleRepository
    let minter: TokenMinter
    let time: any TimeSource

    public static let defaultLifetime: TimeInterval = 300
    public static let maxLifetime: TimeInterval = 3600

    public init(key: CodeKey, store: any ThrottleRepository, minter: TokenMinter, time: any TimeSource) {
        self.key = key
        self.store = store
        self.minter = minter
        self.time = time
    }

    /// A token for `clientID`, good for `lifetime` seconds.
    public func issue(for clientID: String, lifetime: TimeInterval) -> String {
        let expiry = Int64(time.now().addingTimeInterval(lifetime).timeIntervalSince1970)
        let nonce = String(minter.mint().prefix(22))
        return "\(expiry).\(nonce).\(mac(clientID, expiry, nonce))"
    }

    /// Uses up `token` for `clientID`; false when it is not one of ours for that client, has expired or was used.
    public func redeem(_ token: String, for clientID: String) async throws -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let expiry = Int64(parts[0]),
            ConstantTime.equals(parts[2], mac(clientID, expiry, parts[1]))
        else { return false }
        let now = time.now()
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(expiry))
        guard expiresAt > now else { return false }
        let used = TokenMinter.hash("creation|" + token)
        return try await store.update([used], now: now) { states in
            guard states[used] == nil else { return ([:], false) }
            return ([used: ThrottleState(level: 1, updatedAt: now, expiresAt: expiresAt)], true)
        }
    }

    private func mac(_ clientID: String, _ expiry: Int64, _ nonce: String) -> String {
        key.mac("creation-token|\(clientID)|\(expiry)|\(nonce)")
    }
}
