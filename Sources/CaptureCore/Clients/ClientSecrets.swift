/// Client secrets kept so that a Janrain-signed request can be checked: HMAC-SHA1 needs the secret itself, so beside
/// its hash (what every other check uses) the secret is sealed under the code key (`CodeKey.seal`); a copy of the
/// database alone opens neither.
public struct ClientSecrets: Sendable {
    let key: CodeKey

    public init(key: CodeKey) {
        self.key = key
    }

    public func seal(_ secret: String) -> String { key.seal(Array(secret.utf8)) }

    /// `client` holding `secret`: its hash for every check, and sealed for signed requests.
    public func giving(_ secret: String, to client: Client) -> Client {
        var client = client
        client.secretHash = TokenMinter.hash(secret)
        client.sealedSecret = seal(secret)
        return client
    }

    /// The client's secret, or nil when it has none sealed under this key.
    public func secret(of client: Client) -> String? {
        client.sealedSecret.flatMap(key.unseal).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
