import CaptureCore
import Foundation

/// Every flow's expanded template plus the static assets, loaded from WebFlows/ once at start-up.
struct FlowPages: Sendable {
    let templates: [String: FlowTemplate]
    let assets: StaticAssets

    static func load(webFlows directory: String, catalog: FlowCatalog) throws -> FlowPages {
        let root = URL(fileURLWithPath: directory)
        var templates: [String: FlowTemplate] = [:]
        for flow in catalog.flows.values {
            let url = root.appendingPathComponent("pages").appendingPathComponent(flow.page)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw SettingsError(file: "flows/\(flow.name).json", key: "page", problem: "template \(url.path) cannot be read")
            }
            let whole = try FlowTemplate.include(text, file: url.path, partials: root.appendingPathComponent("pages/partials"))
            templates[flow.name] = try FlowTemplate.expand(whole, file: url.path, flow: flow, catalog: catalog)
        }
        return FlowPages(templates: templates, assets: try StaticAssets.load(directory: root.appendingPathComponent("assets")))
    }
}

/// The `window.janrain.settings` values of one page view (SPEC §2); the page script adds `capture.redirectUri`.
enum JanrainSettings {
    static func json(
        flow: FlowDefinition, client: Client, locale: String, responseType: String, codeChallenge: String?,
        tokenURL: String, settings: ServiceSettings
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
        ]
        return String(decoding: value.encoded(), as: UTF8.self)
    }
}
