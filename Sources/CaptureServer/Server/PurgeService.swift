import CaptureCore
import Logging
import ServiceLifecycle

/// Runs `Housekeeping.purgeExpired` beside the HTTP server every `purgeIntervalMinutes`, the first pass one
/// interval after start-up; a graceful shutdown stops it between passes. A failed pass is logged and the next
/// one tries again.
struct PurgeService: Service {
    let housekeeping: Housekeeping
    let interval: Duration
    let logger: Logger

    /// Nil when `purgeIntervalMinutes` is 0 (no purging here: an operator runs `capturectl purge-expired`, or
    /// another instance on the same database purges).
    init?(housekeeping: Housekeeping, settings: ServiceSettings, logger: Logger) {
        let minutes = settings.purgeIntervalMinutes
        guard minutes > 0 else { return nil }
        self.housekeeping = housekeeping
        self.interval = .milliseconds(Int64(minutes * 60_000))
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await pass()
            }
        }
    }

    /// One purge, logged with what it removed.
    func pass() async {
        do {
            let report = try await housekeeping.purgeExpired()
            var metadata: Logger.Metadata = [:]
            for item in report.items { metadata[item.name] = "\(item.count)" }
            logger.info("purged expired rows", metadata: metadata)
        } catch {
            logger.error("purge failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
        }
    }
}
