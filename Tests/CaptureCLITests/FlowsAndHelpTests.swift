import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

@Suite("capturectl flows and help")
struct FlowsAndHelpTests {
    @Test("flows list names the repository's flows")
    func list() async throws {
        let result = try await CLI.run(["flows", "list", "--settings", TestWorld.settingsDirectory.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("webViewSignIn"))
        #expect(result.stdout.contains("webViewSignIn.html"))
        #expect(result.stdout.contains("signInForm"))
        let json = try await CLI.run(["flows", "list", "--json", "--settings", TestWorld.settingsDirectory.path])
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.contains { $0["name"] as? String == "webViewSignIn" })
    }

    @Test("schema show lists every attribute by path with its type and constraints")
    func schemaShow() async throws {
        let result = try await CLI.run(["schema", "show", "--settings", TestWorld.settingsDirectory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(lines.contains("uuid service read-only"))
        #expect(lines.contains("email email required, length 0–254, ≤ 254 bytes"))
        #expect(lines.contains("primaryAddress.city string length 0–64, ≤ 256 bytes"))
        #expect(lines.contains("photos#id.value string length 0–1000, ≤ 4000 bytes, pattern https://.+"))
        #expect(lines.contains("loyaltyPoints integer read-only, ≥ 0"))
        let json = try await CLI.run(["schema", "show", "--json", "--settings", TestWorld.settingsDirectory.path])
        let rows = try #require(try json.json() as? [[String: Any]])
        #expect(rows.contains { $0["path"] as? String == "statuses#id.statusCreated" && $0["type"] as? String == "dateTime" })
    }

    @Test("flows check: ok on the repository's Settings, the broken key on a bad copy")
    func check() async throws {
        let good = try await CLI.run(["flows", "check", "--settings", TestWorld.settingsDirectory.path])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")

        let manager = FileManager.default
        let broken = manager.temporaryDirectory.appendingPathComponent("capturectl-settings-\(UUID().uuidString)")
        try manager.createDirectory(at: broken, withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: broken) }
        try manager.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("forms.json"),
            to: broken.appendingPathComponent("forms.json"))
        try manager.copyItem(
            at: TestWorld.settingsDirectory.appendingPathComponent("flows"), to: broken.appendingPathComponent("flows"))
        try Data(#"{"port": "x"}"#.utf8).write(to: broken.appendingPathComponent("service.json"))

        let bad = try await CLI.run(["flows", "check", "--settings", broken.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("service.json"))
        #expect(bad.stderr.contains("port"))
        #expect(!bad.stdout.contains("ok"))
    }

    @Test(
        "--help works on every command group",
        arguments: [
            [], ["token"], ["user"], ["client"], ["flows"], ["schema"],
            ["token", "revoke"], ["client", "add"],
        ])
    func help(_ path: [String]) async throws {
        let result = try await CLI.run(path + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
    }

    @Test("unknown commands and options are usage errors (exit 2)")
    func usageErrors() async throws {
        #expect(try await CLI.run(["token", "frobnicate"]).status == 2)
        #expect(try await CLI.run(["user", "list", "--limit", "many"]).status == 2)
        #expect(try await CLI.run(["token", "list", "--limit", "0"]).status == 2)
    }

    @Test("an empty database lists nothing; a missing one or a missing named settings directory is refused")
    func bareAndMissing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capturectl-bare-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = TestWorld.settingsDirectory.path

        let missing = directory.appendingPathComponent("typo.sqlite").path
        let refused = try await CLI.run(["token", "list", "--db", missing, "--settings", settings])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("typo.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: missing), "a mistyped --db must not create a database")

        let database = directory.appendingPathComponent("capture.sqlite").path
        try CaptureDatabase.open(path: database).close()
        let empty = try await CLI.run(["token", "list", "--json", "--db", database, "--settings", settings])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect((try empty.json() as? [Any])?.isEmpty == true)

        let noSettings = try await CLI.run([
            "token", "list", "--db", database, "--settings", directory.appendingPathComponent("nope").path,
        ])
        #expect(noSettings.status == 1)
        #expect(noSettings.stderr.contains("service.json"))
    }
}
