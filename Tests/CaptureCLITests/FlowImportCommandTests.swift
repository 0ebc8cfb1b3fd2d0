import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// `capturectl flows import` and `flows export`: a Janrain flow document into a copy of Settings and back.
@Suite("capturectl flows import and export")
struct FlowImportCommandTests {
    static let fixture = TestWorld.repositoryRoot.appendingPathComponent("Tests/Fixtures/janrain-flow-fernway.json")

    func settingsCopy() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capturectl-import-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestWorld.settingsDirectory, to: directory)
        return directory
    }

    @Test("a document is imported once, replaced only when asked, and exported back")
    func importAndExport() async throws {
        let settings = try settingsCopy()
        defer { try? FileManager.default.removeItem(at: settings) }
        let imported = try await CLI.run(["flows", "import", Self.fixture.path, "--settings", settings.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported flow fernway: 10 fields, 4 forms"))
        let catalog = try FlowCatalog.load(directory: settings)
        #expect(catalog.flow(named: "fernway")?.isImported == true)

        let again = try await CLI.run(["flows", "import", Self.fixture.path, "--settings", settings.path])
        #expect(again.status != 0 && again.stderr.contains("--replace"))
        let replaced = try await CLI.run(["flows", "import", Self.fixture.path, "--replace", "--settings", settings.path])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let overBuiltIn = try await CLI.run(
            ["flows", "import", Self.fixture.path, "--name", "webViewSignIn", "--replace", "--settings", settings.path])
        #expect(overBuiltIn.status != 0 && overBuiltIn.stderr.contains("not an imported one"))

        let exported = try await CLI.run(["flows", "export", "fernway", "--settings", settings.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let document = settings.appendingPathComponent("exported.json")
        try Data(exported.stdout.utf8).write(to: document)
        let back = try await CLI.run([
            "flows", "import", document.path, "--name", "fernway2", "--json", "--settings", settings.path,
        ])
        #expect(back.status == 0, "\(back.stderr)")
        #expect((try back.json() as? [String: Any])?["fields"] as? Int == 10)
        #expect(
            try FlowCatalog.load(directory: settings).flow(named: "fernway2")?.imported?.buttons["joinButton"] == "Join the club")
    }

    @Test("a document asking for what the service cannot do is refused whole, each problem named")
    func refusal() async throws {
        let settings = try settingsCopy()
        defer { try? FileManager.default.removeItem(at: settings) }
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any])
        var fields = try #require(document["fields"] as? [String: Any])
        fields["age"] = ["element": "input", "type": "text", "label": "x", "schemaId": "age"]
        document["fields"] = fields
        let file = settings.appendingPathComponent("broken-flow.json")
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        let refused = try await CLI.run(["flows", "import", file.path, "--settings", settings.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("fields.age: schemaId 'age' is not a single-valued attribute"))
        #expect(!FileManager.default.fileExists(atPath: settings.appendingPathComponent("flows/fernway.json").path))
    }

    @Test("Janrain's reset forms import with Janrain's meaning; a form lacking what its call needs is refused")
    func janrainsResetForms() async throws {
        let settings = try settingsCopy()
        defer { try? FileManager.default.removeItem(at: settings) }
        let trailhead = TestWorld.repositoryRoot.appendingPathComponent("Tests/Fixtures/janrain-flow-trailhead.json")
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trailhead)) as? [String: Any])
        var forms = try #require(document["forms"] as? [String: Any])
        forms["deactivateAccountForm"] = ["fields": [String]()]
        document["forms"] = forms
        let file = settings.appendingPathComponent("no-password.json")
        try JSONSerialization.data(withJSONObject: document).write(to: file)
        let refused = try await CLI.run(["flows", "import", file.path, "--settings", settings.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("forms.deactivateAccountForm: lacks a current password field"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: settings.appendingPathComponent("flows/trailhead.json").path))

        let imported = try await CLI.run(["flows", "import", trailhead.path, "--settings", settings.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let exported = try await CLI.run(["flows", "export", "trailhead", "--settings", settings.path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        let writtenForms = try #require(written["forms"] as? [String: [String: Any]])
        // Written back under Janrain's names, with Janrain's fields: the address asks for a new link.
        #expect(
            Set(writtenForms.keys)
                == Set(
                    (try #require(
                        (try JSONSerialization.jsonObject(with: Data(contentsOf: trailhead)) as? [String: Any])?["forms"]
                            as? [String: Any])).keys))
        #expect(writtenForms["resetPasswordForm"]?["fields"] as? [String] == ["emailAddress_requestCode", "trailheadSendButton"])
        #expect(
            writtenForms["changePasswordFormNoAuth"]?["fields"] as? [String]
                == ["newPassword_resetPassword", "newPasswordConfirm_resetPassword"])
    }
}
