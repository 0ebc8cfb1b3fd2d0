import CaptureTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `capture-server` as a process: flags, settings errors, health and a graceful stop.
@Suite(.serialized) struct ServerProcessTests {
    static var binary: URL? {
        let candidates = [
            ProcessInfo.processInfo.environment["CAPTURE_SERVER_BIN"].map { URL(fileURLWithPath: $0) },
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("capture-server"),
            TestWorld.repositoryRoot.appendingPathComponent(".build/debug/capture-server"),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> (TestProcess, Pipe, Pipe) {
        let process = TestProcess()
        process.executableURL = try #require(Self.binary, "build capture-server first (swift build)")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// Starts the server with both its streams in `directory/server.log` and waits (in `ServerStarts`' turn) for the
    /// port it announces and for `/health/ready` there. The port is always the kernel's choice (0, from a flag or the
    /// environment): a chosen port may be held by something else, and the test would wait on a server that never
    /// bound it. Records the log's end and returns nil when the server exits or never answers.
    func start(
        _ arguments: [String], environment: [String: String], in directory: URL
    ) async throws -> (process: TestProcess, port: Int, log: URL)? {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = TestProcess()
        process.executableURL = try #require(Self.binary, "build capture-server first (swift build)")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        let port = try await ServerStarts.one { () async throws -> Int? in
            try process.run()
            guard let port = await ServerAnnouncement.port(in: log, of: process) else { return nil }
            return await ServerAnnouncement.ready({ await get("http://127.0.0.1:\(port)/health/ready") == 200 }) ? port : nil
        }
        guard let port else {
            if process.isRunning { process.terminate() }
            await process.exited()
            let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            Issue.record("capture-server never became ready: \(printed.suffix(2000))")
            return nil
        }
        return (process, port, log)
    }

    func get(_ url: String) async -> Int? {
        guard let url = URL(string: url) else { return nil }
        let result: Int? = await withCheckedContinuation { continuation in
            let task = URLSession.shared.dataTask(with: url) { _, response, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode)
            }
            task.resume()
        }
        return result
    }

    @Test func flagsWinAndSIGTERMStopsCleanly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        let database = directory.appendingPathComponent("flag.sqlite").path
        // The environment asks for port 1 and another database; the flags ask for the kernel's choice and this one.
        let started = try await start(
            ["--host", "127.0.0.1", "--port", "0", "--db", database, "--settings", TestWorld.settingsDirectory.path],
            environment: ["CAPTURE_PORT": "1", "CAPTURE_DB": directory.appendingPathComponent("env.sqlite").path],
            in: directory)
        let (process, port, log) = try #require(started)
        #expect(port != 1, "--port beats CAPTURE_PORT")
        #expect(await get("http://127.0.0.1:\(port)/health/live") == 200)
        #expect(FileManager.default.fileExists(atPath: database), "--db beats CAPTURE_DB")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("env.sqlite").path))
        process.terminate()  // SIGTERM
        await process.exited()
        #expect(process.terminationStatus == 0)
        let printed = try String(contentsOf: log, encoding: .utf8)
        #expect(printed.contains("/flows/webViewDemo?client_id=demo-mobile-app"))
    }

    @Test func environmentIsUsedWithoutFlags() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        let database = directory.appendingPathComponent("env.sqlite").path
        // Port 0 from the environment: without it the server would listen on its default, 8080.
        let started = try await start(
            [], environment: ["CAPTURE_PORT": "0", "CAPTURE_DB": database, "CAPTURE_SETTINGS": TestWorld.settingsDirectory.path],
            in: directory)
        let (process, port, _) = try #require(started)
        #expect(port != 8080, "CAPTURE_PORT is read")
        #expect(FileManager.default.fileExists(atPath: database))
        process.interrupt()  // SIGINT
        await process.exited()
        #expect(process.terminationStatus == 0)
    }

    @Test func aBrokenSettingsFileStopsStartUpNamingFileAndKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"port": 8080, "bcryptCost": "twelve"}"#.utf8).write(to: directory.appendingPathComponent("service.json"))
        let (process, _, err) = try launch([
            "--settings", directory.path, "--db", directory.appendingPathComponent("x.sqlite").path,
        ])
        await process.exited()
        #expect(process.terminationStatus != 0)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("service.json"))
        #expect(message.contains("bcryptCost"))
    }

    @Test func aThemeProblemStopsStartUpWithExitCode78() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("theme-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestWorld.settingsDirectory, to: directory)
        let file = directory.appendingPathComponent("service.json")
        var service = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        service["webFlows"] = TestWorld.repositoryRoot.appendingPathComponent("WebFlows").path
        try JSONSerialization.data(withJSONObject: service).write(to: file)
        // A file the theme names is missing: found as the pages are prepared, before the port opens.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("themes/northwind.css"))
        let (process, _, err) = try launch([
            "--settings", directory.path, "--db", directory.appendingPathComponent("x.sqlite").path,
        ])
        await process.exited()
        #expect(process.terminationStatus == 78)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("service.json"))
        #expect(message.contains("theme.stylesheet"), "\(message)")
        #expect(message.contains("northwind.css cannot be read"), "\(message)")
    }
}
