import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// The drop-in for Janrain's loader (docs/janrain-migration.md): `GET /load/{appId}` and `GET /{path}/load.js` serve
/// janrain-load.js, which a customer's Janrain page loads instead of Janrain's; `GET /flows/{flow}/widget.json`
/// is the flow such a page renders its screens from, with the service's settings and the widget's texts.
struct DropInController {
    let flowPages: FlowPageService
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let providers: SocialProviders
    let pages: FlowPages

    /// The catalog texts the widget shows beyond its own (`widget.*`) on a customer's page.
    static let texts = ["social.continueWith", "social.link"]

    func addLoaderRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        // Any app id: a customer's pages name their Janrain application, which this service stands in for.
        router.get("/load/:appId", use: loader)
        router.get("/load.js", use: loader)
        router.get("/:path/load.js", use: loader)
    }

    func addFlowRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.get("/flows/:flow/widget.json", use: widgetFlow)
    }

    @Sendable func loader(_ request: Request, context: CaptureRequestContext) -> Response {
        pages.assets.response(for: "janrain-load.js", headers: request.headers)
            ?? ErrorPage.response(.notFound, status: .notFound, messages: context.pageMessages(request))
    }

    @Sendable func widgetFlow(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let query = try QueryFields.read(request)
        let view = try await flowPages.widgetFlow(
            named: context.parameters.get("flow") ?? "", clientID: query["client_id"], locale: query["locale"],
            acceptLanguage: request.headers.value(.acceptLanguage))
        let general = catalog.localization.messages(for: view.locale)
        let messages = view.flow.imported.map { general.overlaid(with: $0.texts(for: view.locale)) } ?? general
        let origin = settings.resolvedPublicOrigin
        let responseType = view.flow.responseType
        let settings = JanrainSettings.value(
            flow: view.flow, client: view.client, locale: view.locale, responseType: responseType, codeChallenge: nil,
            tokenURL: view.flow.tokenUrl.hasPrefix("/") ? origin + view.flow.tokenUrl : view.flow.tokenUrl,
            settings: settings, catalog: catalog, providers: providers.ordered)
        var texts = messages.texts(withPrefix: "widget.")
        for key in Self.texts { texts[key] = messages.text(key) }
        let document: JSONValue = [
            "settings": settings, "messages": .object(texts.mapValues(JSONValue.string)),
            "flow": catalog.widgetFlow(
                view.flow, messages: messages, fallbackFor: view.isFallback ? context.parameters.get("flow") : nil),
            "clientSettings": .object(
                view.pages.janrainClientSettings.mapValues(JSONValue.string)),
        ]
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document.encodedBytes())))
    }
}
