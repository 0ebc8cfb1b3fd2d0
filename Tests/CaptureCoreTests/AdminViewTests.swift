import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// The admin views write the very bytes the admin API sent before they existed: `Before` is the hand-built
/// `JSONValue` documents of that time (kept here as the oracle), compared byte for byte with `AdminViews.document`
/// of the views made from the same records. Decoding a reply and writing it again (capturectl `--server --json`)
/// gives the same bytes too.
@Suite struct AdminViewTests {
    /// The documents as `AdminDocuments` built them before the views.
    enum Before {
        static func date(_ date: Date?) -> JSONValue { AdminDocuments.date(date) }

        static func token(_ record: TokenRecord, email: String?, now: Date) -> JSONValue {
            [
                "id": record.id.map { .int($0) } ?? .null, "fingerprint": .string(record.fingerprint),
                "kind": .string(record.kind.rawValue), "state": .string(record.state(at: now).rawValue),
                "user_id": .string(record.userID), "email": .optional(email), "client_id": .string(record.clientID),
                "chain_id": .string(record.chainID), "scope": .string(record.scope),
                "auth_provider": .string(record.authProvider), "issued_at": date(record.issuedAt),
                "expires_at": date(record.expiresAt), "used_at": date(record.usedAt), "revoked_at": date(record.revokedAt),
            ]
        }

        static func user(_ user: User, linked: [LinkedIdentity]? = nil) -> JSONValue {
            var fields: [String: JSONValue] = [
                "id": .string(user.id), "email": .string(user.email),
                "state": .string(user.isDisabled ? "disabled" : "active"), "display_name": .optional(user.displayName),
                "given_name": .optional(user.givenName), "family_name": .optional(user.familyName),
                "birthday": .optional(user.birthday), "phone": .optional(user.phone),
                "has_password": .bool(user.passwordHash != nil), "email_verified_at": date(user.emailVerifiedAt),
                "password": .string(user.passwordHash == nil ? "none" : "bcrypt"), "created_at": date(user.createdAt),
                "updated_at": date(user.updatedAt),
                "last_login_at": date(user.lastLoginAt), "disabled_at": date(user.disabledAt),
                "delete_requested_at": date(user.deleteRequestedAt),
            ]
            if let linked {
                fields["linked_accounts"] = .array(
                    linked.map { link in
                        [
                            "provider": .string(link.provider), "identifier": .string(link.identifier),
                            "email": .optional(link.email), "linked_at": date(link.linkedAt),
                            "last_used_at": date(link.lastUsedAt),
                        ]
                    })
            }
            return .object(fields)
        }

        static func client(_ client: Client, secret: String? = nil) -> JSONValue {
            var fields: [String: JSONValue] = [
                "client_id": .string(client.clientID), "name": .string(client.name),
                "type": .string(client.isConfidential ? "confidential" : "public"),
                "confidential": .bool(client.isConfidential),
                "redirect_uris": .array(client.redirectURIs.map(JSONValue.string)),
                "allowed_origins": .array(client.allowedOrigins.map(JSONValue.string)),
                "response_types": .array(client.responseTypes.map { JSONValue.string($0.rawValue) }),
                "legacy_token_url": .bool(client.legacyTokenURL),
                "access_token_life_hours": client.accessTokenLifeHours.map(JSONValue.double) ?? .null,
                "site_name": .null, "verify_email_url": .null, "password_recover_url": .null,
                "features": .array(client.features.map(\.rawValue).sorted().map(JSONValue.string)),
                "whitelist": .array(client.whitelist.map(JSONValue.string)), "created_at": date(client.createdAt),
            ]
            if let secret {
                fields["client_secret"] = .string(secret)
                fields["note"] = .string(AdminDocuments.secretNote)
            }
            return .object(fields)
        }

        static func audit(_ entry: AuditEntry) -> JSONValue {
            [
                "id": entry.id.map { .int($0) } ?? .null, "at": date(entry.at), "actor": .string(entry.actor),
                "action": .string(entry.action), "target": .string(entry.target), "outcome": .string(entry.outcome),
                "detail": .optional(entry.detail),
            ]
        }
    }

    /// `view` is written as `before` was, and survives decoding (capturectl's remote mode) byte for byte.
    func expectSameBytes<View: Codable>(
        _ view: View, _ before: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let bytes = try AdminViews.document(view).encodedBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: before.encodedBytes(), as: UTF8.self))
        let decoded = try AdminViews.decode(View.self, from: bytes)
        #expect(try AdminViews.document(decoded).encodedBytes() == bytes, sourceLocation: sourceLocation)
    }

    @Test func tokensUsersAndLinkedAccountsAreWrittenAsBefore() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let registered = try await world.register("views@example.com")
        let now = world.time.now()
        let records = try await world.service.admin.listTokens(
            user: registered.user.id, client: nil, kind: nil, state: nil, page: Page())
        #expect(!records.isEmpty)
        for record in records {
            try expectSameBytes(
                TokenView(record, email: registered.user.email, now: now),
                Before.token(record, email: registered.user.email, now: now))
            try expectSameBytes(TokenView(record, email: nil, now: now), Before.token(record, email: nil, now: now))
            var used = record
            used.usedAt = now
            used.revokedAt = now.addingTimeInterval(0.75)
            try expectSameBytes(TokenView(used, email: nil, now: now), Before.token(used, email: nil, now: now))
        }
        // A full page (Page.maxLimit rows) is far over the limits callers' JSON is held to; it is written whole.
        let page = AdminList(
            items: Array(repeating: TokenView(records[0], email: registered.user.email, now: now), count: Page.maxLimit),
            nextOffset: Page.maxLimit)
        guard case .object(let written) = try AdminViews.document(page), case .array(let items)? = written["items"] else {
            Issue.record("a page of tokens is not an object with items")
            return
        }
        #expect(items.count == Page.maxLimit)
        var user = registered.user
        try expectSameBytes(UserView(user), Before.user(user))
        try expectSameBytes(UserView(user, linked: []), Before.user(user, linked: []))
        var link = LinkedIdentity(provider: "example", subject: "s/1", userID: user.id, email: nil, linkedAt: now)
        var second = link
        second.email = "linked@example.com"
        second.lastUsedAt = now
        user.disabledAt = now
        user.lastLoginAt = now
        user.passwordHash = nil
        try expectSameBytes(UserView(user, linked: [link, second]), Before.user(user, linked: [link, second]))
        link.email = "\u{1}\"quoted\"\\"
        try expectSameBytes(UserView(user, linked: [link]), Before.user(user, linked: [link]))
    }

    @Test func clientsAndAuditRowsAreWrittenAsBefore() async throws {
        let world = try await TestWorld.make(backend: .sqlite)
        let (confidential, secret) = try await world.service.clientAdmin.addClient(
            id: "views-backend", name: "Back/end ☃", confidential: true, redirectURIs: ["https://a.example/cb"],
            allowedOrigins: ["https://a.example"], responseTypes: ["code"], legacyTokenURL: true)
        let secretText = try #require(secret)
        try expectSameBytes(ClientView(confidential, secret: secretText), Before.client(confidential, secret: secretText))
        for client in try await world.service.clientAdmin.listClients() {
            try expectSameBytes(ClientView(client), Before.client(client))
            for hours in [2.0, 1.5, 0.1] {
                var changed = client
                changed.accessTokenLifeHours = hours
                try expectSameBytes(ClientView(changed), Before.client(changed))
            }
        }
        let at = world.time.now()
        for entry in [
            AuditEntry(at: at, actor: "service", action: "signin.burst", target: "a@example.com", outcome: "success"),
            AuditEntry(
                id: 7, at: at, actor: "admin-key:k", action: "token.revoke", target: "abc", outcome: "x", detail: "revoked 2"),
        ] {
            try expectSameBytes(AuditEntryView(entry), Before.audit(entry))
        }
        try expectSameBytes(
            AdminList(
                items: [AuditEntryView(AuditEntry(at: at, actor: "a", action: "b", target: "c", outcome: "d"))], nextOffset: 100),
            ["items": [Before.audit(AuditEntry(at: at, actor: "a", action: "b", target: "c", outcome: "d"))], "next_offset": 100])
        try expectSameBytes(AdminList<ClientView>(items: [], nextOffset: nil), ["items": [], "next_offset": .null])
    }

    @Test func outcomesAndIntrospectionAreWrittenAsBefore() async throws {
        try expectSameBytes(RevocationView(revoked: 3), ["revoked": 3])
        try expectSameBytes(PurgeView(purged: 0), ["purged": 0])
        try expectSameBytes(
            DeletedUserView(deleted: "u-1", email: "a@example.com"), ["deleted": "u-1", "email": "a@example.com"])
        try expectSameBytes(RemovedClientView(removed: "c", revoked: 1), ["removed": "c", "revoked": 1])
        try expectSameBytes(ClientSecretView(clientID: "c", clientSecret: "s/+"), ["client_id": "c", "client_secret": "s/+"])
        try expectSameBytes(IntrospectionView.inactive, Introspection.inactive)

        let world = try await TestWorld.make(backend: .sqlite)
        let registered = try await world.register("introspected@example.com")
        let token = try #require(registered.grant?.accessToken)
        let introspection = try #require(try await world.service.tokens.introspect(token: token))
        var fields = introspection.fields
        fields["fingerprint"] = .string(introspection.record.fingerprint)
        try expectSameBytes(IntrospectionView(introspection), .object(fields))
        var unscoped = introspection
        unscoped.record.scope = ""
        fields = unscoped.fields
        fields["fingerprint"] = .string(unscoped.record.fingerprint)
        try expectSameBytes(IntrospectionView(unscoped), .object(fields))
    }
}
