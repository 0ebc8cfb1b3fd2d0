import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 27, item 1: a code proves the address it was sent to, under a key the database does not hold.
@Suite struct CodeBindingTests {
    @Test func aCodeMailedToOneAddressDoesNotVerifyAnother() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("a@attacker.example")
            let (_, code) = try await AccountRecoveryTests.mailed(world, to: "a@attacker.example")
            var user = registered.user
            // However the address came to change, the code was sent to the old one.
            user.email = "victim@corp.example"
            try await world.service.store.users.update(user)
            let refused = try await api.post(
                "/access/useVerificationCode", ["verification_code": try #require(code), "email": "victim@corp.example"])
            #expect(refused.code == 390, "\(refused.json)")
            #expect(try await world.service.store.users.find(email: "victim@corp.example")?.emailVerifiedAt == nil)
        }
    }

    @Test func codesAreStoredUnderAKeyOutsideTheDatabase() async throws {
        let world = try await TestWorld.make()
        let registered = try await world.register("keyed@example.com")
        let (_, code) = try await AccountRecoveryTests.mailed(world, to: "keyed@example.com")
        let stored = try #require(
            try await world.service.store.codes.use(userID: registered.user.id, purpose: .emailVerification) { (nil, $0?.hash) })
        // The database's hash is not the code's plain SHA-256 (which 40 bits would not survive offline), and another
        // key does not reproduce it.
        #expect(stored != TokenMinter.hash("verify:\(registered.user.id):\(CodeFormat.normalize(try #require(code)))"))
        #expect(
            stored
                == CodeFormat.hash(
                    code!, userID: registered.user.id, address: "keyed@example.com", purpose: .emailVerification,
                    key: world.service.codeKey))
        #expect(
            stored
                != CodeFormat.hash(
                    code!, userID: registered.user.id, address: "keyed@example.com", purpose: .emailVerification,
                    key: .ephemeral()))
    }

    @Test func theKeyComesFromTheEnvironmentOrAFileMadeAtFirstStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("code-key-\(UUID().uuidString)")
        let file = directory.appendingPathComponent("keys/code.key").path
        let first = try CodeKey.load(environment: [:], file: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "readable by the service's user only")
        let again = try CodeKey.load(environment: [:], file: file)
        let probe = { (key: CodeKey) in
            CodeFormat.hash("ABCD-EFGH", userID: "u", address: "a@b.example", purpose: .passwordReset, key: key)
        }
        #expect(probe(first) == probe(again), "the next start reads the same key")
        let fromEnvironment = try CodeKey.load(environment: ["CAPTURE_CODE_KEY": String(repeating: "ab", count: 32)], file: file)
        #expect(probe(fromEnvironment) != probe(first), "the environment wins")
        #expect(throws: SettingsError.self) { try CodeKey.load(environment: ["CAPTURE_CODE_KEY": "short"], file: file) }
    }
}
