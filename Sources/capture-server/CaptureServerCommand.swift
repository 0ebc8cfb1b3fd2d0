import ArgumentParser
import CaptureCore
import CaptureServer
import Foundation
import Logging
import NIOCore
import NIOPosix

/// The process's entry: before any task runs, NIO's event loops become Swift's global executor, so a request's
/// handler runs on the event loop its connection lives on instead of hopping to Swift's cooperative pool and back
/// (measured: a third of a token check's time went to threads waking each other; docs/performance.md).
@main
enum CaptureServerEntry {
    static func main() async {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await CaptureServerCommand.main()
    }
}

/// `capture-server`: starts the service. All logic lives in CaptureServer.
struct CaptureServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture-server",
        abstract: "Serves the registration flow pages, the Capture API and the token endpoints.",
        discussion: "Precedence: flags > CAPTURE_* environment > settings file > defaults.")

    @Option(help: "Address to listen on (CAPTURE_HOST).") var host: String?
    @Option(help: "Port to listen on (CAPTURE_PORT).") var port: Int?
    @Option(help: "SQLite database file or postgres:// URL (CAPTURE_DB).") var db: String?
    @Option(help: "Settings directory holding service.json, forms.json and flows/ (CAPTURE_SETTINGS).") var settings: String?
    @Option(help: "Public origin pages and clients see, e.g. https://id.example.com (CAPTURE_PUBLIC_ORIGIN).")
    var publicOrigin: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = URL(fileURLWithPath: settings ?? environment["CAPTURE_SETTINGS"] ?? "Settings")
        do {
            let resolved = try ServiceSettings.resolve(
                directory: directory,
                flags: SettingsOverrides(host: host, port: port, database: db, publicOrigin: publicOrigin),
                environment: environment)
            let (logger, registry) = ServerObservability.bootstrap(settings: resolved)
            try await CaptureServerMain.run(
                settings: resolved, settingsDirectory: directory, logger: logger, registry: registry)
        } catch let error as SettingsError {
            FileHandle.standardError.write(Data("capture-server: \(error)\n".utf8))
            throw ExitCode(78)
        } catch let error as DatabaseTooNew {
            FileHandle.standardError.write(Data("capture-server: refusing to start: \(error)\n".utf8))
            throw ExitCode(DatabaseTooNew.exitCode)
        }
    }
}
