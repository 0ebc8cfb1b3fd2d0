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
                ?? ErrorPage.response(status: .notFound, title: "Not found", message: "There is no file named \(name).")
        }
        router.get("/flows/themes/:file") { request, context in
            let name = context.parameters.get("file") ?? ""
            return themes.response(for: name, ifNoneMatch: request.headers[.ifNoneMatch])
                ?? ErrorPage.response(status: .notFound, title: "Not found", message: "There is no file named \(name).")
        }
        router.get("/flows/:flow", use: page)
    }

    @Sendable func page(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let name = context.parameters.get("flow") ?? ""
        guard let template = pages.templates[name] else {
            return ErrorPage.response(status: .notFound, title: "Page not found", message: "There is no flow named “\(name)”.")
        }
        let query = request.uri.queryParameters
        let flow = template.flow
        do {
            let clientID = query["client_id"].map(String.init) ?? flow.defaultClient
            guard let clientID, !clientID.isEmpty else {
                throw PageProblem("This page needs a client_id parameter naming the app that opened it.")
            }
            guard let client = try await service.store.clients.find(id: clientID) else {
                throw PageProblem("The app “\(clientID)” is not registered with this service (unknown client_id).")
            }
            let locale = query["locale"].map(String.init) ?? flow.locale
            guard Self.isLanguageTag(locale) else {
                throw PageProblem("The locale “\(locale)” is not a language tag such as en-US.")
            }
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
            return ErrorPage.response(status: .badRequest, title: "This page cannot open", message: problem.message)
        }
    }
}

extension FlowPageController {
    /// A simple BCP 47 shape: 2-3 letters, then up to three 2-8 character alphanumeric subtags.
    static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter }), parts.count <= 4
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }
}

/// Why a page cannot be shown to this caller.
struct PageProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// HTML responses, including the small pages that say what went wrong (never a blank page).
enum ErrorPage {
    static func html(_ body: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func response(status: HTTPResponse.Status, title: String, message: String) -> Response {
        html(
            """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <meta name="color-scheme" content="light dark">\
            <title>\(HTML.escape(title))</title><link rel="stylesheet" href="/flows/assets/capture.css"></head>\
            <body><main class="capture_error_page"><h1>\(HTML.escape(title))</h1>\
            <p>\(HTML.escape(message))</p><p class="capture_error_status">HTTP \(status.code)</p></main></body></html>
            """, status: status)
    }
}
