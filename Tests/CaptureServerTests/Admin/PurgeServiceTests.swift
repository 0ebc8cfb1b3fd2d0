import CaptureCore
import CaptureTestSupport
import Foundation
import GRDB
import Logging
import Testing

@testable import CaptureServer

/// The background purge: every `purgeIntervalMinutes` it runs `Housekeeping.purgeExpired`; 0 turns it off.
@Suite struct PurgeServiceTests {
    @Test func zeroMinutesRunsNoPurge() async throws {
        let world = try await TestWorld.make { $0.purgeIntervalMinutes = 0 }
        #expect(
            PurgeService(
                housekeeping: world.service.housekeeping, settings: world.service.settings, logger: Logger(label: "test")) == nil)
    }

    @Test func itPurgesOnItsIntervalUntilCancelled() async throws {
        // 0.001 minutes: a pass every 60 ms.
        let world = try await TestWorld.make(backend: .sqlite) { $0.purgeIntervalMinutes = 0.001 }
        let expired = try await world.register("expired@example.com").grant!
        world.time.advance(by: world.service.settings.refreshTokenLifetime + 60)
        let live = try await world.register("live@example.com").grant!
        let purge = try #require(
            PurgeService(
                housekeeping: world.service.housekeeping, settings: world.service.settings, logger: Logger(label: "test")))
        #expect(purge.interval == .milliseconds(60))

        let running = Task { try await purge.run() }
        var remaining = -1
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(50))
            remaining = try await world.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tokens") ?? 0 }
            if remaining == 2 { break }
        }
        running.cancel()
        try await running.value
        #expect(remaining == 2, "the expired session's two tokens are gone")
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: expired.accessToken)
        }
        _ = try await world.service.profile.entity(accessToken: live.accessToken)
    }
}
