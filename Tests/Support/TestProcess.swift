import CTestSpawn
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process for the test suites, with the names of Foundation's `Process` that they use. Started with
/// glibc's posix_spawn (`capture_test_spawn`) rather than `Process.run()`, which on Linux now and then crashes the
/// whole test process while it lists `/proc/self/fd` (swift-corelibs-foundation #5472). Standard streams are a
/// `FileHandle`, a `Pipe` or nil (the test process's own); every other descriptor is closed in the child.
public final class TestProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    /// Nil: the test process's own environment.
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called once, on a thread of its own, when the child has exited.
    public var terminationHandler: (@Sendable (TestProcess) -> Void)?

    private struct State {
        var pid: pid_t = 0
        var status: Int32?
    }

    private let state = Mutex(State())
    private let exited = DispatchSemaphore(value: 0)

    public init() {}

    public var processIdentifier: Int32 { state.withLock { $0.pid } }
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.status == nil } }
    /// The exit status, or the number of the signal that ended the child.
    public var terminationStatus: Int32 { state.withLock { $0.status ?? 0 } }

    public func run() throws {
        guard let path = executableURL?.path else { throw POSIXError(.ENOENT) }
        let argv = [path] + arguments
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = withCStrings(argv) { argv in
            withCStrings(environment) { envp in
                capture_test_spawn(
                    &pid, path, argv, envp, currentDirectoryURL?.path, Self.descriptor(standardInput, reading: true),
                    Self.descriptor(standardOutput, reading: false), Self.descriptor(standardError, reading: false))
            }
        }
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        state.withLock { $0.pid = pid }
        // The child holds its ends of the pipes now: the parent's copies would keep a reader from seeing the end.
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        for output in [standardOutput, standardError] {
            if let pipe = output as? Pipe { try? pipe.fileHandleForWriting.close() }
        }
        let child = pid
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
            let signal = raw & 0x7F
            let code = signal == 0 ? (raw >> 8) & 0xFF : signal
            state.withLock { $0.status = code }
            exited.signal()
            terminationHandler?(self)
        }
    }

    public func waitUntilExit() {
        guard processIdentifier != 0 else { return }
        exited.wait()
        exited.signal()
    }

    /// `waitUntilExit()` without blocking a concurrency thread.
    public func exited() async {
        await onOwnThread { self.waitUntilExit() }
    }

    /// Sends `signal` (none: the child was told to end some other way), then SIGKILL if the child is still there
    /// after `grace` seconds. Returns at once; the waiting happens on a thread of its own.
    public func end(signal: Int32? = nil, grace: Double) {
        if let signal { send(signal) }
        Thread.detachNewThread { self.awaitEnd(grace: grace) }
    }

    /// `end(signal:grace:)`, returning once the child has exited.
    public func ended(signal: Int32? = nil, grace: Double) async {
        if let signal { send(signal) }
        await onOwnThread { self.awaitEnd(grace: grace) }
    }

    private func awaitEnd(grace: Double) {
        let deadline = Date() + grace
        while isRunning && Date() < deadline { usleep(10_000) }
        send(SIGKILL)
        waitUntilExit()
    }

    public func terminate() { send(SIGTERM) }
    public func interrupt() { send(SIGINT) }

    public func send(_ signal: Int32) {
        let pid = state.withLock { $0.status == nil ? $0.pid : 0 }
        if pid != 0 { kill(pid, signal) }
    }

    private static func descriptor(_ stream: Any?, reading: Bool) -> Int32 {
        switch stream {
        case let handle as FileHandle: return handle.fileDescriptor
        case let pipe as Pipe:
            return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        default: return -1
        }
    }
}

/// `strings` as a NULL-terminated array of C strings for the duration of `body`.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
