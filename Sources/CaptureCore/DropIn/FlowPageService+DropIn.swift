/// A flow as a customer's Janrain page asks for it (`/flows/{flow}/widget.json?client_id=…&locale=…`).
public struct WidgetFlowView: Sendable {
    public let flow: FlowDefinition
    /// The page named a flow this service does not have; `flow` is the Janrain fallback serving it.
    public let isFallback: Bool
    public let client: Client
    /// The client's settings a page reads (`janrain.capture.ui.getClientSettings()`), its own over the defaults.
    public let pages: ClientPages
    /// The page's `language` when it is a catalog's, else the browser's languages, else the flow's.
    public let locale: String
}

extension FlowPageService {
    /// The flow a customer's page names (a flow of Settings, or one of Janrain's template names mapped to one, else the
    /// Janrain fallback) for a registered client. What the page may then do is decided per call, as for every caller.
    public func widgetFlow(
        named name: String, clientID: String?, locale: String?, acceptLanguage: String?
    ) async throws -> WidgetFlowView {
        let named = catalog.flow(named: name)
        guard let flow = named ?? catalog.janrainFallback else {
            throw CaptureError.invalidArgument("flow", "unknown flow '\(name)'")
        }
        let version = try await clients.version()
        let client = try await clientAccess.client(id: clientID, version: version)
        if let locale, !Localization.isLanguageTag(locale) {
            throw CaptureError.invalidArgument("locale", "'\(locale)' is not a language tag such as en-US")
        }
        return WidgetFlowView(
            flow: flow, isFallback: named == nil, client: client,
            pages: try await clientSettings.pages(of: client, version: version),
            locale: catalog.localization.negotiate(explicit: locale, acceptLanguage: acceptLanguage, fallback: flow.locale))
    }

    /// Whether a page on `origin` may read the service's replies (CORS): it is an origin a registered client lists in
    /// `allowedOrigins`. Which client such a page may drive stays `steps.context(of:)`'s rule, checked on every call.
    public func allowsCrossOrigin(_ origin: String) async throws -> Bool {
        guard let origin = URLOrigin(origin) else { return false }
        let version = try await clients.version()
        if let known = crossOrigins.value(0, version: version) { return known.contains(origin) }
        let allowed = Set(try await clients.list().flatMap { $0.allowedOrigins.compactMap(URLOrigin.init) })
        crossOrigins.keep(allowed, for: 0, version: version)
        return allowed.contains(origin)
    }
}
