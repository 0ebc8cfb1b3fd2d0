import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Crypto
import Foundation
import Testing

/// The service's JWS signer (`SigningKeys`): its tokens verify with the service's own verifier (`IDToken`) and with
/// Authlib; the first key is made once; a rotation signs with the new key and keeps the old one published until the
/// tokens it signed have expired; instances on one database agree; the key set never holds private material.
@Suite struct SigningKeysTests {
    static let claims: [String: JSONValue] = [
        "iss": "https://id.example", "sub": "user-1", "aud": "client", "iat": 1_800_000_000, "exp": 1_800_003_600,
        "name": "Zoë / \"quoted\"",
    ]

    static func kid(_ token: String) throws -> String {
        try #require(try IDToken(compact: token).keyID)
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func aSignedTokenVerifiesWithTheServicesOwnVerifier(_ algorithm: JWSAlgorithm) async throws {
        let world = try await TestWorld.make()
        let keys = world.service.signingKeys
        let token = try await keys.sign(Self.claims, algorithm: algorithm)
        let parsed = try IDToken(compact: token)
        #expect(parsed.header["alg"] == .string(algorithm.rawValue) && parsed.header["typ"] == "JWT")
        #expect(parsed.claims == Self.claims)
        let published = try await keys.published()
        try parsed.verifySignature(with: published)
        // A claim changed after signing does not verify.
        let parts = token.split(separator: ".").map(String.init)
        let forged = Data(JSONValue.object(Self.claims.merging(["sub": "user-2"]) { _, new in new }).encodedBytes())
        let tampered = try IDToken(compact: parts[0] + "." + forged.base64URLEncoded() + "." + parts[2])
        #expect(throws: IDTokenProblem.badSignature) { try tampered.verifySignature(with: published) }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func aSignedTokenVerifiesWithAuthlibAgainstTheJWKS(_ algorithm: JWSAlgorithm) async throws {
        let world = try await TestWorld.make()
        let keys = world.service.signingKeys
        let token = try await keys.sign(Self.claims, algorithm: algorithm)
        let decoded = try await AuthlibVerifier.verify(token: token, jwks: try await keys.document())
        #expect(decoded.header["alg"] as? String == algorithm.rawValue)
        #expect(decoded.header["kid"] as? String == (try Self.kid(token)))
        #expect(decoded.claims["sub"] as? String == "user-1" && decoded.claims["name"] as? String == "Zoë / \"quoted\"")
        // Authlib refuses the same token with one signature byte changed.
        var signature = try #require(Data(base64URLEncoded: token.split(separator: ".")[2]))
        signature[signature.count / 2] ^= 0x01
        let broken = token.split(separator: ".").prefix(2).joined(separator: ".") + "." + signature.base64URLEncoded()
        await #expect(throws: FixtureError.self) {
            try await AuthlibVerifier.verify(token: broken, jwks: try await keys.document())
        }
    }

    @Test func theKeyIDIsTheRFC7638ThumbprintAndTheSetHoldsNoPrivateMember() async throws {
        let world = try await TestWorld.make()
        let document = try await world.service.signingKeys.document()
        guard case .object(let set) = document, case .array(let keys) = set["keys"] else {
            Issue.record("not a key set: \(document)")
            return
        }
        // The first request for the set makes a key of each algorithm, so a relying party never sees an empty set.
        #expect(keys.count == 2)
        for key in keys {
            guard case .object(let members) = key else { continue }
            let allowed: Set<String> =
                members["kty"] == "RSA" ? ["kty", "kid", "use", "alg", "n", "e"] : ["kty", "kid", "use", "alg", "crv", "x", "y"]
            #expect(Set(members.keys) == allowed, "\(members.keys.sorted())")
            for secret in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] { #expect(members[secret] == nil) }
            #expect(members["use"] == "sig")
            // RFC 7638: the required members, sorted, no white space, SHA-256, base64url.
            let required = members.filter { ["kty", "n", "e", "crv", "x", "y"].contains($0.key) }
            let thumbprint = Data(SHA256.hash(data: JSONValue.object(required).encodedBytes())).base64URLEncoded()
            #expect(members["kid"] == .string(thumbprint))
        }
        let rsa = try #require(keys.first { $0.objectValue?["kty"] == "RSA" }?.objectValue)
        // 2048 bits: 256 bytes of modulus, no leading zero; e = 65537.
        #expect(Data(base64URLEncoded: try #require(rsa["n"]?.stringValue))?.count == 256)
        #expect(rsa["e"] == "AQAB")
    }

    @Test(arguments: TestBackend.allCases)
    func theFirstSignMakesOneKeyPerAlgorithmAndLaterSignsReuseIt(_ backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend: backend)
        let keys = world.service.signingKeys
        let first = try Self.kid(try await keys.sign(Self.claims, algorithm: .rs256))
        #expect(try Self.kid(try await keys.sign(Self.claims, algorithm: .rs256)) == first)
        world.time.advance(by: 3600)
        #expect(try Self.kid(try await keys.sign(Self.claims, algorithm: .rs256)) == first)
        let stored = try await world.service.store.signingKeys.list()
        #expect(stored.map(\.algorithm) == [.rs256] && stored.map(\.generation) == [1] && stored[0].retireAt == nil)
        // Sealed: the stored text is neither the key's DER nor anything that parses as one without the code key.
        #expect(!stored[0].sealedKey.contains("MII"))
    }

    @Test(arguments: TestBackend.allCases)
    func aRotationSignsWithTheNewKeyAndKeepsTheOldPublishedUntilItsTokensExpire(_ backend: TestBackend) async throws {
        let world = try await TestWorld.make(backend: backend)
        let keys = world.service.signingKeys
        let lifetime = TimeInterval(world.service.settings.idTokenLifetimeSeconds)
        let old = try await keys.sign(Self.claims, algorithm: .rs256)
        let oldES = try await keys.sign(Self.claims, algorithm: .es256)
        let rotated = try await keys.rotate([.rs256])
        #expect(rotated.count == 1 && rotated[0].generation == 2 && rotated[0].retireAt == nil)
        let new = try await keys.sign(Self.claims, algorithm: .rs256)
        #expect(try Self.kid(new) == rotated[0].kid && Self.kid(new) != Self.kid(old))
        // ES256 was not rotated.
        #expect(try Self.kid(try await keys.sign(Self.claims, algorithm: .es256)) == Self.kid(oldES))

        let listed = try await keys.list()
        let retiring = try #require(listed.first { $0.kid == (try? Self.kid(old)) })
        #expect(retiring.retireAt == world.time.now() + lifetime + 300)
        // Both RS256 keys are published and both tokens verify.
        for token in [old, new] { try IDToken(compact: token).verifySignature(with: try await keys.published()) }
        #expect(Self.kids(try await keys.document()).isSuperset(of: [try Self.kid(old), try Self.kid(new)]))

        // Just before the retirement the old key is still there; after it, gone from the set and the verifier.
        world.time.advance(by: lifetime + 299)
        #expect(Self.kids(try await keys.document()).contains(try Self.kid(old)))
        world.time.advance(by: 2)
        #expect(!Self.kids(try await keys.document()).contains(try Self.kid(old)))
        let afterRetirement = try await keys.published()
        #expect(throws: IDTokenProblem.unknownKey(try Self.kid(old))) {
            try IDToken(compact: old).verifySignature(with: afterRetirement)
        }
        try IDToken(compact: new).verifySignature(with: try await keys.published())
        // The next rotation deletes the retired key's row (its private material with it).
        _ = try await keys.rotate([.rs256])
        #expect(!(try await keys.list()).contains { $0.kid == (try? Self.kid(old)) })
        #expect(try await keys.list().filter { $0.algorithm == .rs256 }.map(\.generation) == [2, 3])
    }

    @Test(arguments: TestBackend.allCases)
    func twoInstancesStartingTogetherAgreeOnTheFirstKey(_ backend: TestBackend) async throws {
        let instances = try await SigningKeyInstances.make(2, backend: backend)
        let kids = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                let keys = instances[index % 2].signingKeys
                group.addTask { try Self.kid(try await keys.sign(Self.claims, algorithm: .es256)) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(kids.count == 1)
        #expect(try await instances[0].store.signingKeys.list().count == 1)
        #expect(Self.kids(try await instances[1].signingKeys.document()).contains(try #require(kids.first)))
    }

    @Test func requestsArrivingBeforeTheFirstKeyShareOneMakingOfIt() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let counting = CountingSigningKeyRepository(world.service.store.signingKeys)
        let keys = SigningKeys(
            store: counting, codeKey: world.service.codeKey, time: world.time, settings: world.service.settings)
        let kids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<12 { group.addTask { try Self.kid(try await keys.sign(Self.claims, algorithm: .rs256)) } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(kids.count == 1)
        #expect(counting.firstKeysOffered == 1)
    }

    @Test(arguments: TestBackend.allCases)
    func anInstanceSeesAnotherInstancesRotation(_ backend: TestBackend) async throws {
        let time = TestTime()
        let instances = try await SigningKeyInstances.make(2, backend: backend, time: time)
        let (a, b) = (instances[0].signingKeys, instances[1].signingKeys)
        let first = try Self.kid(try await b.sign(Self.claims, algorithm: .rs256))
        #expect(try Self.kid(try await a.sign(Self.claims, algorithm: .rs256)) == first)
        let rotated = try await a.rotate([.rs256])[0].kid
        #expect(try Self.kid(try await a.sign(Self.claims, algorithm: .rs256)) == rotated)
        // B signs with its kept key until it reads the keys again (within 30 s), then with the new one.
        #expect(try Self.kid(try await b.sign(Self.claims, algorithm: .rs256)) == first)
        time.advance(by: 29)
        #expect(try Self.kid(try await b.sign(Self.claims, algorithm: .rs256)) == first)
        time.advance(by: 2)
        #expect(try Self.kid(try await b.sign(Self.claims, algorithm: .rs256)) == rotated)
        // B verifies a token of A's next key at once: a kid it does not know sends it to the database.
        let next = try await a.rotate([.rs256])[0].kid
        let token = try IDToken(compact: try await a.sign(Self.claims, algorithm: .rs256))
        #expect(token.keyID == next)
        try token.verifySignature(with: try await b.published(knowing: token.keyID))
        #expect(try Self.kid(try await b.sign(Self.claims, algorithm: .rs256)) == next)
    }

    @Test func unknownKeyIDsSendAnInstanceToTheDatabaseAtMostOncePerSecond() async throws {
        let time = TestTime()
        let instances = try await SigningKeyInstances.make(2, backend: .sqlite, time: time)
        let (a, b) = (instances[0].signingKeys, instances[1].signingKeys)
        _ = try await b.sign(Self.claims, algorithm: .rs256)
        // Made-up kids: the first looks in the database, the next within a second does not.
        _ = try await b.published(knowing: "made-up-1")
        let rotated = try await a.rotate([.rs256])[0].kid
        #expect(!(try await b.published(knowing: rotated)).containsKey(id: rotated))
        time.advance(by: 1)
        #expect(try await b.published(knowing: rotated).containsKey(id: rotated))
    }

    @Test(arguments: TestBackend.allCases)
    func keysSealedUnderAnotherCodeKeyAreNeitherPublishedNorUsed(_ backend: TestBackend) async throws {
        let time = TestTime()
        let location = try await TestStorage.newLocation(backend)
        let ours = try await SigningKeyInstances.instance(on: location, time: time, codeKey: .ephemeral())
        let stranger = try await SigningKeyInstances.instance(on: location, time: time, codeKey: .ephemeral())
        _ = try await ours.signingKeys.sign(Self.claims, algorithm: .rs256)
        #expect(try await stranger.signingKeys.published().entries.isEmpty)
        await #expect {
            try await stranger.signingKeys.sign(Self.claims, algorithm: .rs256)
        } throws: { error in
            guard case CaptureError.unexpected(let message) = error else { return false }
            return message.contains("capturectl keys rotate") && !message.contains("MII")
        }
        // A rotation from the instance with the other key makes one it can use; ours keeps verifying its old tokens.
        let old = try await ours.signingKeys.sign(Self.claims, algorithm: .rs256)
        _ = try await stranger.signingKeys.rotate([.rs256])
        _ = try await stranger.signingKeys.sign(Self.claims, algorithm: .rs256)
        try IDToken(compact: old).verifySignature(with: try await ours.signingKeys.published())
    }

    @Test func rsaSigningTakesAboutAMillisecond() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let keys = world.service.signingKeys
        _ = try await keys.sign(Self.claims, algorithm: .rs256)
        let clock = ContinuousClock()
        let rounds = 50
        let elapsed = try await clock.measure {
            for _ in 0..<rounds { _ = try await keys.sign(Self.claims, algorithm: .rs256) }
        }
        let each = elapsed / rounds
        // A rotation makes an RSA 2048 and a P-256 key: once per deployment and per operator's rotation, not per token.
        let rotation = try await clock.measure { _ = try await keys.rotate() }
        print("RS256 sign: \(each) each over \(rounds); a rotation of both keys: \(rotation)")
        // Loose: a debug build on a loaded machine; what matters is that it is not bcrypt's hundreds of milliseconds.
        #expect(each < .milliseconds(50))
    }

    static func kids(_ document: JSONValue) -> Set<String> {
        guard case .object(let set) = document, case .array(let keys) = set["keys"] else { return [] }
        return Set(keys.compactMap { $0.objectValue?["kid"]?.stringValue })
    }
}

extension JSONValue {
    fileprivate var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
