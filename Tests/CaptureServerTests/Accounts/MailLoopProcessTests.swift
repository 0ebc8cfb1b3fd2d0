import Foundation
import Testing

/// The real server with an SMTP relay and nothing to send: its delivery loop waits between polls instead of
/// spinning. (A wait that was cancelled once, when the first poll came due, used to end the loop's wake-up stream,
/// and from then on every wait returned at once: one processor kept busy for as long as the server ran.)
struct MailLoopProcessTests {
    @Test func anIdleServerWithARelayLeavesTheProcessorAlone() async throws {
        let server = try await LiveServerProcess(settings: [
            "mail": [
                "from": "Capture <no-reply@example.com>", "templates": "mail",
                "smtp": ["host": "127.0.0.1", "port": 1, "security": "none"],
            ]
        ])
        defer { server.stop() }
        // Past the first poll (MailDelivery.pollInterval, 5 s), then two quiet seconds measured.
        try await Task.sleep(for: .seconds(6))
        let before = try server.processorSeconds
        try await Task.sleep(for: .seconds(2))
        let used = try server.processorSeconds - before
        #expect(used < 0.25, "an idle server used \(used) s of processor time in 2 s")
    }
}
