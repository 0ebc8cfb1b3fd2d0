import CaptureJSON

/// What a provider's answer proves about an address (docs/contract.md §15): the address in the provider's email claim counts
/// only when the provider vouches for it — `email_verified: true` (or the string "true" some providers send) or, for
/// an issuer the operator knows verifies every address, the provider's `trustEmail` setting. Otherwise the address
/// is absent for merge (380), link-by-merge, thin registration, prefill and marking a new account verified.
public struct ProviderAddress: Sendable, Equatable {
    /// The address as the provider gave it (shown on linked accounts; never used to find or prove anything).
    public var given: String?
    /// The normalised address, only when the provider vouches for it.
    public var vouched: String?

    public init(claims: [String: JSONValue]?, claim: String, trustEmail: Bool) {
        // An address in another syntax than ours (a display name, a quoted part) is no address here (EmailAddress).
        let given = claims?[claim]?.stringValue.flatMap { EmailAddress.isPlain($0) ? $0 : nil }
        self.given = given
        let flag = claims?["email_verified"]
        let says = flag == .bool(true) || flag?.stringValue?.lowercased() == "true"
        vouched = (says || trustEmail) ? given.map(User.normalize(email:)) : nil
    }

    /// Whether the provider vouches for exactly `email` (normalised).
    public func vouches(for email: String) -> Bool {
        vouched != nil && vouched == User.normalize(email: email)
    }
}
