import CaptureCore
import CaptureJSON
import Foundation

/// Every flow's template expanded once per locale, plus the static assets, loaded from WebFlows/ once at start-up.
struct FlowPages: Sendable {
    /// Flow name → catalog tag (`Settings/locales`) → the page in that language.
    let templates: [String: [String: FlowTemplate]]
    let assets: StaticAssets

    /// The page of `flow` in the language of `messages` (its most specific catalog).
    func template(_ flow: String, in messages: Messages) -> FlowTemplate? {
        templates[flow]?[messages.tag] ?? templates[flow]?[Localization.defaultTag]
    }

    static func load(webFlows directory: String, catalog: FlowCatalog, providers: [SocialProvider] = []) throws -> FlowPages {
        let root = URL(fileURLWithPath: directory)
        let assets = try StaticAssets.load(directory: root.appendingPathComponent("assets"))
        var templates: [String: [String: FlowTemplate]] = [:]
        for flow in catalog.pageFlows {
            let url = root.appendingPathComponent("pages").appendingPathComponent(flow.page)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw SettingsError(file: "flows/\(flow.name).json", key: "page", problem: "template \(url.path) cannot be read")
            }
            // Written with /flows/assets/<name>; served with the content-addressed URLs (docs/adr/0070); the first
            // screen's script and styles in the page itself (docs/adr/0073).
            let (included, inline) = try InlineAssets.expand(
                assets.addressing(
                    try FlowTemplate.include(text, file: url.path, partials: root.appendingPathComponent("pages/partials"))),
                file: url.path, assets: assets)
            for tag in catalog.localization.tags {
                let messages = catalog.localization.messages(for: tag)
                let signIn = try SocialButtons.html(providers, assets: assets, for: .signIn, messages: messages)
                let link = try SocialButtons.html(providers, assets: assets, for: .link, messages: messages)
                let whole = SocialButtons.place(link, for: .link, in: SocialButtons.place(signIn, for: .signIn, in: included))
                var template = try FlowTemplate.expand(whole, file: url.path, flow: flow, catalog: catalog, messages: messages)
                template.inline = inline
                templates[flow.name, default: [:]][tag] = template
            }
        }
        return FlowPages(templates: templates, assets: assets)
    }
}

/// The provider buttons, rendered once at start-up from the providers the service discovered: sign-in buttons where
/// a page writes Janrain's `{| loginWidget |}`, buttons that link a provider account to the signed-in user where it
/// writes `{| linkAccountWidget |}` (ours). No provider, no section: the tag (and its line) goes away.
enum SocialButtons {
    enum Purpose {
        case signIn, link

        var tag: NSRegularExpression { self == .signIn ? SocialButtons.loginTag : SocialButtons.linkTag }
    }

    /// One `<button>` per provider (its name in `data-capture-provider`, and `data-capture-link` on link buttons; the
    /// widget turns a tap into the redirect), the configured icon (an asset of WebFlows/assets) decorative beside the
    /// accessible name "Continue with …" / "Link …".
    static func html(
        _ providers: [SocialProvider], assets: StaticAssets, for purpose: Purpose, messages: Messages
    ) throws -> String {
        guard !providers.isEmpty else { return "" }
        var items: [String] = []
        for provider in providers {
            let settings = provider.settings
            var icon = ""
            if let path = settings.icon, !path.isEmpty {
                let name = path.hasPrefix("assets/") ? String(path.dropFirst("assets/".count)) : path
                guard let src = assets.path(of: name), !name.contains("/"), name.hasSuffix(".svg") || name.hasSuffix(".png")
                else {
                    throw SettingsError(
                        file: "service.json", key: "socialProviders.\(settings.name).icon",
                        problem: "'\(path)' is not an image in WebFlows/assets (.svg or .png)")
                }
                icon =
                    "<img class=\"capture_provider_icon\" src=\"\(HTML.escape(src))\" alt=\"\" width=\"24\" height=\"24\">"
            }
            let name = HTML.escape(settings.name)
            let label = HTML.escape(
                messages.text(purpose == .signIn ? "social.continueWith" : "social.link", ["provider": settings.displayName]))
            items.append(
                purpose == .signIn
                    ? "<li><button type=\"button\" class=\"capture_btn capture_provider\" data-capture-provider=\"\(name)\">"
                        + icon + "<span>\(label)</span></button></li>"
                    : "<li><button type=\"button\" class=\"capture_btn capture_provider\" data-capture-provider=\"\(name)\" "
                        + "data-capture-link>" + icon + "<span>\(label)</span></button></li>")
        }
        // A display name is text: nothing in it may read as a template tag when the page is expanded next.
        let html =
            purpose == .signIn
            ? """
            <div class="capture_social" data-capture-social>\
            <p class="capture_divider"><span>\(HTML.escape(messages.text("social.or")))</span></p>\
            <ul class="capture_providers" aria-label="\(HTML.escape(messages.text("social.otherAccount")))">\(items.joined())</ul>\
            </div>
            """
            : """
            <ul class="capture_providers" aria-label="\(HTML.escape(messages.text("social.linkAnother")))">\(items.joined())</ul>
            """
        return html.replacingOccurrences(of: "{", with: "&#123;")
    }

    static let loginTag = try! NSRegularExpression(pattern: #"[ \t]*\{\|\s*loginWidget\s*\|\}[ \t]*\n?"#)
    static let linkTag = try! NSRegularExpression(pattern: #"[ \t]*\{\|\s*linkAccountWidget\s*\|\}[ \t]*\n?"#)

    /// Replaces every tag of `purpose` with the buttons (or nothing).
    static func place(_ buttons: String, for purpose: Purpose, in template: String) -> String {
        let replacement = buttons.isEmpty ? "" : buttons + "\n"
        return purpose.tag.stringByReplacingMatches(
            in: template, range: NSRange(template.startIndex..., in: template),
            withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
    }
}

/// The `window.janrain.settings` values of one page view (docs/contract.md §2); the page script adds `capture.redirectUri`.
enum JanrainSettings {
    static func json(
        flow: FlowDefinition, client: Client, locale: String, responseType: ResponseType, codeChallenge: String?,
        tokenURL: String, settings: ServiceSettings, catalog: FlowCatalog, providers: [SocialProvider] = [],
        appReturnURI: String? = nil
    ) -> String {
        String(
            decoding: value(
                flow: flow, client: client, locale: locale, responseType: responseType, codeChallenge: codeChallenge,
                tokenURL: tokenURL, settings: settings, catalog: catalog, providers: providers, appReturnURI: appReturnURI
            ).encoded(), as: UTF8.self)
    }

    static func value(
        flow: FlowDefinition, client: Client, locale: String, responseType: ResponseType, codeChallenge: String?,
        tokenURL: String, settings: ServiceSettings, catalog: FlowCatalog, providers: [SocialProvider] = [],
        appReturnURI: String? = nil
    ) -> JSONValue {
        var capture: [String: JSONValue] = [
            "redirectFlow": true,
            "captureServer": .string(settings.resolvedPublicOrigin),
            "appId": .string(settings.appID),
            "clientId": .string(client.clientID),
            "responseType": .string(responseType.rawValue),
            "flowName": .string(flow.name),
            "flowVersion": .string(flow.flowVersion),
            "registerFlow": .string(flow.registerFlow),
            "locale": .string(locale),
        ]
        if let screen = flow.screenToRender { capture["screenToRender"] = .string(screen) }
        // Janrain's flag: a first social sign-in whose profile is enough makes the account without a form.
        capture["thinRegistration"] = .bool(flow.thinRegistration ?? true)
        // Ours: the days between deleting an account and its erasure, for the confirmation's words.
        capture["accountDeletionGraceDays"] = .double(settings.erasureGraceDays)
        // Ours: the documents registration asks to accept, in the page's language (`LegalTerms`).
        capture["legalDocuments"] = .array(
            LegalTerms(documents: settings.legalDocuments).required(for: client.clientID).map { document in
                [
                    "id": .string(document.id), "version": .string(document.version),
                    "title": .string(document.title(for: locale)), "url": .string(document.url),
                ]
            })
        // Set: provider buttons hand the provider's URL to the host instead of leaving the page.
        if let appReturnURI { capture["appReturnUri"] = .string(appReturnURI) }
        if let codeChallenge {
            capture["codeChallenge"] = .string(codeChallenge)
            capture["codeChallengeMethod"] = "S256"
        }
        // Ours: each form's call and the record attribute of each field (FormEndpoint, forms.json), so the widget
        // keeps no copy of either.
        capture["forms"] = .object(catalog.widgetForms(of: flow))
        let value: JSONValue = [
            "popup": false,
            "type": "embed",
            "tokenAction": "url",
            "tokenUrl": .string(tokenURL),
            "packages": ["login", "capture"],
            "language": .string(locale),
            "capture": .object(capture),
            "bridge": ["legacyTokenUrl": .bool(client.legacyTokenURL)],
            // Janrain's list of provider names, and what the page calls each (for its messages).
            "providers": .array(providers.map { .string($0.name) }),
            "providerNames": .object(
                Dictionary(providers.map { ($0.name, JSONValue.string($0.settings.displayName)) }) { a, _ in a }),
        ]
        return value
    }
}
