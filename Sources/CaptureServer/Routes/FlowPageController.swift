import CaptureCore
import Foundation
import Hummingbird

/// `GET /flows/{flowName}` (the web-view pages), `GET /flows/assets/{file}` and `GET /flows/themes/{file}`.
struct FlowPageController {
    let flowPages: FlowPageService
    let catalog: FlowCatalog
    let settings: ServiceSettings
    let providers: SocialProviders
    let pages: FlowPages
    var themes: ClientThemes = .none
    let rendered = RenderedPages()

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        // By name (revalidated: what customers' pages and old pages name) or by content-addressed name
        // (`<name>.<hash>.<ext>`, kept for good: what the service's pages name), docs/adr/0070.
        router.get("/flows/assets/:file") { request, context in
            pages.assets.response(for: context.parameters.get("file") ?? "", headers: request.headers)
                ?? ErrorPage.response(.notFound, status: .notFound, messages: context.pageMessages(request))
        }
        router.get("/flows/themes/:file") { request, context in
            themes.response(for: context.parameters.get("file") ?? "", headers: request.headers)
                ?? ErrorPage.response(.notFound, status: .notFound, messages: context.pageMessages(request))
        }
        router.get("/flows/:flow", use: page)
    }

    /// The page's rules are `FlowPageService.flowPage`'s; a refusal becomes an error page in the group's middleware.
    @Sendable func page(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let name = context.parameters.get("flow") ?? ""
        let query = try QueryFields.read(request)
        let view = try await flowPages.flowPage(
            FlowPageQuery(flow: name, query: query, acceptLanguage: request.headers.value(.acceptLanguage)),
            hasTemplate: { pages.templates[$0] != nil })
        // What is rendered once per view (the template in its language, the settings) is looked up only then.
        let page = try rendered.page(for: view) {
            let messages = catalog.localization.messages(for: view.locale)
            guard let template = pages.template(name, in: messages) else { throw FlowPageRefusal.noSuchFlow(name) }
            let json = JanrainSettings.json(
                flow: view.flow, client: view.client, locale: view.locale, responseType: view.responseType,
                codeChallenge: view.codeChallenge, tokenURL: view.tokenURL, settings: settings,
                catalog: catalog, providers: providers.ordered, appReturnURI: view.appReturnURI)
            let theme = themes.page(for: view.client.clientID)
            return (
                template.render(settingsJSON: json, locale: view.locale, clientID: view.client.clientID, theme: theme),
                template.contentSecurityPolicy(theme: theme)
            )
        }
        return page.response(headers: request.headers)
    }
}
