import Foundation
import Logging
import ServiceLifecycle

/// Bounds a SIGTERM or SIGINT: the service group cancels what is still running once `grace` has passed
/// (`maximumGracefulShutdownDuration`), and this ends the process one second later if something ignored that (a
/// statement a database that went silent will never answer), rather than leaving an orchestrator to kill it.
struct ShutdownDeadline: Service {
    let grace: Duration
    let logger: Logger

    /// The group the server runs in: the application and this deadline, stopped by `signals`.
    static func group(running app: some Service, grace: Duration, logger: Logger) -> ServiceGroup {
        var configuration = ServiceGroupConfiguration(
            services: [
                .init(service: app),
                // Last, so it hears the shutdown first; its early return ends nothing else.
                .init(service: ShutdownDeadline(grace: grace, logger: logger), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        return ServiceGroup(configuration: configuration)
    }

    func run() async throws {
        // Throws (and so ends) when the group is cancelled without a graceful shutdown: nothing to bound then.
        try await gracefulShutdown()
        let limit = grace + .seconds(1)
        Task.detached { [logger] in
            try? await Task.sleep(for: limit)
            logger.error("still stopping after \(limit) (shutdownGraceSeconds and one second); exiting now")
            exit(1)
        }
    }
}
