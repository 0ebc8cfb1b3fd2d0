import CaptureCore
import Foundation
import Hummingbird

/// The standard OAuth endpoints (RFC 6749 token, RFC 7009 revocation), errors in RFC 6749 §5.2 shape.
struct OAuthController {
    let service: CaptureService

    func addRoutes(to router: Router<CaptureRequestContext>) {
        router.post("/oauth/token", use: Handle.oauth(token))
        router.post("/oauth/revoke", use: Handle.oauth(revoke))
    }

    @Sendable func token(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: service.settings.maxBodyBytes)
        let (clientID, secret) = try Self.clientCredentials(request, parameters)
        switch parameters["grant_type"] {
        case nil, "": throw CaptureError.missingArgument("grant_type")
        case "refresh_token":
            let grant = try await service.refresh(
                refreshToken: parameters["refresh_token"], clientID: clientID, clientSecret: secret)
            return Reply.ok([
                "access_token": .string(grant.accessToken), "token_type": .string(grant.tokenType),
                "expires_in": .int(Int64(grant.expiresIn)), "refresh_token": .string(grant.refreshToken),
            ])
        case let other?:
            throw CaptureError.unsupportedGrantType(other)
        }
    }

    @Sendable func revoke(_ request: Request, context: CaptureRequestContext) async throws -> Response {
        let parameters = try await APIRequest.parameters(request, limit: service.settings.maxBodyBytes)
        let (clientID, secret) = try Self.clientCredentials(request, parameters)
        try await service.revoke(token: parameters["token"], clientID: clientID, clientSecret: secret)
        return Reply.json([:])
    }

    /// HTTP Basic (RFC 6749 §2.3.1, form-encoded id and secret) or `client_id` [+ `client_secret`] in the body;
    /// using both is refused.
    static func clientCredentials(_ request: Request, _ parameters: [String: String]) throws -> (String?, String?) {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") else {
            return (parameters["client_id"], parameters["client_secret"])
        }
        guard parameters["client_secret"] == nil,
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let decoded = String(data: data, encoding: .utf8), let colon = decoded.firstIndex(of: ":")
        else { throw CaptureError.invalidClient }
        let id = String(decoded[..<colon]).removingPercentEncoding
        let secret = String(decoded[decoded.index(after: colon)...]).removingPercentEncoding
        if let formID = parameters["client_id"], formID != id { throw CaptureError.invalidClient }
        return (id, secret)
    }
}
