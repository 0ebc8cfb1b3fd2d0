import CaptureJSON
import Foundation

/// Which claims each OpenID Connect scope releases, from which record attributes (OpenID Connect Core §5.4): the
/// standard mapping onto the default schema, a scope at a time replaced by `OpenIDConnectSettings.claims`.
public struct ClaimMapping: Sendable, Equatable {
    /// scope → claim → attribute path.
    public let scopes: [String: [String: String]]

    /// The default schema's attributes under OpenID Connect's names; Hosted Login's `mobileNumber` is the phone.
    public static let standard: [String: [String: String]] = [
        "profile": [
            "name": "displayName", "given_name": "givenName", "family_name": "familyName", "middle_name": "middleName",
            "birthdate": "birthday", "gender": "gender", "updated_at": "updated",
        ],
        "email": ["email": "email", "email_verified": "emailVerified"],
        "phone": ["phone_number": "mobileNumber", "phone_number_verified": "mobileNumberVerified"],
        "address": [
            "address.street_address": "primaryAddress.address1", "address.locality": "primaryAddress.city",
            "address.region": "primaryAddress.stateAbbreviation", "address.postal_code": "primaryAddress.zip",
            "address.country": "primaryAddress.country",
        ],
    ]

    public init(settings: OpenIDConnectSettings) {
        scopes = Self.standard.merging(settings.claims ?? [:]) { _, configured in configured }
    }

    /// The scopes this provider knows, `openid` first: what discovery lists.
    public var supportedScopes: [String] { ["openid"] + scopes.keys.sorted() }

    /// Every claim any scope can release, and those `sub` and the ID token always carry.
    public var supportedClaims: [String] {
        let released = scopes.values.flatMap { $0.keys.map { String($0.split(separator: ".")[0]) } }
        return Array(Set(released + ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "acr", "sid"]))
            .sorted()
    }

    /// The claims `scopes` release about `user`: `sub` always; an attribute with no value releases nothing.
    public func claims(of user: User, scopes granted: [String]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(user.id)]
        for scope in granted {
            for (claim, attribute) in scopes[scope] ?? [:] {
                guard let value = Self.value(of: attribute, in: user) else { continue }
                let parts = claim.split(separator: ".", maxSplits: 1).map(String.init)
                if parts.count == 2 {
                    var object = claims[parts[0]]?.objectValue ?? [:]
                    object[parts[1]] = value
                    claims[parts[0]] = .object(object)
                } else {
                    claims[claim] = value
                }
            }
        }
        return claims
    }

    /// An attribute's value as a claim: the record's own fields by name, else the profile's (a dot walks into an
    /// object); a `…Verified` date is a boolean, as OpenID Connect's `*_verified` claims are.
    static func value(of attribute: String, in user: User) -> JSONValue? {
        switch attribute {
        case "email": return .string(user.email)
        case "emailVerified": return .bool(user.emailVerifiedAt != nil)
        case "updated": return .int(Int64(user.updatedAt.timeIntervalSince1970))
        case "uuid": return .string(user.id)
        default: break
        }
        var value: JSONValue? = .object(user.profile)
        for name in attribute.split(separator: ".") { value = value?.objectValue?[String(name)] }
        guard let value, value != .null else { return attribute.hasSuffix("Verified") ? .bool(false) : nil }
        if attribute.hasSuffix("Verified"), case .string = value { return .bool(true) }
        if case .string(let text) = value, text.isEmpty { return nil }
        return value
    }
}
