import CaptureCore
import CaptureJSON
import CaptureServer
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// `GET /oidc/jwks` and the admin API's `/admin/v1/keys`: the published keys with the cache header the document
/// states, never a private member; a rotation through the admin API audited and shown in the set.
@Suite struct OIDCKeysRouteTests {
    static func keys(_ reply: Reply) -> [[String: Any]] { reply["keys"] as? [[String: Any]] ?? [] }

    @Test func theKeySetIsPublicCacheableAndHoldsNoPrivateMember() async throws {
        try await withAPI { api, world in
            let reply = try await api.get("/oidc/jwks")
            #expect(reply.status == .ok)
            #expect(reply.headers[.cacheControl] == "public, max-age=300" && reply.headers[HTTPField.Name("Pragma")!] == nil)
            let keys = Self.keys(reply)
            #expect(Set(keys.compactMap { $0["alg"] as? String }) == ["RS256", "ES256"])
            for key in keys {
                #expect(key["use"] as? String == "sig")
                for secret in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] { #expect(key[secret] == nil, "\(secret)") }
            }
            // A token the service signs verifies with the set a relying party fetched.
            let token = try await world.service.signingKeys.sign(["sub": "x"], algorithm: .rs256)
            let set = try #require(JSONWebKeySet(json: try JSONParser.parse(Data(reply.text.utf8))))
            try IDToken(compact: token).verifySignature(with: set)
        }
    }

    @Test func aRotationThroughTheAdminAPIIsAuditedAndTheOldKeyStaysPublished() async throws {
        try await AdminAPITests.withAdmin { admin, api, world in
            let before = Set(Self.keys(try await api.get("/oidc/jwks")).compactMap { $0["kid"] as? String })
            let rotated = try await admin.send(.post, "/keys/rotate", json: #"{"algorithm":"RS256"}"#)
            #expect(rotated.status == .ok, "\(rotated.text)")
            let made = admin.items(rotated)
            #expect(made.count == 1 && made[0]["alg"] as? String == "RS256" && made[0]["state"] as? String == "active")
            let listed = admin.items(try await admin.get("/keys"))
            #expect(listed.count == 3)
            #expect(listed.filter { $0["state"] as? String == "retiring" }.count == 1)
            // This instance rotated: its set holds the new key and the old ones at once.
            let after = Set(Self.keys(try await api.get("/oidc/jwks")).compactMap { $0["kid"] as? String })
            #expect(after == before.union([try #require(made[0]["kid"] as? String)]))
            let audit = try await world.service.audit.auditLog(AuditFilter(action: "keys.rotate"))
            #expect(audit.map(\.actor) == ["admin-key:\(admin.id)"] && audit.map(\.target) == ["RS256"])

            let refused = try await admin.send(.post, "/keys/rotate", json: #"{"algorithm":"none"}"#)
            AdminAPITests.expectProblem(refused, .badRequest)
            let unauthorized = try await api.send("/admin/v1/keys/rotate", method: .post)
            #expect(unauthorized.status == .unauthorized)
            #expect(try await world.service.signingKeys.list().count == 3)
        }
    }
}
