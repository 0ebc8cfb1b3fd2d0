import CaptureJSON
import Foundation

/// A `PublicKeyCredential` as its WebAuthn JSON serialisation carries it (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`, WebAuthn Level 3 §5.1): what `navigator.credentials` gives a page after
/// `toJSON()`, and what iOS's and Android's passkey APIs give a host app. Binary members are base64url.
public struct CredentialResponse: Sendable {
    public let id: [UInt8]
    public let clientDataJSON: [UInt8]
    /// Registration: the attestation object.
    public let attestationObject: [UInt8]?
    /// Authentication: the authenticator data, the signature and the user handle (discoverable credentials).
    public let authenticatorData: [UInt8]?
    public let signature: [UInt8]?
    public let userHandle: [UInt8]?
    public let transports: [String]

    static let limits = JSONParser.Limits(
        maxInputBytes: 32 * 1024, maxDepth: 6, maxValues: 128, maxStringBytes: 16 * 1024, maxNumberBytes: 32)

    /// Parses the JSON text a page or host sends; `id` and `rawId` must agree.
    public init(json text: String) throws(PasskeyFailure) {
        guard case .object(let fields)? = try? JSONParser.parse(text, limits: Self.limits) else {
            throw .malformed("not a JSON object")
        }
        guard fields["type"]?.stringValue == "public-key" else { throw .malformed("type must be public-key") }
        func binary(_ value: JSONValue?, _ name: String) throws(PasskeyFailure) -> [UInt8]? {
            guard let value, value != .null else { return nil }
            guard let text = value.stringValue, let data = Data(base64URLEncoded: text) else {
                throw .malformed("\(name) is not base64url")
            }
            return Array(data)
        }
        guard let id = try binary(fields["rawId"] ?? fields["id"], "rawId"), !id.isEmpty,
            try binary(fields["id"], "id") == id
        else { throw .malformed("id and rawId must name the same credential") }
        guard case .object(let response)? = fields["response"],
            let clientData = try binary(response["clientDataJSON"], "clientDataJSON")
        else { throw .malformed("response.clientDataJSON is missing") }
        self.id = id
        clientDataJSON = clientData
        attestationObject = try binary(response["attestationObject"], "attestationObject")
        authenticatorData = try binary(response["authenticatorData"], "authenticatorData")
        signature = try binary(response["signature"], "signature")
        userHandle = try binary(response["userHandle"], "userHandle")
        if case .array(let items)? = response["transports"] {
            // Only WebAuthn's own words are kept: a client's others would be stored and listed to whoever asks.
            let known = items.compactMap(\.stringValue).filter { PasskeyDecoy.knownTransports.contains($0) }
            transports = known.enumerated().filter { known.firstIndex(of: $0.element) == $0.offset }.map(\.element)
        } else {
            transports = []
        }
    }
}
