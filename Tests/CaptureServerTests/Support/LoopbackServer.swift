import CaptureServer
import Hummingbird
import ServiceLifecycle

struct LiveServerDidNotStart: Error {}

/// Runs `body` against a live server on loopback: `make` builds the application around the callback that reports
/// its port; the server stops when `body` returns or throws.
func withLoopbackServer<App: ApplicationProtocol, Value: Sendable>(
    _ make: (_ onServerRunning: @escaping @Sendable (Int) async -> Void) throws -> App,
    _ body: @Sendable (_ port: Int) async throws -> Value
) async throws -> Value {
    let (ports, announce) = AsyncStream.makeStream(of: Int.self)
    let app = try make { announce.yield($0) }
    let services = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            defer { announce.finish() }
            try await services.run()
        }
        do {
            guard let port = await ports.first(where: { _ in true }) else {
                // The server stopped before it listened: its own error says why.
                try await group.waitForAll()
                throw LiveServerDidNotStart()
            }
            let value = try await body(port)
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return value
        } catch {
            await services.triggerGracefulShutdown()
            throw error
        }
    }
}

/// A router's application on a free loopback port, for `withLoopbackServer`.
func loopbackApplication(
    router: Router<CaptureRequestContext>, onServerRunning: @escaping @Sendable (Int) async -> Void
) -> some ApplicationProtocol {
    Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) })
}
