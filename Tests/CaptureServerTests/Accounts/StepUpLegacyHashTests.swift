import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 52: the current password a step-up asks for is checked against an imported legacy hash the same way a
/// sign-in checks it (one place, `StoredPasswordHash`).
@Suite struct StepUpLegacyHashTests {
    @Test func theCurrentPasswordIsCheckedAgainstALegacyHash() async throws {
        try await withAPI { api, world in
            let aged = try await StepUpTests.aged(api, world, "imported@corp.example")
            var user = try #require(try await world.service.store.users.find(id: aged.user.id))
            user.passwordHash = "$legacy$md5$$3cb4e732631f47e6eb961f34554b7cde"  // MD5("correct horse")
            try await world.service.store.users.update(user)
            let remove = ["access_token": aged.token, "passkey_id": aged.passkeyID]
            let wrong = try await api.post("/passkey/remove", remove.merging(["current_password": "correct horsE"]) { $1 })
            #expect(wrong.code == 390, "\(wrong.json)")
            #expect(try await world.service.store.passkeys.list(userID: user.id).count == 1)
            let right = try await api.post("/passkey/remove", remove.merging(["current_password": "correct horse"]) { $1 })
            #expect(right.stat == "ok", "\(right.json)")
            #expect(try await world.service.store.passkeys.list(userID: user.id).isEmpty)
        }
    }
}
