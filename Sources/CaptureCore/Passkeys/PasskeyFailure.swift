/// Why a passkey ceremony's response is refused. Each names the WebAuthn check that failed; the API answers them
/// as `invalid_argument` on `credential`, except a counter going backwards, which is also audited.
public enum PasskeyFailure: Error, Sendable, Equatable {
    case malformed(String)
    case wrongType
    case wrongChallenge
    case wrongOrigin(String)
    /// The client data says a page of another origin embedded the ceremony (`crossOrigin: true`).
    case crossOrigin
    case wrongRelyingParty
    case userNotPresent
    case userNotVerified
    case unsupportedAlgorithm(Int64)
    case unsupportedAttestation(String)
    case badSignature
    case counterWentBackwards(stored: UInt32, presented: UInt32)
    case unknownCredential
    case wrongUser

    public var reason: String {
        switch self {
        case .malformed(let what): "the credential is malformed: \(what)"
        case .wrongType: "the client data is for another ceremony"
        case .wrongChallenge: "the challenge is not the one this ceremony was given"
        case .wrongOrigin(let origin): "the origin '\(origin)' is not one of this service's"
        case .crossOrigin: "cross-origin ceremonies are refused: the page asking was embedded by another origin"
        case .wrongRelyingParty: "the credential is for another relying party"
        case .userNotPresent: "the authenticator did not see the user"
        case .userNotVerified: "the authenticator did not verify the user"
        case .unsupportedAlgorithm(let algorithm): "COSE algorithm \(algorithm) is not accepted (ES256, RS256, EdDSA)"
        case .unsupportedAttestation(let format): "attestation '\(format)' is not accepted (none, or packed self-attestation)"
        case .badSignature: "the signature does not verify"
        // An equal counter is as much a clone signal as a lower one, but saying it "went backwards" misleads whoever
        // reads the audit log.
        case .counterWentBackwards(let stored, let presented) where stored == presented:
            "the authenticator's counter did not advance: it may be a clone"
        case .counterWentBackwards: "the authenticator's counter went backwards: it may be a clone"
        case .unknownCredential: "no passkey is registered under this credential"
        case .wrongUser: "the credential belongs to another account"
        }
    }
}
