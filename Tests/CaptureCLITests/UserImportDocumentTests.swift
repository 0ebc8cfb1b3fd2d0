import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// `capturectl user import` of records as Janrain's calls answer them: one JSON array, a saved `entity.find` reply, an
/// `entity` reply; and an import run again, which updates what changed and duplicates nothing.
@Suite("capturectl user import: JSON documents and running again")
struct UserImportDocumentTests {
    @Test("a JSON array, an entity.find reply and an entity reply are read record by record, with their lines")
    func documents() async throws {
        let world = try await TestWorld.current()
        let array =
            "[\n"
            + [Export.record(1), Export.record(2), Export.record(3, ["password": "\"hunter2\""])]
            .joined(separator: ",\n") + "\n]\n"
        let arrayFile = try Export.write(array, name: "array.json")
        let first = try await CLI.run(["user", "import", arrayFile.path], in: world)
        #expect(first.status == 1)
        #expect(first.stdout == "read 3, imported 2, refused 1\n")
        #expect(first.stderr.hasPrefix("line 4: 340 invalid_data_format (password)"), "\(first.stderr)")

        // Janrain's reply, pretty-printed as a browser or `jq` saves it, with `stat` first and `results` after.
        let reply = """
            {
              "stat": "ok",
              "result_count": 2,
              "results": [
                \(Export.record(4, ["profiles": #"[{"domain": "facebook.com", "identifier": "http://www.facebook.com/profile.php?id=7", "accessCredentials": {"accessToken": "x"}}]"#])),
                \(Export.record(5))
              ]
            }
            """
        let replyFile = try Export.write(reply, name: "reply.json")
        let second = try await CLI.run(["user", "import", replyFile.path, "--json"], in: world)
        #expect(second.status == 0, "\(second.stderr)")
        let summary = try second.object()
        #expect(summary["read"] as? Int == 2)
        #expect(summary["created"] as? Int == 2)
        // No provider is configured in the test world: the profile is kept for one named `facebook`.
        #expect(summary["profiles_kept"] as? Int == 1 && summary["profiles_not_linked"] as? Int == 0, "\(summary)")
        #expect(try await world.service.admin.findUser("user4@example.com").number == 5)

        let entityFile = try Export.write("{\"result\": \(Export.record(6)), \"stat\": \"ok\"}", name: "entity.json")
        let third = try await CLI.run(["user", "import", entityFile.path], in: world)
        #expect(third.stdout == "read 1, imported 1, refused 0\n", "\(third.stderr)")

        let broken = try Export.write("[" + Export.record(7) + ", {\"email\": ", name: "broken.json")
        let fourth = try await CLI.run(["user", "import", broken.path], in: world)
        #expect(fourth.status == 1)
        #expect(fourth.stderr.contains("cut short or broken"), "\(fourth.stderr)")
    }

    @Test("running an import again updates the records whose lastUpdated is later and leaves the others")
    func runAgain() async throws {
        let world = try await TestWorld.current()
        let stamp = { (day: Int) in "\"2024-02-0\(day) 10:00:00.000000 +0000\"" }
        let lines = (1...4).map { Export.record($0, ["lastUpdated": stamp(1)]) }
        let file = try Export.write(lines.joined(separator: "\n"), name: "first.jsonl")
        let first = try await CLI.run(["user", "import", file.path, "--json"], in: world)
        #expect(try first.object()["created"] as? Int == 4, "\(first.stderr)")

        var changed = lines
        changed[1] = Export.record(2, ["lastUpdated": stamp(2), "displayName": "\"Renamed\""])
        // An older copy than the one stored: the stored one stays.
        changed[2] = Export.record(3, ["lastUpdated": "\"2024-01-01 10:00:00.000000 +0000\"", "displayName": "\"Old\""])
        changed.append(Export.record(5))
        let again = try Export.write(changed.joined(separator: "\n"), name: "again.jsonl")
        let second = try await CLI.run(["user", "import", again.path], in: world)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "read 5, imported 2, refused 0 (created 1, updated 1, unchanged 3)\n")
        #expect(try await world.service.admin.findUser("user2@example.com").profile["displayName"] == "Renamed")
        #expect(try await world.service.admin.findUser("user3@example.com").profile["displayName"] == "User 3")
        #expect(try await world.service.admin.findUser("user2@example.com").number == 3)
        #expect(try await world.service.admin.listUsers().count == 5)
    }

    @Test("an id is never given again: not after the highest record, imported or registered, is deleted")
    func idsNeverGivenAgain() async throws {
        let world = try await TestWorld.current()
        let file = try Export.write(Export.record(499), name: "high.jsonl")  // Janrain id 500
        let imported = try await CLI.run(["user", "import", file.path], in: world)
        #expect(imported.status == 0, "\(imported.stderr)")
        _ = try await world.service.admin.deleteUser("user499@example.com")
        let first = try await world.register("after-import@example.com")
        #expect(first.user.number == 501)
        _ = try await world.service.admin.deleteUser("after-import@example.com")
        let second = try await world.register("after-delete@example.com")
        #expect(second.user.number == 502)
    }
}
