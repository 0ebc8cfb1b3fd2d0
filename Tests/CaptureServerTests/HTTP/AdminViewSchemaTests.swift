import Foundation
import Testing

@testable import CaptureCore

/// The admin views and the admin schemas of `WebFlows/api/openapi.json` are both written by hand: each schema names
/// exactly the view's members, and requires those the view always writes (null when absent).
@Suite struct AdminViewSchemaTests {
    static func schema(_ name: String) throws -> [String: Any] {
        let schemas = try #require(OpenAPIDocumentTests.document()["components"] as? [String: Any])["schemas"]
        return try #require((schemas as? [String: Any])?[name] as? [String: Any], "no schema \(name)")
    }

    static func members<Keys: CodingKey & CaseIterable>(_: Keys.Type) -> Set<String> {
        Set(Keys.allCases.map(\.stringValue))
    }

    /// `schema`'s property names and required names match the view's keys (less those it leaves out when absent).
    func expect<Keys: CodingKey & CaseIterable>(
        _ schema: [String: Any], _ keys: Keys.Type, optional: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let properties = Set((schema["properties"] as? [String: Any] ?? [:]).keys)
        let required = Set(schema["required"] as? [String] ?? [])
        let names = Self.members(keys)
        #expect(
            properties == names, "properties \(properties.symmetricDifference(names).sorted())", sourceLocation: sourceLocation)
        #expect(
            required == names.subtracting(optional),
            "required \(required.symmetricDifference(names.subtracting(optional)).sorted())",
            sourceLocation: sourceLocation)
        #expect(schema["additionalProperties"] as? Bool == false, sourceLocation: sourceLocation)
    }

    @Test func everyAdminSchemaNamesItsViewsMembers() throws {
        expect(try Self.schema("AdminToken"), TokenView.CodingKeys.self)
        let user = try Self.schema("AdminUser")
        expect(user, UserView.CodingKeys.self, optional: ["linked_accounts"])
        let linked = try #require((user["properties"] as? [String: Any])?["linked_accounts"] as? [String: Any])
        expect(try #require(linked["items"] as? [String: Any]), LinkedAccountView.CodingKeys.self)
        expect(try Self.schema("AdminClient"), ClientView.CodingKeys.self, optional: ["client_secret", "note"])
        expect(try Self.schema("AdminWebhook"), WebhookSubscriptionView.CodingKeys.self, optional: ["secret", "note"])
        expect(try Self.schema("AdminWebhookEvent"), WebhookEventView.CodingKeys.self, optional: ["payload", "history"])
        expect(try Self.schema("AdminWebhookAttempt"), WebhookAttemptView.CodingKeys.self)
        expect(try Self.schema("AdminWebhookRedelivery"), WebhookRedeliveryView.CodingKeys.self)
        expect(try Self.schema("AuditEntry"), AuditEntryView.CodingKeys.self)
        expect(try Self.schema("AdminSigningKey"), SigningKeyView.CodingKeys.self)
        for list in ["AdminTokenList", "AdminUserList", "AdminClientList", "AuditEntryList", "AdminSigningKeyList"] {
            expect(try Self.schema(list), AdminList<TokenView>.CodingKeys.self)
        }
        expect(try Self.schema("AdminRevoked"), RevocationView.CodingKeys.self)
        expect(try Self.schema("AdminPurged"), PurgeView.CodingKeys.self)
        let formats = try Self.schema("AdminPasswordFormats")
        expect(formats, PasswordFormatsView.CodingKeys.self)
        let entry = try #require((formats["properties"] as? [String: Any])?["formats"] as? [String: Any])
        expect(try #require(entry["items"] as? [String: Any]), PasswordFormatsView.Entry.CodingKeys.self)
        expect(try Self.schema("AdminPasswordsCleared"), PasswordsClearedView.CodingKeys.self)
        expect(try Self.schema("AdminUserDeleted"), DeletedUserView.CodingKeys.self)
        expect(try Self.schema("AdminFactorsReset"), FactorsResetView.CodingKeys.self)
        expect(try Self.schema("AdminClientRemoved"), RemovedClientView.CodingKeys.self)
        expect(try Self.schema("AdminSecret"), ClientSecretView.CodingKeys.self)
        let introspection = try #require(try Self.schema("AdminIntrospection")["oneOf"] as? [[String: Any]])
        expect(try #require(introspection.first), IntrospectionView.CodingKeys.self, optional: ["scope"])
    }

    @Test func eachListsItemsAreItsView() throws {
        for (list, item) in [
            ("AdminTokenList", "AdminToken"), ("AdminUserList", "AdminUser"), ("AdminClientList", "AdminClient"),
            ("AuditEntryList", "AuditEntry"), ("AdminSigningKeyList", "AdminSigningKey"),
        ] {
            let items = try #require((try Self.schema(list)["properties"] as? [String: Any])?["items"] as? [String: Any])
            #expect((items["items"] as? [String: Any])?["$ref"] as? String == "#/components/schemas/\(item)")
        }
    }
}
