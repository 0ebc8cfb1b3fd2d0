import CaptureCBOR
import Crypto

/// The authenticator's signed statement (WebAuthn §6.1): which relying party, what it saw of the user, its counter
/// and, when a credential is made, the credential's id and public key.
public struct AuthenticatorData: Sendable {
    public struct AttestedCredential: Sendable {
        public let id: [UInt8]
        /// The key exactly as the authenticator encoded it: what is stored and read again at each sign-in.
        public let publicKeyBytes: [UInt8]
        public let publicKey: COSEKey
    }

    public let bytes: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: UInt8
    public let signCount: UInt32
    public let credential: AttestedCredential?

    public var userPresent: Bool { flags & 0x01 != 0 }
    public var userVerified: Bool { flags & 0x04 != 0 }
    public var backupEligible: Bool { flags & 0x08 != 0 }
    public var backedUp: Bool { flags & 0x10 != 0 }

    /// WebAuthn caps credential ids at 1,023 bytes.
    static let maxCredentialID = 1023

    public init(_ bytes: [UInt8], decoder: CBORDecoder = CBORDecoder()) throws(PasskeyFailure) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data is shorter than 37 bytes") }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags & 0x40 != 0 {
            guard bytes.count >= offset + 18 else { throw .malformed("attested credential data is cut short") }
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maxCredentialID, bytes.count >= offset + length else {
                throw .malformed("the credential id's length is wrong")
            }
            let id = Array(bytes[offset..<offset + length])
            offset += length
            let rest = Array(bytes[offset...])
            let key: (value: CBORValue, count: Int)
            do { key = try decoder.decodePrefix(rest) } catch { throw .malformed("the public key is not CBOR (\(error))") }
            credential = AttestedCredential(
                id: id, publicKeyBytes: Array(rest[..<key.count]), publicKey: try COSEKey(key.value))
            offset += key.count
        } else {
            credential = nil
        }
        if flags & 0x80 != 0 {
            do {
                guard try decoder.decode(Array(bytes[offset...])).entries != nil else { throw PasskeyFailure.malformed("") }
            } catch {
                throw .malformed("the extensions are not one CBOR map")
            }
        } else if offset != bytes.count {
            throw .malformed("bytes follow the authenticator data")
        }
    }
}
