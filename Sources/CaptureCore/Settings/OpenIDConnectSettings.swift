import Foundation

/// `openIDConnect` in `service.json`: what the OpenID Connect provider (docs/oidc.md) releases and under which names.
public struct OpenIDConnectSettings: Sendable, Equatable, Codable {
    /// Scope → claim → record attribute (a path such as `primaryAddress.city`, or `email`, `emailVerified`,
    /// `updated`); a scope given here replaces the standard one (`ClaimMapping.standard`), others keep theirs.
    /// A claim name with a dot (`address.locality`) is a member of an object claim.
    public var claims: [String: [String: String]]?
    /// Akamai Hosted Login's customer id: the same endpoints also answer under `/{id}/login/…` and
    /// `/{id}/profiles/oidc/userinfo`, with `{origin}/{id}/login` as the issuer there.
    public var hostedLoginCustomerId: String?
    /// How long a browser's sign-in at the provider lets clients sign in again without asking (`prompt` absent or
    /// `none`), at most; it ends sooner when every token chain it started has ended.
    public var sessionHours: Double?

    public init() {}

    public var sessionLifetime: TimeInterval { (sessionHours ?? 12) * 3600 }

    func problem() -> (key: String, problem: String)? {
        if let hours = sessionHours, !(0...720).contains(hours) {
            return ("sessionHours", "must be between 0 and 720, got \(hours)")
        }
        if let id = hostedLoginCustomerId,
            id.isEmpty || id.utf8.count > 64
                || !id.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" })
        {
            return ("hostedLoginCustomerId", "must be 1-64 letters, digits, '-' or '_'")
        }
        for (scope, claims) in claims ?? [:] {
            if scope == "openid" { return ("claims.openid", "openid releases no claims of its own") }
            for (claim, attribute) in claims where claim.isEmpty || attribute.isEmpty {
                return ("claims.\(scope)", "claim names and attributes must not be empty")
            }
        }
        return nil
    }
}
