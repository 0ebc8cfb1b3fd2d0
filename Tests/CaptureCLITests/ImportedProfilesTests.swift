import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// A record's social `profiles` on import: linked under their provider's name, kept for a provider not configured here
/// yet; and the schema comparison `migrate janrain --plan` prints.
@Suite("Import of social profiles and the source schema")
struct ImportedProfilesTests {
    static func record(_ profiles: String) throws -> JSONValue {
        try JSONParser.parse(Export.record(1, ["profiles": profiles]))
    }

    @Test("profiles become links (Janrain's URL identifier or provider:subject), once; unconfigured ones kept")
    func linksForConfiguredProviders() async throws {
        let world = try await TestWorld.make {
            $0.socialProviders = [
                SocialProviderSettings(
                    name: "google", displayName: "Google", issuer: "https://accounts.google.com", clientId: "c")
            ]
        }
        let profiles = """
            [{"domain": "google.com", "identifier": "https://www.google.com/profiles/1098", "profile": {"verifiedEmail": "A@Example.com"},
              "accessCredentials": {"accessToken": "never-kept"}},
             {"domain": "accounts.google.com", "identifier": "google:2001"},
             {"domain": "facebook.com", "identifier": "http://www.facebook.com/profile.php?id=7"},
             {"domain": "example.org"}]
            """
        let options = ImportOptions(format: .jsonl)
        var summary = ImportSummary()
        var refusals: [ImportRefusal] = []
        let input = ImportInput(line: 1, value: .success(try Self.record(profiles)))
        try await world.service.admin.importRecords([input], options: options, into: &summary) { refusals.append($0) }
        #expect(refusals.isEmpty, "\(refusals)")
        #expect(summary.created == 1 && summary.profilesLinked == 2 && summary.profilesKept == 1)
        #expect(summary.profilesNotLinked == 1, "a profile naming no account is not kept")
        let links = try await world.storage.repositories.identities.list(userID: Export.uuid(1))
        // Facebook is not configured here: its account is kept under the name its domain gives.
        #expect(Set(links.map(\.identifier)) == ["google:1098", "google:2001", "facebook:7"])
        #expect(links.first { $0.subject == "1098" }?.email == "a@example.com")
        #expect(links.allSatisfy { $0.providerToken == nil })

        // The same record again: unchanged, and no second link.
        var again = ImportSummary()
        try await world.service.admin.importRecords([input], options: options, into: &again) { refusals.append($0) }
        #expect(again.unchanged == 1 && again.profilesLinked == 0 && again.profilesKept == 0)
        #expect(try await world.storage.repositories.identities.list(userID: Export.uuid(1)).count == 3)
    }

    @Test("the plan names attributes missing here, only here, and of another type; profiles and password types pass")
    func schemaComparison() throws {
        let schema = try FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
        let source: [JSONValue] = [
            ["name": "uuid", "type": "uuid"], ["name": "password", "type": "password-crypt-sha256"],
            ["name": "profiles", "type": "plural"], ["name": "display", "type": "string"],
            ["name": "loyaltyPoints", "type": "string"],
            [
                "name": "primaryAddress", "type": "object",
                "attr_defs": [["name": "city", "type": "string"], ["name": "planet", "type": "string"]],
            ],
        ]
        let differences = SchemaComparison(source: source, schema: schema).differences
        #expect(differences.contains { $0.kind == .missingHere && $0.path == "display" })
        #expect(differences.contains { $0.kind == .missingHere && $0.path == "primaryAddress.planet" })
        #expect(differences.contains { $0.kind == .typeDiffers && $0.path == "loyaltyPoints" })
        #expect(differences.contains { $0.kind == .onlyHere && $0.path == "givenName" })
        #expect(!differences.contains { $0.path == "profiles" || $0.path == "password" || $0.path == "uuid" })
    }
}
