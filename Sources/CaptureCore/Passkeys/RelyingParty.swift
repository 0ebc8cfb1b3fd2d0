import CaptureCBOR
import CaptureJSON
import Crypto
import Foundation

/// This service as a WebAuthn relying party: its id (the public host), the origins a ceremony may come from (the
/// public origin and each client's Android apps), the options it hands out and the checks of WebAuthn §7.1 and §7.2.
public struct RelyingParty: Sendable {
    public let id: String
    public let name: String
    public let origins: Set<String>
    let decoder = CBORDecoder()

    /// The algorithms offered, in order of preference.
    public static let algorithms: [COSEKey.Algorithm] = [.es256, .eddsa, .rs256]
    /// How long a challenge may be answered.
    public static let ceremonyLifetime: TimeInterval = 300

    public init(id: String, name: String, origins: Set<String>) {
        self.id = id
        self.name = name
        self.origins = origins
    }

    /// `PublicKeyCredentialCreationOptionsJSON`: a discoverable credential with user verification, attestation none.
    public func creationOptions(
        challenge: [UInt8], userHandle: [UInt8], userName: String, displayName: String, excluding: [Passkey]
    ) -> JSONValue {
        [
            "rp": ["id": .string(id), "name": .string(name)],
            "user": [
                "id": .string(Data(userHandle).base64URLEncoded()), "name": .string(userName),
                "displayName": .string(displayName),
            ],
            "challenge": .string(Data(challenge).base64URLEncoded()),
            "pubKeyCredParams": .array(
                Self.algorithms.map { ["type": "public-key", "alg": .int($0.rawValue)] }),
            "timeout": .int(Int64(Self.ceremonyLifetime * 1000)),
            "excludeCredentials": .array(excluding.map(Self.descriptor)),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": "required",
            ],
            "attestation": "none",
        ]
    }

    /// `PublicKeyCredentialRequestOptionsJSON`: no credentials listed lets the authenticator offer its discoverable
    /// ones for this relying party.
    public func requestOptions(challenge: [UInt8], allowing: [Passkey]) -> JSONValue {
        [
            "rpId": .string(id), "challenge": .string(Data(challenge).base64URLEncoded()),
            "timeout": .int(Int64(Self.ceremonyLifetime * 1000)), "userVerification": "required",
            "allowCredentials": .array(allowing.map(Self.descriptor)),
        ]
    }

    static func descriptor(_ passkey: Passkey) -> JSONValue {
        var fields: [String: JSONValue] = ["type": "public-key", "id": .string(passkey.credentialID)]
        if !passkey.transports.isEmpty { fields["transports"] = .array(passkey.transports.map(JSONValue.string)) }
        return .object(fields)
    }

    /// WebAuthn §7.1: the new credential, when the response answers `challenge` from one of our origins for our
    /// relying party, with the user present and verified, a key we accept and an attestation we accept.
    public func verifyRegistration(
        _ response: CredentialResponse, challenge: [UInt8]
    ) throws(PasskeyFailure)
        -> AuthenticatorData
    {
        try check(clientData: response.clientDataJSON, type: "webauthn.create", challenge: challenge)
        guard let attestation = response.attestationObject else { throw .malformed("attestationObject is missing") }
        let object: CBORValue
        do { object = try decoder.decode(attestation) } catch { throw .malformed("attestationObject is not CBOR (\(error))") }
        guard let format = object["fmt"]?.text, let statement = object["attStmt"], statement.entries != nil,
            let authData = object["authData"]?.bytes
        else { throw .malformed("attestationObject lacks fmt, attStmt or authData") }
        let data = try AuthenticatorData(authData, decoder: decoder)
        try check(data)
        guard let credential = data.credential else { throw .malformed("no credential was made") }
        guard credential.id == response.id else { throw .malformed("the credential id differs from the response's") }
        switch format {
        case "none":
            guard statement.entries?.isEmpty == true else { throw .unsupportedAttestation("none with a statement") }
        case "packed" where statement["x5c"] == nil:
            // Self-attestation: signed by the credential's own key, which proves nothing more than none does.
            guard statement["alg"]?.int == credential.publicKey.algorithm.rawValue, let signature = statement["sig"]?.bytes,
                credential.publicKey.isValidSignature(signature, for: authData + Self.sha256(response.clientDataJSON))
            else { throw .badSignature }
        default:
            throw .unsupportedAttestation(format)
        }
        return data
    }

    /// WebAuthn §7.2: the authenticator's new counter and backup state, when the response answers `challenge` from
    /// one of our origins for our relying party, signed by `passkey`'s key, user present and verified, and the
    /// counter moved on.
    public func verifyAssertion(
        _ response: CredentialResponse, challenge: [UInt8], passkey: Passkey
    ) throws(PasskeyFailure)
        -> AuthenticatorData
    {
        try check(clientData: response.clientDataJSON, type: "webauthn.get", challenge: challenge)
        guard let authData = response.authenticatorData, let signature = response.signature else {
            throw .malformed("authenticatorData or signature is missing")
        }
        let data = try AuthenticatorData(authData, decoder: decoder)
        try check(data)
        let key: COSEKey
        do { key = try COSEKey(try decoder.decode(passkey.publicKey)) } catch { throw .malformed("the stored key is unreadable") }
        guard key.isValidSignature(signature, for: authData + Self.sha256(response.clientDataJSON)) else {
            throw .badSignature
        }
        guard Passkey.counterAccepts(stored: passkey.signCount, presented: data.signCount) else {
            throw .counterWentBackwards(stored: passkey.signCount, presented: data.signCount)
        }
        return data
    }

    private func check(clientData bytes: [UInt8], type: String, challenge: [UInt8]) throws(PasskeyFailure) {
        let clientData = try CollectedClientData(bytes)
        guard clientData.type == type else { throw .wrongType }
        guard ConstantTime.equal(clientData.challenge, challenge) else { throw .wrongChallenge }
        guard origins.contains(clientData.origin) else { throw .wrongOrigin(clientData.origin) }
        guard !clientData.crossOrigin else { throw .crossOrigin }
    }

    private func check(_ data: AuthenticatorData) throws(PasskeyFailure) {
        guard ConstantTime.equal(data.rpIDHash, Self.sha256(Array(id.utf8))) else { throw .wrongRelyingParty }
        guard data.userPresent else { throw .userNotPresent }
        guard data.userVerified else { throw .userNotVerified }
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }
}
