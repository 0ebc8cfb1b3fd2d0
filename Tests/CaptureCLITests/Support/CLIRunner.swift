import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// What one run of the built `capturectl` printed and how it exited.
struct CLIResult {
    var status: Int32
    var stdout: String
    /// Stderr without the progress lines a long import or pull prints when it is not on a terminal (one every ten
    /// seconds, so a run on a loaded machine may have some): those are in `progress`.
    var stderr: String
    var progress: [String] = []

    init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        let isProgress = { (line: Substring) in line.wholeMatch(of: /\d+(\/\d+)? records, \d+\/s, [\d:]+ elapsed.*/) != nil }
        progress = lines.filter(isProgress).map(String.init)
        self.stderr = lines.filter { !isProgress($0) }.joined(separator: "\n")
    }

    /// Stdout parsed as JSON; a failure says what was printed.
    func json() throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        } catch {
            Issue.record("stdout is not JSON (exit \(status)): \(stdout.debugDescription) stderr: \(stderr.debugDescription)")
            throw error
        }
    }

    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "not a JSON object: \(stdout)")
    }
}

enum CLI {
    /// `CAPTURECTL_BIN`, else next to the test bundle, else the repository's `.build/debug`.
    static let binary: URL? = {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["CAPTURECTL_BIN"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(here.appendingPathComponent("capturectl"))
        candidates.append(here.deletingLastPathComponent().appendingPathComponent("capturectl"))
        candidates.append(TestWorld.repositoryRoot.appendingPathComponent(".build/debug/capturectl"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Writing a token to a child that already exited must fail the write, not kill the test process.
    static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs `capturectl arguments…` with no `CAPTURE_*` variables inherited; output goes through temporary files.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> CLIResult {
        let binary = try #require(binary, "capturectl not built: set CAPTURECTL_BIN or build the capturectl product")
        _ = ignoreSIGPIPE
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("capturectl-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = TestProcess()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CAPTURE_") }
            .merging(environment) { _, given in given }
        process.currentDirectoryURL = scratch
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try? input.fileHandleForWriting.close()
        }
        try out.close()
        try err.close()
        return CLIResult(
            status: status,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs against `world`'s database with the repository's Settings.
    static func run(_ arguments: [String], in world: TestWorld, stdin: String? = nil) async throws -> CLIResult {
        try await run(
            arguments + ["--db", world.database, "--settings", TestWorld.settingsDirectory.path], stdin: stdin)
    }
}

extension TestWorld {
    /// A world whose clock is no earlier than the real one, so tokens it issues are active for the CLI (which uses real time).
    static func current(backend: TestBackend = .selected) async throws -> TestWorld {
        let world = try await TestWorld.make(backend: backend)
        let behind = Date().timeIntervalSince(world.time.now())
        if behind > 0 { world.time.advance(by: behind) }
        return world
    }
}
