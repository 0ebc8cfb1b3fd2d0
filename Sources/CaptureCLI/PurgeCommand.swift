import ArgumentParser
import CaptureCore
import Foundation

/// `capturectl purge-expired`: the server's background purge pass, once (for `purgeIntervalMinutes: 0`, or cron).
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge-expired",
        abstract: "Delete expired tokens, codes, social sign-ins and throttle counters, and stale mail bodies, as the "
            + "server does every purgeIntervalMinutes; prints what each removed.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await options.withFeatures { features, output in
            let report = try await features.housekeeping.purgeExpired()
            output.list(
                ["WHAT", "PURGED"], rows: report.items.map { [$0.name, String($0.count)] },
                objects: report.items.map { ["what": .string($0.name), "purged": .int(Int64($0.count))] })
        }
    }
}
