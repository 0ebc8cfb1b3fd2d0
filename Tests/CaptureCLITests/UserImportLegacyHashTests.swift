import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 52: an import run again (an incremental pull before the cutover) brings a user's legacy hash again. It
/// replaces a legacy hash still waiting for its first sign-in (the old app's password changed), never the bcrypt hash
/// a sign-in here made since (docs/adr/0067-legacy-password-hashes.md).
@Suite struct UserImportLegacyHashTests {
    static func md5(_ hex: String) -> String { #"{"type": "password-md5", "value": "\#(hex)"}"# }
    static let correctHorse = "3cb4e732631f47e6eb961f34554b7cde"  // MD5("correct horse")
    static let batteryStaple = "642b22482681a9d3460924f67bb0c9d6"  // MD5("battery staple")

    @Test func aReimportedLegacyHashNeverReplacesTheBcryptOfASignInHere() async throws {
        let world = try await TestWorld.current()
        let stamp = { (day: Int) in "\"2024-02-0\(day) 10:00:00.000000 +0000\"" }
        let first = (1...2).map { Export.record($0, ["lastUpdated": stamp(1), "password": Self.md5(Self.correctHorse)]) }
        let file = try Export.write(first.joined(separator: "\n"), name: "legacy.jsonl")
        #expect(try await CLI.run(["user", "import", file.path], in: world).status == 0)
        _ = try await world.service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "user1@example.com", password: "correct horse")))
        let signedIn = try await world.service.admin.findUser("user1@example.com").passwordHash
        #expect(StoredPasswordHash.format(of: signedIn) == .bcrypt)

        // The old app's copies, newer, now with another password for both.
        let again = (1...2).map { Export.record($0, ["lastUpdated": stamp(2), "password": Self.md5(Self.batteryStaple)]) }
        let second = try Export.write(again.joined(separator: "\n"), name: "legacy-again.jsonl")
        let result = try await CLI.run(["user", "import", second.path], in: world)
        #expect(result.status == 0 && result.stdout.contains("updated 2"), "\(result.stdout) \(result.stderr)")
        #expect(try await world.service.admin.findUser("user1@example.com").passwordHash == signedIn)
        let waiting = try await world.service.admin.findUser("user2@example.com").passwordHash
        #expect(waiting == "$legacy$md5$$" + Self.batteryStaple)
    }
}
