import Foundation

/// What a flow page's URL asks for (`/flows/{flow}?client_id=…&locale=…&response_type=…`), as read from the query.
public struct FlowPageQuery: Sendable, Hashable {
    public var flow: String
    public var clientID: String?
    public var locale: String?
    public var acceptLanguage: String?
    public var responseType: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var appReturnURI: String?
    /// The sealed OpenID Connect authorization request the page signs in for (`/oidc/authorize` sent the browser).
    public var oidcRequest: String?

    public init(flow: String, query: [String: String], acceptLanguage: String?) {
        self.flow = flow
        clientID = query["client_id"]
        locale = query["locale"]
        self.acceptLanguage = acceptLanguage
        responseType = query["response_type"]
        codeChallenge = query["code_challenge"]
        codeChallengeMethod = query["code_challenge_method"]
        appReturnURI = query["app_return_uri"].flatMap { $0.isEmpty ? nil : $0 }
        oidcRequest = query["oidc_request"].flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// One page view the service agreed to show: everything `janrain.settings` is written from.
public struct FlowPageView: Sendable {
    public let flow: FlowDefinition
    public let client: Client
    /// The language the page speaks: the page's `locale`, else the browser's languages, else the flow's.
    public let locale: String
    public let responseType: ResponseType
    public let codeChallenge: String?
    /// Absolute: a flow's relative `tokenUrl` is resolved against the public origin.
    public let tokenURL: String
    public let appReturnURI: String?
    /// The OpenID Connect client's request the page signs in for, checked.
    public let authorization: AuthorizationRequest?
    /// The store's clients version `client` was read at: whatever is derived from this view may be kept under it.
    public let clientsVersion: Int64

    /// False when the link carries a per-request steps.value (a PKCE challenge, an app return URI): nothing derived from
    /// the view is worth keeping for another request.
    public var isShared: Bool { codeChallenge == nil && appReturnURI == nil && authorization == nil }
}

/// Why a flow page is not shown to this caller: a link that names no flow, or one this app may not open. The message
/// is for the developer who built the link (shown folded away on the error page).
public enum FlowPageRefusal: Error, Equatable, Sendable {
    case noSuchFlow(String)
    case invalidLink(String)

    public var message: String {
        switch self {
        case .noSuchFlow(let name): "There is no flow named “\(name)”."
        case .invalidLink(let message): message
        }
    }
}

/// Flow pages and the drop-in loader: which link may open which page.
public struct FlowPageService: Sendable {
    let clients: any ClientRepository
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let flowPageViews: VersionedCache<FlowPageQuery, FlowPageView>
    let crossOrigins: VersionedCache<Int, Set<URLOrigin>>
    let social: SocialProviders
    let clientAccess: ClientAccess
    let clientSettings: ClientSettingsAccess
    let steps: FlowSteps
}

extension FlowPageService {
    /// The page view a link asks for, checked by `checkedFlowPage`. A view agreed to for the same query at the same
    /// clients version is reused (`flowPageViews`), so the checks run once per link and client version, not per
    /// request; links with a per-request steps.value (a PKCE challenge, an app return URI) are checked each time and not
    /// kept. `hasTemplate` must not change meanwhile (the templates are loaded once).
    public func flowPage(_ query: FlowPageQuery, hasTemplate: (String) -> Bool) async throws -> FlowPageView {
        let version = try await clients.version()
        if let view = flowPageViews.value(query, version: version) { return view }
        let view = try await checkedFlowPage(query, version: version, hasTemplate: hasTemplate)
        if view.isShared { flowPageViews.keep(view, for: query, version: version) }
        return view
    }

    /// The rules of a flow page's link (docs/contract.md §2): a registered client that lists the page among its redirect URIs,
    /// a response type it may use (with PKCE for a public client's code), an app return URI it lists, and a token
    /// URL on an origin it allows. `hasTemplate` says whether the flow has markup to show.
    private func checkedFlowPage(
        _ query: FlowPageQuery, version: Int64, hasTemplate: (String) -> Bool
    ) async throws -> FlowPageView {
        guard let flow = catalog.flow(named: query.flow), hasTemplate(query.flow) else {
            throw FlowPageRefusal.noSuchFlow(query.flow)
        }
        func refuse(_ message: String) -> FlowPageRefusal { .invalidLink(message) }
        guard let clientID = query.clientID ?? flow.defaultClient, !clientID.isEmpty else {
            throw refuse("This page needs a client_id parameter naming the app that opened it.")
        }
        guard let client = try await clientAccess.registeredClient(clientID, version: version) else {
            throw refuse("The app “\(clientID)” is not registered with this service (unknown client_id).")
        }
        if let requested = query.locale, !Localization.isLanguageTag(requested) {
            throw refuse("The locale “\(requested)” is not a language tag such as en-US.")
        }
        let locale = catalog.localization.negotiate(
            explicit: query.locale, acceptLanguage: query.acceptLanguage, fallback: flow.locale)
        // A page hands back tokens or a code, never both.
        guard let responseType = ResponseType(parameter: query.responseType, fallback: flow.responseType),
            responseType != .codeAndToken
        else {
            throw refuse("response_type must be token or code.")
        }
        guard client.responseTypes.contains(responseType) else {
            throw refuse("The app “\(clientID)” may not use response_type=\(responseType.rawValue).")
        }
        // An OpenID Connect client's sign-in: /oidc/authorize checked the client, its redirect URI and PKCE; the page
        // hands the code to that redirect URI, so it need not be one of the client's own pages.
        var authorization: AuthorizationRequest?
        if let sealed = query.oidcRequest {
            guard responseType == .code, let opened = try? steps.oidcCodes.opened(sealed, clientID: client.clientID) else {
                throw refuse("This sign-in link has expired or was changed. Go back to the app or site and start again.")
            }
            authorization = opened
        }
        var codeChallenge: String?
        if responseType == .code, authorization == nil {
            do {
                codeChallenge = try PKCE.checkedChallenge(
                    query.codeChallenge, method: query.codeChallengeMethod, required: !client.isConfidential)
            } catch let error as CaptureError {
                throw refuse("This page needs a PKCE code_challenge with code_challenge_method=S256 (\(error.errorDescription)).")
            }
        }
        let origin = settings.resolvedPublicOrigin
        guard
            authorization != nil
                || ClientRules.matchRedirect(origin + "/flows/" + flow.name, allowed: client.redirectURIs, publicOrigin: origin)
                    != nil
        else {
            throw refuse("The app “\(clientID)” does not list this page (/flows/\(flow.name)) among its redirect URIs.")
        }
        // System-browser hand-off (docs/social-handoff.md): where the provider's answer goes to the app.
        if let appReturnURI = query.appReturnURI,
            ClientRules.matchRedirect(appReturnURI, allowed: client.redirectURIs, publicOrigin: origin) == nil
        {
            throw refuse("The app “\(clientID)” does not list app_return_uri among its redirect URIs.")
        }
        let tokenURL = flow.tokenUrl.hasPrefix("/") ? origin + flow.tokenUrl : flow.tokenUrl
        guard let tokenOrigin = URLOrigin(tokenURL),
            tokenOrigin == URLOrigin(origin) || client.allowedOrigins.compactMap(URLOrigin.init).contains(tokenOrigin)
        else {
            throw refuse("The flow's tokenUrl is not on an origin this app allows.")
        }
        return FlowPageView(
            flow: flow, client: client, locale: locale, responseType: responseType, codeChallenge: codeChallenge,
            tokenURL: tokenURL, appReturnURI: query.appReturnURI, authorization: authorization, clientsVersion: version)
    }
}
