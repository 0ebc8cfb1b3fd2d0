import Foundation

/// A browser's sign-in at the OpenID Connect provider, kept in an HttpOnly cookie sealed under the code key: who
/// signed in, when and how. It lets a client sign the person in again without asking (single sign-on, `prompt=none`)
/// while it is younger than `OpenIDConnectSettings.sessionLifetime` and one of the token chains it started is still
/// active — a password change, a deactivation or a logout that ends those chains ends it too.
public struct BrowserSession: Sendable, Equatable, Codable {
    public var id: String
    public var userID: String
    public var authTime: Date
    public var methods: [String]
    public var acr: String?
    public var expiresAt: Date

    public init(id: String, userID: String, authTime: Date, methods: [String], acr: String?, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.authTime = authTime
        self.methods = methods
        self.acr = acr
        self.expiresAt = expiresAt
    }

    public static let cookieName = "capture_oidc_session"
    static let sealingPurpose = "oidc browser session"

    public func sealed(with key: CodeKey) -> String {
        key.seal(Array((try? JSONEncoder().encode(self)) ?? Data()), purpose: Self.sealingPurpose)
    }

    public static func opened(_ sealed: String?, key: CodeKey, now: Date) -> BrowserSession? {
        guard let sealed, !sealed.isEmpty, sealed.utf8.count <= 2_048,
            let bytes = key.unseal(sealed, purpose: sealingPurpose),
            let session = try? JSONDecoder().decode(BrowserSession.self, from: Data(bytes)), now < session.expiresAt
        else { return nil }
        return session
    }

    /// The sign-in is recent enough for `maxAge` seconds (OpenID Connect Core §3.1.2.1); none asked is always.
    public func satisfies(maxAge: Int?, now: Date) -> Bool {
        guard let maxAge else { return true }
        return now.timeIntervalSince(authTime) <= TimeInterval(maxAge)
    }
}
