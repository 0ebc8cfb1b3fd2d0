import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Testing

/// A database that fails under the service (its tables renamed away, as a damaged or half-migrated file would)
/// gives a 500 in each route group's own shape, with the security headers, the details logged and not sent.
@Suite struct RouteGroupFaultTests {
    /// Renames `tables` away so every query on them fails inside GRDB.
    static func breakTables(_ tables: [String], in world: TestWorld) async throws {
        for table in tables { try await world.execute(sql: "ALTER TABLE \(table) RENAME TO \(table)_gone") }
    }

    static func expectSecurityHeaders(_ reply: Reply, _ route: String) {
        #expect(reply.headers[.xContentTypeOptions] == "nosniff", "\(route)")
        #expect(reply.headers[.contentSecurityPolicy] != nil, "\(route)")
        #expect(reply.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(route)")
        #expect(
            !["DatabaseError", "SQLite", "PSQLError", "Postgres"].contains { reply.text.contains($0) },
            "\(route) leaked details: \(reply.text)")
    }

    @Test func eachRouteGroupAnswersAFailingDatabaseInItsOwnShape() async throws {
        try await withAPI { api, world in
            let tokens = try await world.register("fault@example.com").grant
            let accessToken = try #require(tokens?.accessToken)
            let adminKey = try await world.service.admin.createAdminKey(name: "faults", by: .service).presented
            try await Self.breakTables(["tokens", "clients", "change_counters"], in: world)

            // Problem details (the admin API): a 500 problem document.
            let admin = try await api.get("/admin/v1/tokens", headers: [.authorization: "Bearer \(adminKey)"])
            #expect(admin.status == .internalServerError)
            #expect(admin.headers[.contentType] == "application/problem+json")
            #expect(admin["status"] as? Int == 500 && admin["error"] as? String == "unexpected_error")
            Self.expectSecurityHeaders(admin, "/admin/v1/tokens")

            // Janrain Capture: HTTP 500 with stat:error and code 500 (the only 5xx the Capture API gives).
            let capture = try await api.post("/entity", ["access_token": accessToken])
            #expect(capture.status == .internalServerError)
            #expect(capture.stat == "error" && capture.code == 500 && capture["error"] as? String == "unexpected_error")
            Self.expectSecurityHeaders(capture, "/entity")

            // Account recovery is in the same group.
            let recovery = try await api.post(
                "/oauth/forgot_password_native", ["client_id": "demo-mobile-app", "emailAddress": "fault@example.com"])
            #expect(recovery.status == .internalServerError && recovery.stat == "error", "\(recovery.text)")

            // RFC 6749: {"error":"server_error"}.
            let oauth = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": "x", "client_id": "demo-mobile-app"])
            #expect(oauth.status == .internalServerError)
            #expect(oauth["error"] as? String == "server_error")
            Self.expectSecurityHeaders(oauth, "/oauth/token")

            // BrowserID: {"status":"failure"}.
            let verify = try await api.post("/verify", ["assertion": accessToken, "audience": "https://app.example"])
            #expect(verify.status == .internalServerError)
            #expect(verify["status"] as? String == "failure")
            Self.expectSecurityHeaders(verify, "/verify")

            // A page: the localized error page, which tells the host through onCaptureRenderComplete.
            let page = try await api.get(
                "/flows/webViewSignIn?client_id=demo-mobile-app", headers: [.acceptLanguage: "de"])
            #expect(page.status == .internalServerError)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("Bei uns ist etwas schiefgelaufen"), "\(page.text)")
            #expect(page.text.contains("\"error\":\"unavailable\""))
            Self.expectSecurityHeaders(page, "/flows/webViewSignIn")
        }
    }

    @Test func anUnknownAdminPathIsAProblemDocument() async throws {
        try await withAPI { api, _ in
            let reply = try await api.get("/admin/v1/nothing-here")
            #expect(reply.status == .notFound)
            #expect(reply.headers[.contentType] == "application/problem+json")
            #expect(reply["status"] as? Int == 404 && reply["type"] as? String == "about:blank")
            #expect(reply["title"] as? String == "Not Found")
        }
    }
}
