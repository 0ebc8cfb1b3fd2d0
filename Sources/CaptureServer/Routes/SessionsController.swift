import CaptureCore
import CaptureJSON
import Foundation
import Hummingbird

/// The person's sessions in the Capture API's style: the list, one signed out, every other one signed out. Decode,
/// call one use case, encode.
struct SessionsController {
    let privacy: PrivacyService
    let settings: ServiceSettings

    func addRoutes(to router: some RouterMethods<CaptureRequestContext>) {
        router.post("/sessions", use: list)
        router.post("/sessions/end", use: end)
        router.post("/sessions/end_others", use: endOthers)
    }

    private func parameters(_ request: Request, _ own: Set<String>) async throws -> [String: String] {
        try await FactorsController.parameters(request, own, limit: settings.maxBodyBytes)
    }

    @Sendable func list(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token"])
        let sessions = try await privacy.sessions(accessToken: APIRequest.accessToken(request, parameters: parameters))
        return Reply.ok(["sessions": .array(sessions.map(Self.view))])
    }

    @Sendable func end(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token", "session"])
        let revoked = try await privacy.endSession(
            accessToken: APIRequest.accessToken(request, parameters: parameters), id: parameters["session"])
        return Reply.ok(["revoked": .int(Int64(revoked))])
    }

    @Sendable func endOthers(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await parameters(request, ["access_token"])
        let revoked = try await privacy.endOtherSessions(
            accessToken: APIRequest.accessToken(request, parameters: parameters))
        return Reply.ok(["revoked": .int(Int64(revoked))])
    }

    static func view(_ listing: SessionListing) -> JSONValue {
        let session = listing.session
        return [
            "id": .string(session.id), "client_id": .string(session.clientID), "client_name": .string(listing.clientName),
            "device": .optional(session.device),
            "created": .string(CaptureDate.format(session.createdAt)),
            "last_used": .string(CaptureDate.format(session.lastUsedAt)), "current": .bool(session.current),
        ]
    }
}
