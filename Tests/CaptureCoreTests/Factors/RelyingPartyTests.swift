import CaptureCBOR
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureCore

/// WebAuthn's checks against credentials a software authenticator made (Yubico's `fido2` structures and
/// `cryptography`'s keys, `Fixtures/make_webauthn_vectors.py`), and each check broken on purpose.
@Suite struct RelyingPartyTests {
    struct Vector: Decodable {
        var name, rpId, origin, userHandle, createChallenge, registration, getChallenge, assertion: String
    }

    static let vectors: [Vector] = {
        let url = TestWorld.repositoryRoot.appendingPathComponent("Tests/CaptureCoreTests/Fixtures/webauthn-vectors.json")
        return try! JSONDecoder().decode([Vector].self, from: Data(contentsOf: url))
    }()

    static func party(_ vector: Vector, id: String? = nil, origins: Set<String>? = nil) -> RelyingParty {
        RelyingParty(id: id ?? vector.rpId, name: "example", origins: origins ?? [vector.origin])
    }

    static func bytes(_ text: String) -> [UInt8] { Array(Data(base64URLEncoded: text)!) }

    /// The vector's registration, verified, as the passkey the service would store.
    static func registered(_ vector: Vector) throws -> Passkey {
        let response = try CredentialResponse(json: vector.registration)
        let data = try party(vector).verifyRegistration(response, challenge: bytes(vector.createChallenge))
        let made = try #require(data.credential)
        return Passkey(
            credentialID: Data(made.id).base64URLEncoded(), userID: "user-1", name: "test", publicKey: made.publicKeyBytes,
            signCount: data.signCount, backupEligible: data.backupEligible, backedUp: data.backedUp,
            transports: response.transports, createdAt: Date())
    }

    @Test(arguments: vectors.map(\.name))
    func aRegistrationAndASignInVerifyForEachAlgorithm(_ name: String) throws {
        let vector = try #require(Self.vectors.first { $0.name == name })
        let passkey = try Self.registered(vector)
        #expect(passkey.signCount == 1 && passkey.backupEligible && passkey.backedUp)
        #expect(passkey.transports == ["internal", "hybrid"])
        let assertion = try CredentialResponse(json: vector.assertion)
        #expect(assertion.userHandle == Self.bytes(vector.userHandle))
        let data = try Self.party(vector).verifyAssertion(assertion, challenge: Self.bytes(vector.getChallenge), passkey: passkey)
        #expect(data.signCount == 2 && data.userVerified && data.userPresent)
    }

    @Test func anotherOriginAnotherChallengeOrAnotherPartyIsRefused() throws {
        let vector = Self.vectors[0]
        let registration = try CredentialResponse(json: vector.registration)
        let challenge = Self.bytes(vector.createChallenge)
        #expect(throws: PasskeyFailure.wrongOrigin(vector.origin)) {
            try Self.party(vector, origins: ["https://evil.example"]).verifyRegistration(registration, challenge: challenge)
        }
        #expect(throws: PasskeyFailure.wrongChallenge) {
            try Self.party(vector).verifyRegistration(registration, challenge: [UInt8](repeating: 7, count: 32))
        }
        #expect(throws: PasskeyFailure.wrongRelyingParty) {
            try Self.party(vector, id: "example.com").verifyRegistration(registration, challenge: challenge)
        }
        // A sign-in's answer is not a registration's, nor the other way round.
        let passkey = try Self.registered(vector)
        #expect(throws: PasskeyFailure.wrongType) {
            try Self.party(vector).verifyAssertion(registration, challenge: challenge, passkey: passkey)
        }
    }

    /// Issue 48: a ceremony a page of another origin embedded (`crossOrigin: true`) is refused for what it is, not
    /// blamed on an origin that is ours.
    @Test func aCrossOriginCeremonyIsRefusedAsCrossOrigin() throws {
        let vector = Self.vectors[0]
        var json = try #require(try JSONParser.parse(vector.registration).objectMembers)
        var response = try #require(json["response"]?.objectMembers)
        let clientData = Self.bytes(try #require(response["clientDataJSON"]?.stringValue))
        var fields = try #require(try JSONParser.parse(String(decoding: clientData, as: UTF8.self)).objectMembers)
        fields["crossOrigin"] = .bool(true)
        response["clientDataJSON"] = .string(Data(JSONValue.object(fields).encodedBytes()).base64URLEncoded())
        json["response"] = .object(response)
        let framed = try CredentialResponse(json: String(decoding: JSONValue.object(json).encodedBytes(), as: UTF8.self))
        let failure = #expect(throws: PasskeyFailure.self) {
            try Self.party(vector).verifyRegistration(framed, challenge: Self.bytes(vector.createChallenge))
        }
        #expect(failure == .crossOrigin)
        #expect(failure?.reason.contains("cross-origin ceremonies are refused") == true)
        #expect(failure?.reason.contains(vector.origin) == false, "the origin is ours: it is not what is wrong")
    }

    @Test func aSignatureByAnotherKeyOrOverOtherBytesIsRefused() throws {
        let vector = Self.vectors[0]
        var passkey = try Self.registered(vector)
        let assertion = try CredentialResponse(json: vector.assertion)
        let challenge = Self.bytes(vector.getChallenge)
        // Another credential's key (the RS256 vector's) does not verify this signature.
        let other = try Self.registered(Self.vectors[1])
        passkey.publicKey = other.publicKey
        #expect(throws: PasskeyFailure.badSignature) {
            try Self.party(vector).verifyAssertion(assertion, challenge: challenge, passkey: passkey)
        }
        // The authenticator data changed after signing (the counter set back to 0).
        passkey = try Self.registered(vector)
        var json = try #require(try JSONParser.parse(vector.assertion).objectMembers)
        var response = try #require(json["response"]?.objectMembers)
        var data = Self.bytes(try #require(response["authenticatorData"]?.stringValue))
        data[36] = 0
        response["authenticatorData"] = .string(Data(data).base64URLEncoded())
        json["response"] = .object(response)
        let tampered = try CredentialResponse(json: String(decoding: JSONValue.object(json).encodedBytes(), as: UTF8.self))
        #expect(throws: PasskeyFailure.badSignature) {
            try Self.party(vector).verifyAssertion(tampered, challenge: challenge, passkey: passkey)
        }
    }

    @Test func aCounterThatDoesNotMoveOnIsAClone() throws {
        let vector = Self.vectors[0]
        var passkey = try Self.registered(vector)
        passkey.signCount = 2
        #expect(throws: PasskeyFailure.counterWentBackwards(stored: 2, presented: 2)) {
            try Self.party(vector).verifyAssertion(
                try CredentialResponse(json: vector.assertion), challenge: Self.bytes(vector.getChallenge), passkey: passkey)
        }
        // Issue 48: an equal counter did not advance; only a lower one went backwards (what the audit log says).
        #expect(PasskeyFailure.counterWentBackwards(stored: 16, presented: 16).reason.contains("did not advance"))
        #expect(!PasskeyFailure.counterWentBackwards(stored: 16, presented: 16).reason.contains("backwards"))
        #expect(PasskeyFailure.counterWentBackwards(stored: 16, presented: 3).reason.contains("went backwards"))
        #expect(Passkey.counterAccepts(stored: 0, presented: 0))
        #expect(Passkey.counterAccepts(stored: 5, presented: 6))
        #expect(!Passkey.counterAccepts(stored: 5, presented: 0))
    }

    @Test(arguments: [
        ("", "not a JSON object"), ("[]", "not a JSON object"), (#"{"type":"other"}"#, "type must be public-key"),
        (#"{"type":"public-key","id":"AAAA","rawId":"AAAB","response":{}}"#, "id and rawId must name the same credential"),
        (#"{"type":"public-key","id":"AA==","rawId":"AA==","response":{}}"#, "rawId is not base64url"),
        (#"{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{}}"#, "response.clientDataJSON is missing"),
    ])
    func aMalformedCredentialIsNamed(_ example: (String, String)) {
        #expect(throws: PasskeyFailure.malformed(example.1)) { try CredentialResponse(json: example.0) }
    }

    /// Issue 48: a client's transports are kept only in WebAuthn's words, once each; what a listing shows of them is
    /// one of the shapes a made-up listing also draws.
    @Test func onlyWebAuthnsTransportsAreKeptAndListedInOneOfThreeShapes() throws {
        let json =
            #"{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{"clientDataJSON":"e30","#
            + #""transports":["x","usb","internal","usb","<b>","smart-card",7]}}"#
        #expect(try CredentialResponse(json: json).transports == ["usb", "internal", "smart-card"])
        #expect(PasskeyDecoy.shown(["internal"]) == ["hybrid", "internal"])
        #expect(PasskeyDecoy.shown(["usb", "internal"]) == ["hybrid", "internal"])
        #expect(PasskeyDecoy.shown(["usb"]) == ["nfc", "usb"] && PasskeyDecoy.shown(["nfc", "usb"]) == ["nfc", "usb"])
        #expect(PasskeyDecoy.shown(["ble"]).isEmpty && PasskeyDecoy.shown(["smart-card", "usb"]).isEmpty)
        #expect(PasskeyDecoy.shown([]).isEmpty)
    }

    @Test func authenticatorDataIsReadByItsFlagsAndRefusedWhenCutOrPadded() throws {
        var bytes = [UInt8](repeating: 0xAA, count: 32) + [0x05, 0, 0, 1, 0]
        let data = try AuthenticatorData(bytes)
        #expect(data.userPresent && data.userVerified && !data.backupEligible && data.signCount == 256)
        #expect(data.credential == nil)
        bytes.append(0)
        #expect(throws: PasskeyFailure.malformed("bytes follow the authenticator data")) { try AuthenticatorData(bytes) }
        #expect(throws: PasskeyFailure.malformed("authenticator data is shorter than 37 bytes")) {
            try AuthenticatorData(Array(bytes[..<36]))
        }
        // Attested credential data announced (AT) but cut short.
        var attested = [UInt8](repeating: 0, count: 32) + [0x45, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, 4, 1, 2]
        #expect(throws: PasskeyFailure.malformed("the credential id's length is wrong")) { try AuthenticatorData(attested) }
        attested += [3, 4, 0xA1]
        #expect(throws: PasskeyFailure.self) { try AuthenticatorData(attested) }
    }

    @Test func aCOSEKeyOfAnotherAlgorithmOrShapeIsRefused() throws {
        func key(_ entries: [(Int64, CBORValue)]) -> CBORValue {
            .map(entries.map { CBORMapEntry($0.0 >= 0 ? .unsigned(UInt64($0.0)) : .negative(UInt64(-1 - $0.0)), $0.1) })
        }
        #expect(throws: PasskeyFailure.unsupportedAlgorithm(-35)) { try COSEKey(key([(1, .unsigned(2)), (3, .negative(34))])) }
        #expect(throws: PasskeyFailure.malformed("not a P-256 key")) {
            try COSEKey(key([(1, .unsigned(2)), (3, .negative(6)), (-1, .unsigned(1)), (-2, .bytes([1])), (-3, .bytes([2]))]))
        }
        #expect(throws: PasskeyFailure.malformed("not an RSA key of 2048 to 4096 bits")) {
            try COSEKey(
                key([
                    (1, .unsigned(3)), (3, .negative(256)), (-1, .bytes([UInt8](repeating: 1, count: 128))),
                    (-2, .bytes([1, 0, 1])),
                ]))
        }
        #expect(throws: PasskeyFailure.malformed("the public key names no algorithm")) { try COSEKey(key([(1, .unsigned(2))])) }
    }

    @Test func optionsAskForADiscoverableVerifiedCredentialAndNoAttestation() throws {
        let party = RelyingParty(id: "id.example.com", name: "example", origins: ["https://id.example.com"])
        let options = party.creationOptions(
            challenge: [1, 2, 3], userHandle: Array("user-1".utf8), userName: "a@example.com", displayName: "A", excluding: [])
        let members = try #require(options.objectMembers)
        #expect(members["challenge"] == "AQID" && members["attestation"] == "none")
        #expect(members["rp"] == ["id": "id.example.com", "name": "example"])
        #expect(members["authenticatorSelection"]?.objectMembers?["userVerification"] == "required")
        #expect(members["authenticatorSelection"]?.objectMembers?["residentKey"] == "required")
        #expect(members["pubKeyCredParams"]?.arrayElements?.count == 3)
        let request = try #require(party.requestOptions(challenge: [9], allowing: []).objectMembers)
        #expect(request["rpId"] == "id.example.com" && request["userVerification"] == "required")
        #expect(request["allowCredentials"] == [])
    }
}
