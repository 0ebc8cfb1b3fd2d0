import CaptureCore
import Foundation
import Hummingbird

/// `GET /flows/{flowName}` (the web-view pages), `GET /flows/assets/{file}` and `GET /flows/themes/{file}`.
struct FlowPageController {
    let service: CaptureService
    let pages: FlowPages
    var themes: ClientThemes = .none

    func addRoutes(to router: Router<CaptureRequestContext>) {
        router.get("/flows/assets/:file") { request, context in
            let name = context.parameters.get("file") ?? ""
            return pages.assets.response(for: name, ifNoneMatch: request.headers[.ifNoneMatch])
                ?? ErrorPage.response(.notFound, status: .notFound, messages: service.catalog.localization.messages(for: request))
        }
        router.get("/flows/themes/:file") { request, context in
            let name = context.parameters.get("file") ?? ""
            return themes.response(for: name, ifNoneMatch: request.headers[.ifNoneMatch])
                ?? ErrorPage.response(.notFound, status: .notFound, messages: service.catalog.localization.messages(for: request))
        }
        router.get("/flows/:flow", use: page)
    }

    @Sendable func page(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let name = context.parameters.get("flow") ?? ""
        guard let flow = service.catalog.flow(named: name), pages.templates[name] != nil else {
            return ErrorPage.response(
                .notFound, status: .notFound, messages: service.catalog.localization.messages(for: request),
                detail: "There is no flow named “\(name)”.")
        }
        let query = request.uri.queryParameters
        do {
            let clientID = query["client_id"].map(String.init) ?? flow.defaultClient
            guard let clientID, !clientID.isEmpty else {
                throw PageProblem("This page needs a client_id parameter naming the app that opened it.")
            }
            guard let client = try await service.store.clients.find(id: clientID) else {
                throw PageProblem("The app “\(clientID)” is not registered with this service (unknown client_id).")
            }
            let requested = query["locale"].map(String.init)
            if let requested, !Localization.isLanguageTag(requested) {
                throw PageProblem("The locale “\(requested)” is not a language tag such as en-US.")
            }
            // The page's locale, else the browser's languages, else the flow's: whichever a catalog speaks.
            let localization = service.catalog.localization
            let locale = localization.negotiate(
                explicit: requested, acceptLanguage: request.headers[.acceptLanguage], fallback: flow.locale)
            let messages = localization.messages(for: locale)
            guard let template = pages.template(name, in: messages) else { throw PageProblem("This page has no template.") }
            let responseType = query["response_type"].map(String.init) ?? flow.responseType
            guard responseType == "token" || responseType == "code" else {
                throw PageProblem("response_type must be token or code.")
            }
            guard client.responseTypes.contains(responseType) else {
                throw PageProblem("The app “\(clientID)” may not use response_type=\(responseType).")
            }
            var codeChallenge: String?
            if responseType == "code" {
                do {
                    codeChallenge = try PKCE.checkedChallenge(
                        query["code_challenge"].map(String.init), method: query["code_challenge_method"].map(String.init),
                        required: !client.isConfidential)
                } catch let error as CaptureError {
                    throw PageProblem("This page needs a PKCE code_challenge with code_challenge_method=S256 (\(error.errorDescription)).")
                }
            }
            let origin = service.settings.resolvedPublicOrigin
            guard ClientRules.matchRedirect(origin + "/flows/" + name, allowed: client.redirectURIs, publicOrigin: origin) != nil else {
                throw PageProblem("The app “\(clientID)” does not list this page (/flows/\(name)) among its redirect URIs.")
            }
            // System-browser hand-off (docs/social-handoff.md): where the provider's answer goes to the app.
            let appReturnURI = query["app_return_uri"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            if let appReturnURI, ClientRules.matchRedirect(appReturnURI, allowed: client.redirectURIs, publicOrigin: origin) == nil {
                throw PageProblem("The app “\(clientID)” does not list app_return_uri among its redirect URIs.")
            }
            let tokenURL = flow.tokenUrl.hasPrefix("/") ? origin + flow.tokenUrl : flow.tokenUrl
            guard let tokenOrigin = URLOrigin(tokenURL),
                tokenOrigin == URLOrigin(origin) || client.allowedOrigins.compactMap(URLOrigin.init).contains(tokenOrigin)
            else {
                throw PageProblem("The flow's tokenUrl is not on an origin this app allows.")
            }
            let json = JanrainSettings.json(
                flow: flow, client: client, locale: locale, responseType: responseType, codeChallenge: codeChallenge,
                tokenURL: tokenURL, settings: service.settings, providers: service.social.ordered,
                appReturnURI: appReturnURI)
            let page = template.render(
                settingsJSON: json, locale: locale, clientID: client.clientID, theme: themes.page(for: client.clientID))
            return ErrorPage.html(page, status: .ok)
        } catch let problem as PageProblem {
            return ErrorPage.response(
                .invalidLink, status: .badRequest, messages: service.catalog.localization.messages(for: request),
                detail: problem.message)
        }
    }
}

/// Why a page cannot be shown to this caller.
struct PageProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
