import CaptureCore
import CaptureJSON
import Crypto
import CryptoExtras
import Foundation
import Testing

/// ID tokens are checked as OpenID Connect Core §3.1.3.7 asks; each refusal has its own reason.
@Suite struct IDTokenTests {
    static let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let ec = P256.Signing.PrivateKey()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static var keySet: JSONWebKeySet {
        let primitives = try! rsa.publicKey.getKeyPrimitives()
        let point = ec.publicKey.rawRepresentation
        let json: JSONValue = [
            "keys": [
                [
                    "kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256",
                    "n": .string(primitives.modulus.base64URLEncoded()),
                    "e": .string(primitives.publicExponent.base64URLEncoded()),
                ],
                [
                    "kty": "EC", "kid": "ec-1", "crv": "P-256",
                    "x": .string(point.prefix(32).base64URLEncoded()), "y": .string(point.suffix(32).base64URLEncoded()),
                ],
                ["kty": "oct", "kid": "secret", "k": "c2VjcmV0"],
                ["kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"],
            ]
        ]
        return JSONWebKeySet(json: json)!
    }

    static var claims: [String: JSONValue] {
        [
            "iss": "https://id.example", "aud": "capture-app", "sub": "user-42", "nonce": "n-0S6_WzA2Mj",
            "iat": .int(Int64(now.timeIntervalSince1970) - 10), "exp": .int(Int64(now.timeIntervalSince1970) + 300),
            "email": "zoe@example.com",
        ]
    }

    static func token(
        _ claims: [String: JSONValue] = claims, header: [String: JSONValue] = ["alg": "RS256", "kid": "rsa-1"]
    )
        throws -> String
    {
        let input =
            Data(JSONValue.object(header).encoded()).base64URLEncoded() + "."
            + Data(JSONValue.object(claims).encoded()).base64URLEncoded()
        let digest = SHA256.hash(data: Data(input.utf8))
        let signature: Data
        switch header["alg"]?.stringValue {
        case "RS256": signature = try rsa.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation
        case "ES256": signature = try ec.signature(for: digest).rawRepresentation
        default: signature = Data()
        }
        return input + "." + signature.base64URLEncoded()
    }

    func check(
        _ compact: String, nonce: String = "n-0S6_WzA2Mj", at now: Date = Self.now
    ) throws(IDTokenProblem) -> [String: JSONValue] {
        try IDToken(compact: compact).verifiedClaims(
            keys: Self.keySet, issuer: "https://id.example", audiences: ["capture-app"], nonce: nonce, now: now)
    }

    @Test func unusableKeysAreSkippedNotFatal() {
        #expect(Self.keySet.entries.count == 2)
        #expect(JSONWebKeySet(json: ["no": "keys"]) == nil)
    }

    @Test func rs256AndES256TokensWithEveryClaimRightVerify() throws {
        #expect(try check(Self.token())["email"] == "zoe@example.com")
        #expect(try check(Self.token(header: ["alg": "ES256", "kid": "ec-1"]))["sub"] == "user-42")
        #expect(try check(Self.token(header: ["alg": "RS256"]))["sub"] == "user-42", "no kid: every RS256 key is tried")
        var several = Self.claims
        several["aud"] = ["capture-app", "other"]
        several["azp"] = "capture-app"
        #expect(try check(Self.token(several))["sub"] == "user-42")
    }

    @Test func eachRefusalNamesItsReason() throws {
        func refusal(_ compact: String, nonce: String = "n-0S6_WzA2Mj", at now: Date = Self.now) -> IDTokenProblem? {
            do {
                _ = try check(compact, nonce: nonce, at: now)
                return nil
            } catch { return error }
        }
        func with(_ name: String, _ value: JSONValue?) throws -> String {
            var claims = Self.claims
            claims[name] = value
            return try Self.token(claims)
        }
        let good = try Self.token()
        let parts = good.split(separator: ".").map(String.init)
        let forged =
            parts[0] + "." + Data(JSONValue.object(Self.claims.merging(["sub": "admin"]) { $1 }).encoded()).base64URLEncoded()
            + "." + parts[2]
        #expect(refusal(forged) == .badSignature)
        #expect(refusal(try Self.token(header: ["alg": "ES256", "kid": "rsa-1"])) == .unknownKey("rsa-1"))
        #expect(refusal(try Self.token(header: ["alg": "RS256", "kid": "rotated-away"])) == .unknownKey("rotated-away"))
        #expect(refusal(try Self.token(header: ["alg": "none"])) == .unsupportedAlgorithm("none"))
        #expect(refusal(try Self.token(header: ["alg": "HS256", "kid": "secret"])) == .unsupportedAlgorithm("HS256"))
        #expect(refusal(try with("iss", "https://evil.example")) == .wrongIssuer)
        #expect(refusal(try with("aud", "someone-else")) == .wrongAudience)
        #expect(refusal(try with("aud", ["capture-app", "other"])) == .wrongAudience, "several audiences need azp")
        #expect(refusal(good, at: Self.now.addingTimeInterval(400)) == .expired)
        #expect(refusal(good, at: Self.now.addingTimeInterval(-200)) == .issuedInTheFuture)
        #expect(refusal(good, nonce: "another-sign-in") == .wrongNonce)
        #expect(refusal(try with("nonce", nil)) == .wrongNonce)
        #expect(refusal(try with("sub", "")) == .missingSubject)
        #expect(refusal("not.a.jwt") == .malformed)
        #expect(refusal(String(repeating: "a", count: 20_000)) == .malformed)
    }
}
