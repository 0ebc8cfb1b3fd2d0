import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Prometheus
import Testing

/// Runs `body` against a service that records into its own Prometheus registry (as the server does) and logs
/// through `logger`.
func withOperationsAPI(
    logger: Logger = Logger(label: "capture-test"), configure: (inout ServiceSettings) -> Void = { _ in },
    _ body: @escaping @Sendable (API, TestWorld, PrometheusCollectorRegistry) async throws -> Void
) async throws {
    let registry = PrometheusCollectorRegistry()
    // Scraped without a key here; MetricsExposureTests checks the default, which wants one.
    let world = try await TestWorld.make(metrics: .prometheus(registry)) { settings in
        settings.metricsPublic = true
        configure(&settings)
    }
    try await body(API(router: try buildRouter(features: world.service), logger: logger), world, registry)
}

/// `GET /metrics`: Prometheus text with request, sign-in, token, outbox and database metrics.
@Suite struct MetricsTests {
    /// The sample lines of `name` (label sets and values), from the exposition text.
    static func samples(_ text: String, _ name: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
    }

    static func value(_ text: String, _ name: String, _ labels: [String]) -> Double? {
        samples(text, name).first { line in labels.allSatisfy { line.contains($0) } }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    @Test func requestsAreCountedByRouteTemplateNeverByPath() async throws {
        try await withOperationsAPI { api, _, _ in
            _ = try await api.get("/flows/webViewSignIn?client_id=demo-mobile-app")
            _ = try await api.get("/flows/webViewProfile?client_id=demo-mobile-app")
            _ = try await api.get("/no/such/page/secret-looking-path")
            let reply = try await api.get("/metrics")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = reply.text
            #expect(text.contains("# TYPE capture_http_requests_total counter"))
            #expect(text.contains("# TYPE capture_http_request_duration_seconds histogram"))
            #expect(
                Self.value(text, "capture_http_requests_total", [#"route="/flows/{flow}""#, #"method="GET""#, #"status="200""#])
                    == 2, "\(Self.samples(text, "capture_http_requests_total"))")
            #expect(Self.value(text, "capture_http_requests_total", [#"route="unknown""#, #"status="404""#]) == 1)
            #expect(Self.value(text, "capture_http_request_duration_seconds_count", [#"route="/flows/{flow}""#]) == 2)
            #expect(!text.contains("webViewSignIn") && !text.contains("secret-looking-path"), "no raw path in a label")
        }
    }

    @Test func signInsTokensOutboxAndDatabaseCallsAreRecorded() async throws {
        try await withOperationsAPI { api, _, _ in
            let registration = TestWorld.registration(email: "metrics@example.com", password: "a long passphrase")
            #expect(try await api.post("/oauth/register_native_traditional", registration).stat == "ok")
            let good = TestWorld.signIn(email: "metrics@example.com", password: "a long passphrase")
            let signedIn = try await api.post("/oauth/auth_native_traditional", good)
            #expect(signedIn.stat == "ok")
            let bad = TestWorld.signIn(email: "metrics@example.com", password: "not the passphrase")
            #expect(try await api.post("/oauth/auth_native_traditional", bad).code == 210)
            let forgot = TestWorld.flowParameters(form: "forgotPasswordForm").merging(
                ["signInEmailAddress": "metrics@example.com"]) { $1 }
            _ = try await api.post("/oauth/forgot_password_native", forgot)
            let token = try #require(signedIn["access_token"] as? String)
            _ = try await api.post("/oauth/revoke", ["client_id": "demo-mobile-app", "token": token])

            let text = try await api.get("/metrics").text
            let signIns = "capture_sign_ins_total"
            #expect(Self.value(text, signIns, [#"method="password""#, #"outcome="success""#]) == 1)
            #expect(Self.value(text, signIns, [#"method="password""#, #"outcome="wrong_credentials""#]) == 1)
            #expect(Self.value(text, "capture_tokens_issued_total", [#"kind="access""#]) == 2)
            #expect(Self.value(text, "capture_tokens_issued_total", [#"kind="refresh""#]) == 2)
            for kind in ["access", "refresh"] {
                #expect(Self.value(text, "capture_tokens_revoked_total", [#"kind="\#(kind)""#, #"reason="sign_out""#]) == 1)
            }
            // The registration's verification message and the reset message wait (no relay).
            #expect(Self.value(text, "capture_mail_outbox_pending", []) == 2)
            #expect(
                (Self.value(
                    text, "capture_db_call_duration_seconds_count", [#"repository="users""#, #"operation="find(email:)""#])
                    ?? 0) >= 2)
        }
    }

    @Test func throttledSignInsAndReusedRefreshTokensAreCounted() async throws {
        try await withOperationsAPI(configure: { $0.signInMaxFailures = 2 }) { api, _, _ in
            let registered = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "busy@example.com"))
            let refresh = try #require(registered["refresh_token"] as? String)
            let grant = ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"]
            #expect(try await api.post("/oauth/token", grant).stat == "ok")
            #expect(try await api.post("/oauth/token", grant).stat == "error")
            for _ in 0..<3 {
                _ = try await api.post(
                    "/oauth/auth_native_traditional", TestWorld.signIn(email: "busy@example.com", password: "no"))
            }
            let text = try await api.get("/metrics").text
            #expect(Self.value(text, "capture_sign_ins_total", [#"outcome="wrong_credentials""#]) == 2)
            #expect(Self.value(text, "capture_sign_ins_total", [#"outcome="throttled""#]) == 1)
            // The reuse revoked the whole chain: both pairs (a used token is marked used, not revoked, until then).
            #expect(Self.value(text, "capture_tokens_revoked_total", [#"kind="access""#, #"reason="reuse""#]) == 2)
            #expect(Self.value(text, "capture_tokens_revoked_total", [#"kind="refresh""#, #"reason="reuse""#]) == 2)
        }
    }

    /// On SQLite a token check says whether it was answered from a kept check or read; PostgreSQL keeps none.
    @Test func tokenChecksSayWhetherTheyWereKeptOrRead() async throws {
        try await withOperationsAPI { api, _, _ in
            let registered = try await api.post(
                "/oauth/register_native_traditional", TestWorld.registration(email: "checked@example.com"))
            let token = try #require(registered["access_token"] as? String)
            for _ in 0..<3 { #expect(try await api.post("/entity", ["access_token": token]).stat == "ok") }
            let text = try await api.get("/metrics").text
            switch TestBackend.selected {
            case .sqlite:
                #expect(Self.value(text, "capture_token_checks_total", [#"answer="read""#]) == 1)
                #expect(Self.value(text, "capture_token_checks_total", [#"answer="kept""#]) == 2)
            case .postgres:
                #expect(Self.samples(text, "capture_token_checks_total").isEmpty)
            }
        }
    }

    @Test func metricsEnabledFalseServesNoMetrics() async throws {
        try await withOperationsAPI(configure: { $0.metricsEnabled = false }) { api, _, _ in
            let reply = try await api.get("/metrics")
            #expect(reply.status == .notFound)
        }
    }

    @Test func aServiceWithoutAPrometheusRegistryServesNoMetrics() async throws {
        try await withAPI { api, _ in
            let reply = try await api.get("/metrics")
            #expect(reply.status == .notFound)
        }
    }
}

/// `X-Request-Id`: taken from the caller when short and plain, else made; always answered.
@Suite struct RequestIDTests {
    @Test func aPlainInboundIdIsKeptAndEchoed() async throws {
        try await withAPI { api, _ in
            let reply = try await api.get("/health/live", headers: [HTTPField.Name("X-Request-Id")!: "edge-42.a_b"])
            #expect(reply.headers[HTTPField.Name("X-Request-Id")!] == "edge-42.a_b")
        }
    }

    @Test func aLongOrOddInboundIdIsReplaced() async throws {
        try await withAPI { api, _ in
            for bad in [String(repeating: "a", count: 65), "has space", "semi;colon", "\u{e9}t\u{e9}", ""] {
                let reply = try await api.get("/health/live", headers: [HTTPField.Name("X-Request-Id")!: bad])
                let id = try #require(reply.headers[HTTPField.Name("X-Request-Id")!])
                #expect(id != bad && id.count == 32 && id.allSatisfy(\.isHexDigit), "\(bad.debugDescription) → \(id)")
            }
            let unknown = try await api.get("/no/such/page")
            #expect(unknown.headers[HTTPField.Name("X-Request-Id")!]?.count == 32, "errors carry one too")
        }
    }
}

/// Issue 27: sign-in outcomes, token counts and the outbox's depth are not served to the public by default.
@Suite struct MetricsExposureTests {
    @Test func theMainListenersMetricsNeedAnAdminKeyUnlessTheOperatorOpensThem() async throws {
        let registry = PrometheusCollectorRegistry()
        let world = try await TestWorld.make(metrics: .prometheus(registry))
        #expect(world.service.settings.metricsPublic == false)
        do {
            let api = API(router: try buildRouter(features: world.service))
            let anonymous = try await api.get("/metrics")
            #expect(anonymous.status == .unauthorized && !anonymous.text.contains("capture_http_requests_total"))
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let (_, key) = try await world.service.admin.createAdminKey(name: "prometheus", by: .service)
            let keyed = try await api.get("/metrics", headers: [.authorization: "Bearer \(key)"])
            #expect(keyed.status == .ok && keyed.text.contains("capture_http_requests_total"))
        }
        try await withOperationsAPI { api, _, _ in
            let opened = try await api.get("/metrics")
            #expect(opened.status == .ok, "metricsPublic opens them")
        }
    }
}
