import CaptureCore
import CaptureOutbound
import CaptureStore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the Hummingbird application around a ready `CaptureService`.
public func buildApplication(
    service: CaptureService, logger: Logger = Logger(label: "capture-server"), services: [any Service] = [],
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let router = try buildRouter(service: service)
    let settings = service.settings
    let replyHeaders = SecurityHeadersMiddleware(settings: settings).fields
    let limits = RequestDeadlineHandler.Limits(settings: settings)
    // Hummingbird's own idleTimeout stays off: it counts from the last request part, so a body trickled a byte at
    // a time keeps it from firing. RequestDeadlineHandler owns all three deadlines.
    // New handlers per connection, guard first: a head it refuses never starts a body deadline.
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [
            RequestGuardHandler(replyHeaders: replyHeaders), RequestDeadlineHandler(limits: limits, logger: logger),
        ],
        idleTimeout: nil)
    return Application(
        router: router,
        server: .http1(configuration: http1),
        configuration: .init(
            address: .hostname(settings.host, port: settings.port), serverName: "capture-bridge",
            // At the limit the server stops accepting; newcomers wait in the kernel's backlog until one closes.
            availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: logger)
}

/// The router alone, for tests that drive it without sockets.
public func buildRouter(service: CaptureService) throws -> Router<CaptureRequestContext> {
    let pages = try FlowPages.load(
        webFlows: service.settings.webFlowsDirectory, catalog: service.catalog, providers: service.social.ordered)
    let themes = try ClientThemes.load(settings: service.settings)
    // HEAD is answered for every GET route (same headers, no body).
    let router = Router(context: CaptureRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: SecurityHeadersMiddleware(settings: service.settings, proxies: service.proxies))
    router.add(middleware: RequestLogMiddleware())
    // Before UnknownRouteMiddleware: its pages speak the request's language too.
    router.add(middleware: LanguageMiddleware(localization: service.catalog.localization))
    router.add(middleware: UnknownRouteMiddleware())
    HealthController(store: service.store).addRoutes(to: router)
    FlowPageController(service: service, pages: pages, themes: themes).addRoutes(to: router)
    FlowDocumentController(service: service).addRoutes(to: router)
    CaptureAPIController(service: service).addRoutes(to: router)
    AccountRecoveryController(service: service).addRoutes(to: router)
    OAuthController(service: service).addRoutes(to: router)
    SocialSignInController(service: service).addRoutes(to: router)
    VerifyController(service: service).addRoutes(to: router)
    try OpenAPIController(webFlows: service.settings.webFlowsDirectory).addRoutes(to: router)
    return router
}

/// Loads settings and flows, opens the database, and serves until SIGTERM/SIGINT; then closes the database.
public enum CaptureServerMain {
    public static func run(settings: ServiceSettings, settingsDirectory: URL, logger: Logger) async throws {
        let catalog = try FlowCatalog.load(directory: settingsDirectory)
        let pool = try CaptureDatabase.open(path: settings.databasePath)
        var service = await CaptureService.make(settings: settings, catalog: catalog, store: CaptureDatabase.repositories(pool))
        try await service.syncSettingsClients()
        // A provider that cannot be discovered is left out by name; the others and traditional sign-in still work.
        let (providers, problems) = await SocialProviders.discover(
            settings.socialProviders, secrets: settings.providerSecrets, transport: CurlProviderTransport())
        for problem in problems { logger.warning("\(problem)") }
        service.social = providers
        // With an SMTP relay the outbox is delivered in the background; without one messages wait in it.
        let mail = settings.smtp.map { relay in
            MailDeliveryService(
                delivery: MailDelivery(
                    service: service, transport: SMTPMailTransport(relay: relay),
                    logger: Logger(label: "capture.mail")))
        }
        let app = try buildApplication(service: service, logger: logger, services: mail.map { [$0] } ?? []) { port in
            let origin = settings.publicOrigin ?? "http://\(settings.host):\(port)"
            logger.info("capture-server listening on \(settings.host):\(port)")
            var lines: [String] = []
            for client in settings.clients {
                lines.append("Client id: \(client.clientId)")
                for flow in catalog.flows.keys.sorted() {
                    lines.append("  Open \(origin)/flows/\(flow)?client_id=\(client.clientId)")
                }
            }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        // Hummingbird finishes in-flight requests on SIGTERM/SIGINT before returning.
        try await app.runService()
        try pool.close()
        logger.info("capture-server stopped; database closed")
    }
}
