import CaptureCore
import Foundation

/// Every flow's expanded template plus the static assets, loaded from WebFlows/ once at start-up.
struct FlowPages: Sendable {
    let templates: [String: FlowTemplate]
    let assets: StaticAssets

    static func load(webFlows directory: String, catalog: FlowCatalog, providers: [SocialProvider] = []) throws -> FlowPages {
        let root = URL(fileURLWithPath: directory)
        let assets = try StaticAssets.load(directory: root.appendingPathComponent("assets"))
        let buttons = try SocialButtons.html(providers, assets: assets)
        var templates: [String: FlowTemplate] = [:]
        for flow in catalog.flows.values {
            let url = root.appendingPathComponent("pages").appendingPathComponent(flow.page)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw SettingsError(file: "flows/\(flow.name).json", key: "page", problem: "template \(url.path) cannot be read")
            }
            let included = try FlowTemplate.include(text, file: url.path, partials: root.appendingPathComponent("pages/partials"))
            let whole = SocialButtons.place(buttons, in: included)
            templates[flow.name] = try FlowTemplate.expand(whole, file: url.path, flow: flow, catalog: catalog)
        }
        return FlowPages(templates: templates, assets: assets)
    }
}

/// The social sign-in buttons, rendered once at start-up from the providers the service discovered, where a page
/// writes Janrain's `{| loginWidget |}`. No provider, no section: the tag (and its line) goes away.
enum SocialButtons {
    /// One `<button>` per provider (its name in `data-capture-provider`; the widget turns a tap into the redirect),
    /// the configured icon (an asset of WebFlows/assets) decorative beside the accessible name "Continue with …".
    static func html(_ providers: [SocialProvider], assets: StaticAssets) throws -> String {
        guard !providers.isEmpty else { return "" }
        var items: [String] = []
        for provider in providers {
            let settings = provider.settings
            var icon = ""
            if let path = settings.icon, !path.isEmpty {
                let name = path.hasPrefix("assets/") ? String(path.dropFirst("assets/".count)) : path
                guard assets.assets[name] != nil, !name.contains("/"), name.hasSuffix(".svg") || name.hasSuffix(".png") else {
                    throw SettingsError(
                        file: "service.json", key: "socialProviders.\(settings.name).icon",
                        problem: "'\(path)' is not an image in WebFlows/assets (.svg or .png)")
                }
                icon = "<img class=\"capture_provider_icon\" src=\"/flows/assets/\(HTML.escape(name))\" alt=\"\" width=\"24\" height=\"24\">"
            }
            items.append(
                "<li><button type=\"button\" class=\"capture_btn capture_provider\" data-capture-provider=\"\(HTML.escape(settings.name))\">"
                    + icon + "<span>Continue with \(HTML.escape(settings.displayName))</span></button></li>")
        }
        // A display name is text: nothing in it may read as a template tag when the page is expanded next.
        let html = """
            <div class="capture_social" data-capture-social>\
            <p class="capture_divider"><span>or</span></p>\
            <ul class="capture_providers" aria-label="Sign in with another account">\(items.joined())</ul>\
            </div>
            """
        return html.replacingOccurrences(of: "{", with: "&#123;")
    }

    static let tag = try! NSRegularExpression(pattern: #"[ \t]*\{\|\s*loginWidget\s*\|\}[ \t]*\n?"#)

    /// Replaces every `{| loginWidget |}` with the buttons (or nothing).
    static func place(_ buttons: String, in template: String) -> String {
        let replacement = buttons.isEmpty ? "" : buttons + "\n"
        return tag.stringByReplacingMatches(
            in: template, range: NSRange(template.startIndex..., in: template),
            withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
    }
}

/// The `window.janrain.settings` values of one page view (SPEC §2); the page script adds `capture.redirectUri`.
enum JanrainSettings {
    static func json(
        flow: FlowDefinition, client: Client, locale: String, responseType: String, codeChallenge: String?,
        tokenURL: String, settings: ServiceSettings, providers: [SocialProvider] = [], appReturnURI: String? = nil
    ) -> String {
        var capture: [String: JSONValue] = [
            "redirectFlow": true,
            "captureServer": .string(settings.resolvedPublicOrigin),
            "appId": .string(settings.appID),
            "clientId": .string(client.clientID),
            "responseType": .string(responseType),
            "flowName": .string(flow.name),
            "flowVersion": .string(flow.flowVersion),
            "registerFlow": .string(flow.registerFlow),
            "locale": .string(locale),
        ]
        if let screen = flow.screenToRender { capture["screenToRender"] = .string(screen) }
        // Janrain's flag: a first social sign-in whose profile is enough makes the account without a form.
        capture["thinRegistration"] = .bool(flow.thinRegistration ?? true)
        // Set: provider buttons hand the provider's URL to the host instead of leaving the page.
        if let appReturnURI { capture["appReturnUri"] = .string(appReturnURI) }
        if let codeChallenge {
            capture["codeChallenge"] = .string(codeChallenge)
            capture["codeChallengeMethod"] = "S256"
        }
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
            "providerNames": .object(Dictionary(providers.map { ($0.name, JSONValue.string($0.settings.displayName)) }) { a, _ in a }),
        ]
        return String(decoding: value.encoded(), as: UTF8.self)
    }
}
