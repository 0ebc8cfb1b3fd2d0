import CaptureCore
import Hummingbird

/// The admin API (`/admin/v1/…`): tokens, users, clients and the audit log for operators and support tools. Every
/// route is an entry of `AdminOperations`: its input read into an `AdminCall` (path references, the query of a read,
/// the JSON body of a change), performed by the database console as the request's admin key, its view sent
/// (`AdminViews`); errors are RFC 9457 problem details (the group's `ErrorReplyMiddleware`).
struct AdminController {
    let features: CaptureFeatures

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        let admin = router.group("/admin/v1")
        for operation in AdminOperations.all {
            let path = RouterPath(operation.path)
            let handler: @Sendable (Request, CaptureRequestContext) async throws -> Response = { request, context in
                let answer = try await operation.answer(try await call(operation, request, context), console: console(context))
                return try Reply.view(answer, status: HTTPResponse.Status(code: operation.status))
            }
            switch operation.method {
            case .get: admin.get(path, use: handler)
            case .post: admin.post(path, use: handler)
            case .patch: admin.patch(path, use: handler)
            case .delete: admin.delete(path, use: handler)
            }
        }
    }

    /// The operation's input as the request carries it: a read's query (only the names it takes), a change's JSON body
    /// (only the members it takes; none read when it takes none).
    private func call(
        _ operation: any AdminRoute, _ request: Request, _ context: CaptureRequestContext
    ) async throws -> AdminCall {
        var call = AdminCall()
        for name in operation.references { call.references[name] = try AdminRequest.reference(context, name) }
        guard !operation.fields.isEmpty else { return call }
        if operation.method == .get {
            call.query = try AdminRequest.query(request, allowed: operation.fields)
        } else {
            call.body = try await AdminRequest.body(request, limit: features.settings.maxBodyBytes)
            try AdminRequest.refuseUnknown(call.body, allowed: operation.fields)
        }
        return call
    }

    /// The console acting as the request's admin key (set by `AdminKeyMiddleware`).
    private func console(_ context: CaptureRequestContext) throws -> DatabaseAdminConsole {
        guard let key = context.adminKeyID else { throw CaptureError.adminKeyRequired }
        return DatabaseAdminConsole(features: features, actor: .adminKey(key))
    }
}
