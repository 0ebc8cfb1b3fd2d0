import CaptureCore
import CaptureServer
import CaptureTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Testing

/// What a `JSONLogHandler` wrote, line by line.
final class LogCapture: Sendable {
    private let bytes = Mutex<[UInt8]>([])

    func logger(level: Logger.Level = .trace) -> Logger {
        Logger(label: "capture-test") { [self] label in
            JSONLogHandler(label: label, level: level) { line in self.bytes.withLock { $0 += line } }
        }
    }

    var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

    var lines: [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

/// JSON logs, and nothing secret in any log line: every flow that hands out or takes a secret runs with the logger
/// at `trace`, and none of the secrets appears in what was written.
@Suite struct LogSecrecyTests {
    @Test func jsonLinesCarryTimeLevelLabelMessageMetadataAndTheRequestId() async throws {
        let capture = LogCapture()
        try await withOperationsAPI(logger: capture.logger(), configure: { $0.requestLogLevel = .info }) { api, _, _ in
            _ = try await api.get("/health/live", headers: [HTTPField.Name("X-Request-Id")!: "trace-me-1"])
        }
        let request = try #require(capture.lines.first { $0["message"] as? String == "request" }, "\(capture.text)")
        #expect(request["level"] as? String == "info")
        #expect(request["label"] as? String == "capture-test")
        #expect((request["time"] as? String)?.hasSuffix("Z") == true)
        let metadata = try #require(request["metadata"] as? [String: Any])
        #expect(metadata["hb.request.id"] as? String == "trace-me-1")
        #expect(metadata["path"] as? String == "/health/live")
        #expect(metadata["status"] as? String == "200")
        #expect(metadata["route"] as? String == "/health/live")
        #expect((metadata["duration_ms"] as? String).flatMap(Double.init) != nil)
        #expect(capture.text.split(separator: "\n").count == capture.lines.count, "every line is one JSON object")
    }

    @Test func aMessageOrValueCannotBreakItsLine() throws {
        let capture = LogCapture()
        capture.logger().warning("two\nlines \"quoted\"", metadata: ["value": "a\r\nb", "list": ["x", "y"]])
        #expect(capture.text.split(separator: "\n").count == 1)
        let line = try #require(capture.lines.first)
        #expect(line["message"] as? String == "two\nlines \"quoted\"")
        #expect(line["level"] as? String == "warning")
        let metadata = try #require(line["metadata"] as? [String: Any])
        #expect(metadata["value"] as? String == "a\r\nb")
        #expect(metadata["list"] as? [String] == ["x", "y"])
    }

    /// By default (debug) the line is below the default `logLevel` (info): none is written.
    @Test func theRequestLineFollowsRequestLogLevel() async throws {
        let capture = LogCapture()
        try await withOperationsAPI(logger: capture.logger(level: .info)) { api, _, _ in
            _ = try await api.get("/health/live")
        }
        #expect(!capture.lines.contains { $0["message"] as? String == "request" }, "\(capture.text)")
    }

    @Test func signInTokenAndRefreshFlowsLogNoSecret() async throws {
        let capture = LogCapture()
        let secrets = Mutex<[String]>([])
        try await withOperationsAPI(logger: capture.logger()) { api, world, _ in
            func keep(_ values: String?...) { secrets.withLock { $0 += values.compactMap { $0 } } }
            let password = "correct horse battery"
            let refreshSecret = SignedRefreshTests.secret
            keep(password, refreshSecret, "wrong horse battery")
            var registration = TestWorld.registration(email: "quiet@example.com", password: password)
            registration["refresh_secret"] = refreshSecret
            let registered = try await api.post("/oauth/register_native_traditional", registration)
            keep(registered["access_token"] as? String, registered["refresh_token"] as? String)

            _ = try await api.post(
                "/oauth/auth_native_traditional", TestWorld.signIn(email: "quiet@example.com", password: "wrong horse battery"))
            var signIn = TestWorld.signIn(email: "quiet@example.com", password: password)
            signIn["refresh_secret"] = refreshSecret
            signIn["device_token"] = ""
            let signedIn = try await api.post("/oauth/auth_native_traditional", signIn)
            let access = try #require(signedIn["access_token"] as? String)
            let refresh = try #require(signedIn["refresh_token"] as? String)
            keep(access, refresh, signedIn["device_token"] as? String)

            // Token use, rotation, the signed refresh, a code exchange, reuse and sign-out.
            _ = try await api.post("/entity", [:], headers: [.authorization: "Bearer \(access)"])
            let rotated = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"])
            keep(rotated["access_token"] as? String, rotated["refresh_token"] as? String)
            _ = try await api.post(
                "/oauth/token", ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": "demo-mobile-app"])
            let date = SignedRefreshTests.date(world.time.now())
            let signed = try await api.post("/oauth/refresh_access_token", SignedRefreshTests.refresh(access, at: date))
            keep(signed["access_token"] as? String, SignedRefreshTests.signature(date: date, token: access))
            let coded = try await api.post("/oauth/auth_native_traditional", AuthorizationCodeTests.signIn("quiet@example.com"))
            let code = try #require(coded["authorization_code"] as? String)
            keep(code, coded["sign_out_token"] as? String, AuthorizationCodeTests.verifier)
            let exchanged = try await api.post("/oauth/token", AuthorizationCodeTests.exchange(code))
            keep(exchanged["access_token"] as? String, exchanged["refresh_token"] as? String)
            _ = try await api.post("/oauth/token", AuthorizationCodeTests.exchange(code))
            _ = try await api.post("/oauth/revoke", ["client_id": "demo-mobile-app", "token": access])
            // A secret in a query string is refused, and the query is not logged either.
            _ = try await api.post("/entity?access_token=\(access)", [:])
            _ = try await api.get("/no/such/page?token=\(access)")
        }
        let text = capture.text
        #expect(capture.lines.count >= 12, "the flows were logged: \(text)")
        let leaked = secrets.withLock { $0 }.filter { !$0.isEmpty && text.contains($0) }
        #expect(leaked.isEmpty, "secrets in the log: \(leaked)\n\(text)")
        #expect(secrets.withLock { $0.count } >= 15)
    }
}
