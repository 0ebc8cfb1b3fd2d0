import CaptureCore
import CaptureOutbound
import CaptureStorage
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Builds the Hummingbird application around ready `CaptureFeatures`. `services` run in its service group (the
/// first ones stop last); `beforeServerStarts` runs once they have started, before the listeners accept anyone.
public func buildApplication(
    features: CaptureFeatures, logger: Logger = Logger(label: "capture-server"), services: [any Service] = [],
    beforeServerStarts: @escaping @Sendable () async throws -> Void = {},
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let settings = features.settings
    // With an admin port, the admin API is served there and only there (as Kratos separates its admin API).
    let router = try buildRouter(features: features, servesAdmin: settings.adminPort == nil)
    let replyHeaders = SecurityHeaders(settings: settings).fields
    let limits = RequestDeadlineHandler.Limits(settings: settings)
    // Hummingbird's own idleTimeout stays off: it counts from the last request part, so a body trickled a byte at
    // a time keeps it from firing. RequestDeadlineHandler owns all three deadlines.
    // New handlers per connection, guard first: a head it refuses never starts a body deadline.
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [
            RequestGuardHandler(replyHeaders: replyHeaders), RequestDeadlineHandler(limits: limits, logger: logger),
            NotModifiedFraming(),
        ],
        idleTimeout: nil)
    var services = services
    if let adminPort = settings.adminPort {
        // The same connection limits and deadlines as the public listener.
        services.append(
            Application(
                router: buildAdminRouter(features: features), server: .http1(configuration: http1),
                configuration: .init(
                    address: .hostname(settings.adminHost ?? settings.host, port: adminPort), serverName: "capture-bridge-admin",
                    availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
                onServerRunning: { channel in
                    logger.info(
                        "admin API listening on \(settings.adminHost ?? settings.host):\(channel.localAddress?.port ?? 0)")
                },
                logger: logger))
    }
    var app = Application(
        router: router,
        server: .http1(configuration: http1),
        configuration: .init(
            address: .hostname(settings.host, port: settings.port), serverName: "capture-bridge",
            // At the limit the server stops accepting; newcomers wait in the kernel's backlog until one closes.
            availableConnectionsDelegate: MaximumAvailableConnections(settings.maxConnections, logger: logger)),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: logger)
    app.beforeServerStarts(perform: beforeServerStarts)
    return app
}

/// The router alone, for tests that drive it without sockets; `servesAdmin` adds the admin API.
public func buildRouter(features: CaptureFeatures, servesAdmin: Bool = true) throws -> Router<CaptureRequestContext> {
    let pages = try FlowPages.load(
        webFlows: features.settings.webFlowsDirectory, catalog: features.catalog, providers: features.providers.ordered)
    let themes = try ClientThemes.load(settings: features.settings)
    // HEAD is answered for every GET route (same headers, no body).
    let router = Router(context: CaptureRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: RequestPipelineMiddleware(features: features))
    // One group per reply style; each group's ErrorReplyMiddleware is the one owner of its routes' failures.
    func group(_ style: ReplyStyle) -> RouterGroup<CaptureRequestContext> {
        router.group().add(middleware: ErrorReplyMiddleware(style: style))
    }
    // The calls a customer's page makes through the drop-in: readable from the origins clients allow, errors included.
    func crossOriginGroup(_ style: ReplyStyle) -> RouterGroup<CaptureRequestContext> {
        router.group().add(
            middleware: ErrorReplyMiddleware(
                style: style, crossOrigin: CrossOriginReplies(flowPages: features.flowPages, settings: features.settings)))
    }
    let capture = crossOriginGroup(.capture), oauth = crossOriginGroup(.oauth), pageRoutes = group(.page)
    let problem = group(.problem)
    let dropIn = DropInController(
        flowPages: features.flowPages, catalog: features.catalog, settings: features.settings, providers: features.providers,
        pages: pages)
    dropIn.addLoaderRoutes(to: pageRoutes)
    dropIn.addFlowRoutes(to: capture)
    let social = SocialSignInController(settings: features.settings, social: features.social)
    HealthController(store: features.store).addRoutes(to: problem)
    FlowPageController(
        flowPages: features.flowPages, catalog: features.catalog, settings: features.settings, providers: features.providers,
        pages: pages, themes: themes
    ).addRoutes(to: pageRoutes)
    social.addRoutes(to: pageRoutes)
    FlowDocumentController(settings: features.settings, catalog: features.catalog).addRoutes(to: capture)
    CaptureAPIController(
        signIn: features.signIn, social: features.social, settings: features.settings, proxies: features.proxies,
        profile: features.profile, privacy: features.privacy, tokens: features.tokens
    ).addRoutes(to: capture)
    ServerAPIController(
        records: features.records, access: features.access, profile: features.profile, settings: features.settings,
        proxies: features.proxies
    ).addRoutes(to: capture)
    ServerClientsController(
        authentication: features.serverAuthentication, clientSettings: features.clientSettings,
        settings: features.settings, proxies: features.proxies
    ).addRoutes(to: capture)
    AccountRecoveryController(proxies: features.proxies, settings: features.settings, recovery: features.recovery).addRoutes(
        to: capture)
    FactorsController(
        proxies: features.proxies, settings: features.settings, factors: features.factors, signIn: features.signIn,
        profile: features.profile
    ).addRoutes(to: capture)
    TermsController(proxies: features.proxies, settings: features.settings, signIn: features.signIn, profile: features.profile)
        .addRoutes(to: capture)
    SessionsController(privacy: features.privacy, settings: features.settings).addRoutes(to: capture)
    AccountDataController(privacy: features.privacy, settings: features.settings).addRoutes(to: capture)
    AppAssociationController(settings: features.settings).addRoutes(to: problem)
    let oauthController = OAuthController(
        settings: features.settings, tokens: features.tokens, oidc: features.oidc)
    oauthController.addRoutes(to: oauth)
    OIDCController(oidc: features.oidc, signingKeys: features.signingKeys, settings: features.settings, oauth: oauthController)
        .addRoutes(to: oauth)
    social.addEngageRoutes(to: group(.engage))
    VerifyController(settings: features.settings, tokens: features.tokens).addRoutes(to: group(.verify))
    try OpenAPIController(webFlows: features.settings.webFlowsDirectory).addRoutes(to: problem)
    if servesAdmin {
        // Sign-in outcomes, token counts and the outbox's depth are not the public's business (issue 27): on the
        // main listener `/metrics` takes an admin key unless the operator opened it.
        let keyed = problem.group().add(middleware: AdminKeyMiddleware(admin: features.admin))
        MetricsController.mount(on: features.settings.metricsPublic ? problem : keyed, features: features)
        AdminController(features: features).addRoutes(to: keyed)
    }
    return router
}

/// The admin listener's router: the admin API and `/metrics`, with the same request ids, metrics, security
/// headers, request log and replies to unknown routes as the main one.
public func buildAdminRouter(features: CaptureFeatures) -> Router<CaptureRequestContext> {
    let router = Router(context: CaptureRequestContext.self)
    router.add(middleware: RequestPipelineMiddleware(features: features))
    let problem = router.group().add(middleware: ErrorReplyMiddleware(style: .problem))
    MetricsController.mount(on: problem, features: features)
    AdminController(features: features).addRoutes(to: problem.add(middleware: AdminKeyMiddleware(admin: features.admin)))
    return router
}

/// Loads settings and flows, opens the database, and serves until SIGTERM/SIGINT; then closes the database.
public enum CaptureServerMain {
    public static func run(
        settings: ServiceSettings, settingsDirectory: URL, logger: Logger,
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
    ) async throws {
        let catalog = try FlowCatalog.load(directory: settingsDirectory)
        if let problem = LegalTerms.problem(documents: settings.legalDocuments, schema: catalog.schema) {
            throw SettingsError(file: "service.json", key: "legalDocuments", problem: problem)
        }
        // Sign-in-time migration from the Janrain app being replaced, until its cutover (never its secret in a log);
        // its secret is read before the database opens, so a missing one stops the start with nothing to close.
        var legacy: JanrainLegacyApp?
        if let old = settings.legacyJanrain {
            let secret = try LegacyJanrainSecret.read(old, environment: ProcessInfo.processInfo.environment)
            legacy = JanrainLegacyApp(settings: old, secret: secret)
            logger.info("sign-in migration from \(old.base) (client \(old.clientId)) until \(old.cutover)")
        }
        let metrics = CaptureMetrics.prometheus(registry)
        // Opened and migrated here, so every service below starts on a migrated schema.
        let storage = try await OpenedStorage.open(try settings.databaseLocation(), metrics: metrics, service: true)
        let codeKey = try CodeKey.load(environment: ProcessInfo.processInfo.environment, file: settings.codeKeyFile)
        // A provider that cannot be discovered is left out by name; the others and traditional sign-in still work.
        let (providers, problems) = await SocialProviders.discover(
            settings.socialProviders, secrets: settings.providerSecrets, transport: CurlProviderTransport())
        for problem in problems { logger.warning("\(problem)") }
        let features = await CaptureFeatures.make(
            settings: settings, catalog: catalog, store: storage.repositories, social: providers, codeKey: codeKey,
            metrics: metrics, legacy: legacy)
        // With an SMTP relay the outbox is delivered in the background; without one messages wait in it.
        let mail = settings.smtp.map { relay in
            MailDeliveryService(
                delivery: MailDelivery(
                    features: features, transport: SMTPMailTransport(relay: relay),
                    logger: Logger(label: "capture.mail")))
        }
        let purge = PurgeService(
            housekeeping: features.housekeeping, settings: features.settings, logger: Logger(label: "capture.purge"))
        // Webhook events are delivered in the background, never on a request's path (docs/webhooks.md).
        let webhooks = WebhookDeliveryService(
            delivery: WebhookDelivery(
                features: features, transport: CurlWebhookTransport(), logger: Logger(label: "capture.webhooks")))
        // The storage's own services (PostgreSQL's pool) first: they start first and stop after the others.
        let services: [any Service] = storage.services + [mail as (any Service)?, purge, webhooks].compactMap { $0 }
        let app = try buildApplication(
            features: features, logger: logger, services: services,
            // Once the storage's services run (PostgreSQL's pool serves queries only then): the settings' clients,
            // and the indexes entity.find's filters use on the schema's unique and `indexed` attributes.
            beforeServerStarts: { [clientAdmin = features.clientAdmin, users = storage.repositories.users] in
                try await clientAdmin.syncSettingsClients()
                try await users.prepareFilterIndexes(for: catalog.schema)
            }
        ) { port in
            let origin = settings.publicOrigin ?? "http://\(settings.host):\(port)"
            logger.info("capture-server listening on \(settings.host):\(port)")
            var lines: [String] = []
            for client in settings.clients {
                lines.append("Client id: \(client.clientId)")
                for flow in catalog.pageFlows.map(\.name) {
                    lines.append("  Open \(origin)/flows/\(flow)?client_id=\(client.clientId)")
                }
            }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        // Hummingbird finishes in-flight requests on SIGTERM/SIGINT before returning, within shutdownGraceSeconds.
        try await ShutdownDeadline.group(running: app, grace: .seconds(settings.shutdownGraceSeconds), logger: logger).run()
        try await storage.close()
        logger.info("capture-server stopped; database closed")
    }
}
