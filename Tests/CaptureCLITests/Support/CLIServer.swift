import CaptureCore
import CaptureOutbound
import CaptureTestSupport
import Foundation
import Testing

/// How a test runs capturectl: on the database file, or with `--server` over the admin API of a real
/// `capture-server` process on the same database.
enum CLIMode: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case direct, remote
    var testDescription: String { rawValue }
}

/// The built `capture-server` serving `world`'s database on a loopback port, with an admin key made for it.
final class CLIServer: @unchecked Sendable {
    let url: String
    let adminKey: String
    private let process: TestProcess
    /// The server's standard output and error.
    private let output: URL

    static let binary: URL? = {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["CAPTURE_SERVER_BIN"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        candidates.append(TestWorld.repositoryRoot.appendingPathComponent(".build/debug/capture-server"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    init(world: TestWorld) async throws {
        adminKey = try await world.service.admin.createAdminKey(name: "cli-tests", by: .service).presented
        let binary = try #require(Self.binary, "build capture-server first (swift build)")
        // Port 0: the kernel's choice, announced in the server's output (ServerAnnouncement).
        output = FileManager.default.temporaryDirectory.appendingPathComponent("cli-server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let log = try FileHandle(forWritingTo: output)
        defer { try? log.close() }
        let process = TestProcess()
        process.executableURL = binary
        process.arguments = ["--settings", TestWorld.settingsDirectory.path, "--db", world.database, "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CAPTURE_") }
        process.standardOutput = log
        process.standardError = log
        self.process = process
        // A debug build starting beside a busy test run (and opening PostgreSQL) can take a while: its turn among the
        // servers starting (ServerStarts), then 60 s to announce its port and 60 s more to answer /health/ready.
        let output = output
        let started = try await ServerStarts.one { () async throws -> Int? in
            try process.run()
            guard let port = await ServerAnnouncement.port(in: output, of: process), await Self.ready(port: port) else {
                return nil
            }
            return port
        }
        guard let port = started else {
            // SIGKILL: a capture-server told to stop while it is still starting can hang in its graceful shutdown
            // (ServiceLifecycle cancelling a group whose merged signal stream is being set up).
            await process.ended(signal: SIGKILL, grace: 0)
            let said = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw FixtureError(description: "capture-server did not become ready: \(said.suffix(2000))")
        }
        url = "http://127.0.0.1:\(port)"
    }

    private static func ready(port: Int) async -> Bool {
        let http = OutboundHTTPClient()
        return await ServerAnnouncement.ready {
            let reply = try? await http.send(
                OutboundHTTPRequest(url: "http://127.0.0.1:\(port)/health/ready", connectTimeoutSeconds: 1, allowsPlainHTTP: true)
            )
            return reply?.status == 200
        }
    }

    /// SIGKILL; returns at once (it is called from `deinit`), the child is reaped on a thread of its own.
    func stop() {
        if process.isRunning { process.end(signal: SIGKILL, grace: 0) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: output)
    }
}

/// Runs capturectl commands against one world in one mode; a remote session starts its server on first use.
final class CLISession: @unchecked Sendable {
    let world: TestWorld
    let mode: CLIMode
    private var server: CLIServer?

    init(_ world: TestWorld, _ mode: CLIMode) {
        self.world = world
        self.mode = mode
    }

    func run(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        switch mode {
        case .direct:
            return try await CLI.run(arguments, in: world, stdin: stdin)
        case .remote:
            if server == nil { server = try await CLIServer(world: world) }
            let server = try #require(server)
            return try await CLI.run(
                arguments + ["--server", server.url], stdin: stdin, environment: ["CAPTURE_ADMIN_KEY": server.adminKey])
        }
    }

    deinit { server?.stop() }
}
