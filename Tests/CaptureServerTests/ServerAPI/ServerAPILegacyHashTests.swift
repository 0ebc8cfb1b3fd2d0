import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 52: `entity.create` keeps a password object's hash in any format an import reads (docs/adr/0067-legacy-password-hashes.md), refuses a
/// costly one with Janrain's error, and the owner's first sign-in makes it bcrypt.
@Suite struct ServerAPILegacyHashTests {
    @Test func aCreatedRecordKeepsALegacyHashUntilItsOwnerSignsIn() async throws {
        try await withAPI(configure: { $0.bcryptCost = 5 }) { api, world in
            let auth = try await ServerAPIClients.add(world, "crm-migrator", [.directAccess]).basic.headers
            // passlib's pbkdf2_sha256 of "correct horse" at 1,000 rounds.
            let hash = "$pbkdf2-sha256$1000$obT2vtd6j7HWWsu5FyLkPA$SmmaAaMU9bFi.CS2qewciFNw4qusLGnfKwoapAGamO4"
            let created = try await api.post(
                "/entity.create",
                [
                    "type_name": "user",
                    "attributes":
                        #"{"email":"moved@example.com","password":{"type":"password-pbkdf2-sha256","value":"\#(hash)"}}"#,
                ],
                headers: auth)
            #expect(created.stat == "ok", "\(created.text)")
            let stored = try #require(try await world.service.store.users.find(email: "moved@example.com"))
            #expect(StoredPasswordHash.format(of: stored.passwordHash) == .legacy("pbkdf2-sha256"))

            // A string is a plain password to entity.create (Janrain's meaning); a hash comes as the password object.
            let costlyHash = hash.replacingOccurrences(of: "$1000$", with: "$9000000$")
            let costly = try await api.post(
                "/entity.create",
                [
                    "type_name": "user",
                    "attributes":
                        #"{"email":"costly@example.com","password":{"type":"password-pbkdf2-sha256","value":"\#(costlyHash)"}}"#,
                ],
                headers: auth)
            #expect(costly.stat == "error" && costly.code == 360, "\(costly.text)")
            #expect(try await world.service.store.users.find(email: "costly@example.com") == nil)

            let signIn = TestWorld.signIn(email: "moved@example.com", password: "correct horse")
            #expect(try await api.post("/oauth/auth_native_traditional", signIn).stat == "ok")
            let after = try await world.service.store.users.find(email: "moved@example.com")
            #expect(StoredPasswordHash.format(of: after?.passwordHash) == .bcrypt)
        }
    }
}
