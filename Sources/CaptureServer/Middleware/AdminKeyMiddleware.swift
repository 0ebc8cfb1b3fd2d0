import CaptureCore
import Hummingbird

/// Admin routes answer only a valid admin key (`Authorization: Bearer cbk_…`); the key's id becomes the actor of
/// what the request does. One refusal for a missing, malformed, unknown or revoked key: 401 with a challenge.
struct AdminKeyMiddleware: RouterMiddleware {
    typealias Context = CaptureRequestContext
    let admin: AdminService

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var presented: String?
        if let header = request.headers.value(.authorization), header.lowercased().hasPrefix("bearer ") {
            presented = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }
        let key = try await admin.authenticateAdmin(presented)
        var context = context
        context.adminKeyID = key.id
        return try await next(request, context)
    }
}
