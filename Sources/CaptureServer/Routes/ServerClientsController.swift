import CaptureCore
import CaptureJSON
import Hummingbird

/// Janrain's `clients/*` and `settings/*` on the server API: read the call, let `ServerAuthentication` decide who
/// may make it, let `ClientSettingsService` answer, add `stat`.
struct ServerClientsController {
    let authentication: ServerAuthentication
    let clientSettings: ClientSettingsService
    let settings: ServiceSettings
    let proxies: TrustedProxies

    typealias Call = @Sendable (ClientSettingsService, Client, [String: String]) async throws -> JSONValue

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        let clients: [(String, Set<String>, Call)] = [
            ("list", ["has_features"], { try await $0.listClients(by: $1, hasFeatures: $2["has_features"]) }),
            (
                "add", ["description", "features"],
                { try await $0.addClient(by: $1, description: $2["description"], features: $2["features"]) }
            ),
            (
                "delete", ["client_id_for_deletion"],
                { try await $0.deleteClient(by: $1, clientIDForDeletion: $2["client_id_for_deletion"]) }
            ),
            (
                "set_features", ["for_client_id", "features"],
                { try await $0.setFeatures(by: $1, forClientID: $2["for_client_id"], features: $2["features"]) }
            ),
            (
                "set_description", ["for_client_id", "description"],
                { try await $0.setDescription(by: $1, forClientID: $2["for_client_id"], description: $2["description"]) }
            ),
            (
                "set_whitelist", ["for_client_id", "whitelist"],
                { try await $0.setWhitelist(by: $1, forClientID: $2["for_client_id"], whitelist: $2["whitelist"]) }
            ),
            (
                "reset_secret", ["for_client_id", "hours_to_live"],
                { try await $0.resetSecret(by: $1, forClientID: $2["for_client_id"], hoursToLive: $2["hours_to_live"]) }
            ),
        ]
        for (name, parameters, call) in clients {
            router.post(RouterPath("/clients/\(name)"), use: handler(parameters, ownSettings: false, call))
        }
        // A client's own settings are its own; the defaults and all clients' are the owner's.
        let own: [(String, Set<String>, Call)] = [
            ("items", ["for_client_id"], { try await $0.items(by: $1, forClientID: $2["for_client_id"]) }),
            ("get", ["for_client_id", "key"], { try await $0.get(by: $1, key: $2["key"], forClientID: $2["for_client_id"]) }),
            (
                "get_multi", ["for_client_id", "keys"],
                { try await $0.getMulti(by: $1, keys: $2["keys"], forClientID: $2["for_client_id"]) }
            ),
            (
                "set", ["for_client_id", "key", "value"],
                { try await $0.set(by: $1, key: $2["key"], value: $2["value"], forClientID: $2["for_client_id"]) }
            ),
            (
                "set_multi", ["for_client_id", "items"],
                { try await $0.setMulti(by: $1, items: $2["items"], forClientID: $2["for_client_id"]) }
            ),
            (
                "delete", ["for_client_id", "key"],
                { try await $0.delete(by: $1, key: $2["key"], forClientID: $2["for_client_id"]) }
            ),
        ]
        let defaults: [(String, Set<String>, Call)] = [
            ("set_default", ["key", "value"], { try await $0.setDefault(by: $1, key: $2["key"], value: $2["value"]) }),
            ("delete_default", ["key"], { try await $0.deleteDefault(by: $1, key: $2["key"]) }),
            ("get_all", [], { service, caller, _ in try await service.getAll(by: caller) }),
        ]
        for (name, parameters, call) in own {
            router.post(RouterPath("/settings/\(name)"), use: handler(parameters, ownSettings: true, call))
        }
        for (name, parameters, call) in defaults {
            router.post(RouterPath("/settings/\(name)"), use: handler(parameters, ownSettings: false, call))
        }
    }

    func handler(
        _ parameters: Set<String>, ownSettings: Bool, _ call: @escaping Call
    )
        -> @Sendable (Request, CaptureRequestContext) async throws -> Response
    {
        { [authentication, clientSettings, settings, proxies] request, context in
            let server = try await ServerRequests.read(
                request, context: context, proxies: proxies, limit: settings.maxBodyBytes, allowed: parameters)
            let caller = try await authentication.administrator(server, ownSettingsOnly: ownSettings)
            guard case .object(let members) = try await call(clientSettings, caller, server.parameters) else {
                return Reply.ok()
            }
            return Reply.ok(members)
        }
    }
}
