import CaptureCore
import Hummingbird

/// The admin API (`/admin/v1/…`): tokens, users, clients and the audit log for operators and support tools.
/// Each handler reads its input, calls the database console as the request's admin key, and sends its view (`AdminViews`);
/// errors are RFC 9457 problem details (the group's `ErrorReplyMiddleware`).
struct AdminController {
    let features: CaptureFeatures

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        let admin = router.group("/admin/v1")
        admin.get("/tokens") { request, context in
            let query = try AdminRequest.query(request, allowed: ["user", "client", "kind", "state", "limit", "offset"])
            return try Reply.view(
                try await console(context).tokens(
                    TokenQuery(
                        user: query["user"], client: query["client"], kind: query["kind"], state: query["state"],
                        page: try AdminRequest.page(query))
                ))
        }
        admin.post("/tokens/introspect") { request, context in
            let body = try await AdminRequest.body(request, limit: limit)
            try AdminRequest.refuseUnknown(body, allowed: ["token"])
            guard let token = try AdminRequest.string(body, "token"), !token.isEmpty else {
                throw CaptureError.missingArgument("token")
            }
            return try Reply.view(try await console(context).introspect(token))
        }
        admin.post("/tokens/purge-expired") { _, context in try Reply.view(try await console(context).purgeExpiredTokens()) }
        admin.get("/tokens/:token") { _, context in
            try Reply.view(try await console(context).token(try AdminRequest.reference(context, "token")))
        }
        admin.post("/tokens/:token/revoke") { _, context in
            try Reply.view(try await console(context).revokeToken(try AdminRequest.reference(context, "token")))
        }
        addUserRoutes(to: admin)
        addClientRoutes(to: admin)
        admin.get("/audit") { request, context in
            let query = try AdminRequest.query(request, allowed: ["actor", "action", "target", "limit", "offset"])
            return try Reply.view(
                try await console(context).audit(
                    AuditFilter(
                        actor: query["actor"], action: query["action"], target: query["target"],
                        page: try AdminRequest.page(query))
                ))
        }
    }

    private func addUserRoutes(to admin: RouterGroup<CaptureRequestContext>) {
        admin.get("/users") { request, context in
            let query = try AdminRequest.query(request, allowed: ["search", "limit", "offset"])
            return try Reply.view(
                try await console(context).users(UserQuery(search: query["search"], page: try AdminRequest.page(query))))
        }
        admin.get("/users/:user") { _, context in
            try Reply.view(try await console(context).user(try AdminRequest.reference(context, "user")))
        }
        admin.delete("/users/:user") { _, context in
            try Reply.view(try await console(context).deleteUser(try AdminRequest.reference(context, "user")))
        }
        admin.post("/users/:user/disable") { _, context in
            try Reply.view(try await console(context).setDisabled(try AdminRequest.reference(context, "user"), true))
        }
        admin.post("/users/:user/enable") { _, context in
            try Reply.view(try await console(context).setDisabled(try AdminRequest.reference(context, "user"), false))
        }
        admin.post("/users/:user/deactivate") { _, context in
            try Reply.view(try await console(context).deactivateUser(try AdminRequest.reference(context, "user")))
        }
        admin.post("/users/:user/reactivate") { _, context in
            try Reply.view(try await console(context).reactivateUser(try AdminRequest.reference(context, "user")))
        }
        admin.get("/users/:user/export") { _, context in
            try Reply.view(try await console(context).exportUser(try AdminRequest.reference(context, "user")))
        }
        admin.post("/users/:user/reset-factors") { _, context in
            try Reply.view(try await console(context).resetFactors(try AdminRequest.reference(context, "user")))
        }
        admin.post("/users/:user/sign-out") { _, context in
            try Reply.view(try await console(context).revokeTokens(ofUser: try AdminRequest.reference(context, "user")))
        }
    }

    private func addClientRoutes(to admin: RouterGroup<CaptureRequestContext>) {
        admin.get("/clients") { _, context in try Reply.view(try await console(context).clients()) }
        admin.post("/clients") { request, context in
            let body = try await AdminRequest.body(request, limit: limit)
            try AdminRequest.refuseUnknown(
                body,
                allowed: [
                    "client_id", "name", "confidential", "redirect_uris", "allowed_origins", "response_types", "legacy_token_url",
                    "site_name", "verify_email_url", "password_recover_url",
                ])
            guard let id = try AdminRequest.string(body, "client_id") else { throw CaptureError.missingArgument("client_id") }
            var draft = ClientDraft(id: id)
            draft.name = try AdminRequest.string(body, "name")
            draft.confidential = try AdminRequest.bool(body, "confidential") ?? false
            draft.redirectURIs = try AdminRequest.strings(body, "redirect_uris") ?? []
            draft.allowedOrigins = try AdminRequest.strings(body, "allowed_origins") ?? []
            draft.responseTypes = try AdminRequest.strings(body, "response_types") ?? []
            draft.legacyTokenURL = try AdminRequest.bool(body, "legacy_token_url") ?? false
            draft.pages = ClientPages(
                siteName: try AdminRequest.string(body, "site_name"),
                verifyEmailURL: try AdminRequest.string(body, "verify_email_url"),
                passwordRecoverURL: try AdminRequest.string(body, "password_recover_url"))
            return try Reply.view(try await console(context).addClient(draft), status: .created)
        }
        admin.get("/clients/:client") { _, context in
            try Reply.view(try await console(context).client(try AdminRequest.reference(context, "client")))
        }
        admin.patch("/clients/:client") { request, context in
            let body = try await AdminRequest.body(request, limit: limit)
            try AdminRequest.refuseUnknown(
                body,
                allowed: [
                    "name", "redirect_uris", "allowed_origins", "response_types", "legacy_token_url", "site_name",
                    "verify_email_url", "password_recover_url",
                ])
            var change = ClientChange()
            change.name = try AdminRequest.string(body, "name")
            change.redirectURIs = try AdminRequest.strings(body, "redirect_uris")
            change.allowedOrigins = try AdminRequest.strings(body, "allowed_origins")
            change.responseTypes = try AdminRequest.strings(body, "response_types")
            change.legacyTokenURL = try AdminRequest.bool(body, "legacy_token_url")
            change.siteName = try AdminRequest.string(body, "site_name")
            change.verifyEmailURL = try AdminRequest.string(body, "verify_email_url")
            change.passwordRecoverURL = try AdminRequest.string(body, "password_recover_url")
            return try Reply.view(try await console(context).updateClient(try AdminRequest.reference(context, "client"), change))
        }
        admin.delete("/clients/:client") { _, context in
            try Reply.view(try await console(context).removeClient(try AdminRequest.reference(context, "client")))
        }
        admin.post("/clients/:client/rotate-secret") { _, context in
            try Reply.view(try await console(context).rotateClientSecret(try AdminRequest.reference(context, "client")))
        }
        admin.post("/clients/:client/revoke-tokens") { _, context in
            try Reply.view(try await console(context).revokeTokens(ofClient: try AdminRequest.reference(context, "client")))
        }
    }

    private var limit: Int { features.settings.maxBodyBytes }

    /// The console acting as the request's admin key (set by `AdminKeyMiddleware`).
    private func console(_ context: CaptureRequestContext) throws -> DatabaseAdminConsole {
        guard let key = context.adminKeyID else { throw CaptureError.adminKeyRequired }
        return DatabaseAdminConsole(features: features, actor: .adminKey(key))
    }
}
