import CaptureJSON
import Foundation

/// What the browser or platform says it asked the authenticator (WebAuthn §5.8.1), parsed from `clientDataJSON`.
public struct CollectedClientData: Sendable {
    public let type: String
    public let challenge: [UInt8]
    public let origin: String
    public let crossOrigin: Bool

    static let limits = JSONParser.Limits(
        maxInputBytes: 4096, maxDepth: 4, maxValues: 64, maxStringBytes: 2048, maxNumberBytes: 32)

    public init(_ bytes: [UInt8]) throws(PasskeyFailure) {
        guard case .object(let fields)? = try? JSONParser.parse(bytes, limits: Self.limits),
            let type = fields["type"]?.stringValue, let challenge = fields["challenge"]?.stringValue,
            let challengeBytes = Data(base64URLEncoded: challenge), let origin = fields["origin"]?.stringValue
        else { throw .malformed("clientDataJSON is not WebAuthn client data") }
        self.type = type
        self.challenge = Array(challengeBytes)
        self.origin = origin
        if case .bool(true)? = fields["crossOrigin"] { crossOrigin = true } else { crossOrigin = false }
    }
}
