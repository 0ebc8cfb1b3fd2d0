import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureOutbound

/// The old Janrain app's client: what counts as Janrain's answer, a port nobody listens on, and a secret that no
/// description of it shows (the real calls: Tests/Interop/test_signin_migration.py).
@Suite struct JanrainLegacyAppTests {
    static func app(port: Int = 9) -> JanrainLegacyApp {
        var settings = LegacyJanrainSettings(
            captureUrl: "http://127.0.0.1:\(port)", clientId: "owner-client", loginClientId: "login-client",
            cutover: "2099-01-01T00:00:00Z")
        settings.allowPlainHTTP = true
        settings.connectTimeoutSeconds = 1
        settings.timeoutSeconds = 1
        return JanrainLegacyApp(settings: settings, secret: "the-owner-secret")
    }

    @Test func onlyJanrainsStatShapeIsAnAnswer() {
        #expect(JanrainLegacyApp.stat(of: ["stat": .string("ok")]) == .ok)
        #expect(JanrainLegacyApp.stat(of: ["stat": .string("error"), "code": .int(210)]) == .error(210))
        #expect(JanrainLegacyApp.stat(of: ["stat": .string("error"), "code": .string("210")]) == .notJanrain)
        #expect(JanrainLegacyApp.stat(of: ["stat": .string("fine")]) == .notJanrain)
        #expect(JanrainLegacyApp.stat(of: [:]) == .notJanrain)
    }

    @Test func aClosedPortFailsAtOnceAndNothingDescribesTheSecret() async throws {
        let app = Self.app()
        let started = Date()
        guard case .failed(let reason) = await app.signIn(email: "a@example.com", password: "pw") else {
            Issue.record("a closed port is a failure")
            return
        }
        // Held to its bound on a quiet machine only (TestTiming): beside the whole suite a second says nothing.
        let took = Date().timeIntervalSince(started)
        print("a closed port answered in \(took) s")
        if TestTiming.bounded { #expect(took < 1.5, "refused at once, on a thread of its own") }
        #expect(!reason.contains("pw") && !reason.contains("a@example.com"))
        guard case .failed = await app.record(.email("a@example.com")) else {
            Issue.record("a closed port is a failure")
            return
        }
        var dumped = ""
        dump(app, to: &dumped)
        for text in [String(describing: app), String(reflecting: app), dumped] {
            #expect(!text.contains("the-owner-secret") && !text.contains("dGhlLW93bmVyLXNlY3JldA"), "\(text)")
            #expect(!text.contains(Data("owner-client:the-owner-secret".utf8).base64EncodedString()))
        }
    }
}
