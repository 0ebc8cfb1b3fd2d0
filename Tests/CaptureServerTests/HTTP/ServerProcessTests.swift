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

    static func freePort() -> Int { Int.random(in: 20_000..<32_000) }

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

    func waitUntilReady(_ base: String) async throws {
        if await ServerAnnouncement.ready({ await get(base + "/health/ready") == 200 }) { return }
        Issue.record("server at \(base) never became ready")
    }

    @Test func flagsWinAndSIGTERMStopsCleanly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        let port = Self.freePort()
        let database = directory.appendingPathComponent("flag.sqlite").path
        let (process, out) = try await ServerStarts.one {
            let (process, out, _) = try launch(
                ["--host", "127.0.0.1", "--port", "\(port)", "--db", database, "--settings", TestWorld.settingsDirectory.path],
                environment: ["CAPTURE_PORT": "1", "CAPTURE_DB": directory.appendingPathComponent("env.sqlite").path])
            try await waitUntilReady("http://127.0.0.1:\(port)")
            return (process, out)
        }
        #expect(await get("http://127.0.0.1:\(port)/health/live") == 200)
        #expect(FileManager.default.fileExists(atPath: database), "--db beats CAPTURE_DB")
        process.terminate()  // SIGTERM
        await process.exited()
        #expect(process.terminationStatus == 0)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.contains("/flows/webViewDemo?client_id=demo-mobile-app"))
    }

    @Test func environmentIsUsedWithoutFlags() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString)")
        let port = Self.freePort()
        let database = directory.appendingPathComponent("env.sqlite").path
        let process = try await ServerStarts.one {
            let (process, _, _) = try launch(
                [],
                environment: [
                    "CAPTURE_PORT": "\(port)", "CAPTURE_DB": database, "CAPTURE_SETTINGS": TestWorld.settingsDirectory.path,
                ])
            try await waitUntilReady("http://127.0.0.1:\(port)")
            return process
        }
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
