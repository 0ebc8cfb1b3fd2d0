import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// The real `capture-server` binary on a random loopback port, with `service.json` keys overridden in a copy of
/// the settings directory: the production wiring (settings → channel handlers → Hummingbird), nothing faked.
final class LiveServerProcess {
    typealias Reply = RawHTTPConnection.Reply

    let port: Int
    let directory: URL
    private let process: TestProcess
    private let logFile: URL

    /// Starts the server (with `environment` added to this process's) and waits until `/health/ready` answers 200.
    init(settings overrides: [String: Any], environment: [String: String] = [:]) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        let settings = directory.appendingPathComponent("Settings")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestWorld.settingsDirectory, to: settings)
        let file = settings.appendingPathComponent("service.json")
        var service = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        service["webFlows"] = TestWorld.repositoryRoot.appendingPathComponent("WebFlows").path
        service["bcryptCost"] = 10
        service.merge(overrides) { _, new in new }
        try JSONSerialization.data(withJSONObject: service).write(to: file)

        logFile = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process = TestProcess()
        process.executableURL = try #require(ServerProcessTests.binary, "build capture-server first (swift build)")
        // Port 0: the kernel's choice, announced in the log (ServerAnnouncement), never another test's server.
        process.arguments = [
            "--settings", settings.path, "--port", "0", "--db", directory.appendingPathComponent("capture.sqlite").path,
        ]
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = log
        process.standardError = log
        let (process, logFile) = (process, logFile)
        let (port, ready) = try await ServerStarts.one { () async throws -> (Int, Bool) in
            try process.run()
            let port = await ServerAnnouncement.port(in: logFile, of: process) ?? 0
            guard port != 0 else { return (0, false) }
            return (
                port,
                await ServerAnnouncement.ready {
                    guard let connection = try? RawHTTPConnection(port: port) else { return false }
                    try? connection.send("GET /health/ready HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                    return await connection.readReply(timeout: 2)?.status == 200
                }
            )
        }
        self.port = port
        if ready { return }
        await stopped()
        Issue.record("capture-server never became ready (port \(port)): \(self.log.suffix(2000))")
    }

    /// A fresh connection's answer to `GET path`, or nil when none comes within `timeout`. The reply is held against
    /// the OpenAPI document as `API`'s are (the real server's, with what its channel adds).
    func get(_ path: String, timeout: Double = 3, sourceLocation: SourceLocation = #_sourceLocation) async -> Reply? {
        guard let connection = try? RawHTTPConnection(port: port) else { return nil }
        try? connection.send("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        guard let reply = await connection.readReply(timeout: timeout) else { return nil }
        var headers = HTTPFields()
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        ReplyTally.check(
            method: "GET", path: path, status: reply.status, headers: headers, body: Array(reply.body),
            sourceLocation: sourceLocation)
        return reply
    }

    /// The processor time (user and system) the server has used so far, from `/proc/<pid>/stat`.
    var processorSeconds: Double {
        get throws {
            let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
            // After "(comm)": state is field 3; utime and stime are fields 14 and 15, in clock ticks.
            let fields = try #require(stat.range(of: ") ", options: .backwards)).upperBound
            let rest = stat[fields...].split(separator: " ")
            let ticks = try #require(Double(rest[11])) + #require(Double(rest[12]))
            return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }

    /// Everything the server logged so far.
    var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// SIGTERM (the server finishes in-flight requests), then SIGKILL if it is still there after 10 s: a child
    /// started from a concurrency thread can inherit a blocked SIGTERM, and a test must not hang on it. Returns at
    /// once (it is called from `defer` and `deinit`); `stopped()` waits.
    func stop() {
        if process.isRunning { process.end(signal: SIGTERM, grace: 10) }
    }

    /// `stop()`, returning once the server has exited (its log is complete).
    func stopped() async {
        if process.isRunning { await process.ended(signal: SIGTERM, grace: 10) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
