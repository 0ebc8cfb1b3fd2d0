/// The JWS algorithms the service signs with (RFC 7518 §3): RS256 for every OpenID Connect client, ES256 for those
/// that ask for it. The verifying side (`IDToken`) accepts the same two.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case rs256 = "RS256", es256 = "ES256"

    /// The name as an operator or a client writes it, in any case (`rs256`, `RS256`).
    public static func named(_ name: String) -> JWSAlgorithm? {
        allCases.first { $0.rawValue.caseInsensitiveCompare(name) == .orderedSame }
    }
}
