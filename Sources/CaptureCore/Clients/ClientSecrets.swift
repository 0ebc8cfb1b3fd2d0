import Foundation

/// Client secrets kept so that a Janrain-signed request can be checked: HMAC-SHA1 needs the secret itself, so beside
/// its hash (what every other check uses) the secret is sealed under the code key (`CodeKey.seal`); a copy of the
/// database alone opens neither.
public struct ClientSecrets: Sendable {
    let key: CodeKey

    public init(key: CodeKey) {
        self.key = key
    }

    public func seal(_ secret: String) -> String { key.seal(Array(secret.utf8)) }

    /// `client` holding `secret`: its hash for every check, and sealed for signed requests. With `keepingOld`, the
    /// secret it had stays accepted until then (`RetiringSecret`); without, it stops working at once.
    public func giving(_ secret: String, to client: Client, keepingOldUntil keepingOld: Date? = nil) -> Client {
        var client = client
        client.retiringSecret =
            if let hash = client.secretHash, let keepingOld {
                RetiringSecret(hash: hash, sealed: client.sealedSecret, expiresAt: keepingOld)
            } else {
                nil
            }
        client.secretHash = TokenMinter.hash(secret)
        client.sealedSecret = seal(secret)
        return client
    }

    /// The client's secret, or nil when it has none sealed under this key.
    public func secret(of client: Client) -> String? { unsealed(client.sealedSecret) }

    /// The secrets a signed request of `client` may be signed with at `now`: its own, and the retiring one until it
    /// expires.
    public func secrets(of client: Client, at now: Date) -> [String] {
        [secret(of: client), unsealed(client.liveRetiringSecret(at: now)?.sealed)].compactMap { $0 }
    }

    private func unsealed(_ sealed: String?) -> String? {
        sealed.flatMap(key.unseal).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
