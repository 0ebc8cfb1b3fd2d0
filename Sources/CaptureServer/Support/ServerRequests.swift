import CaptureCore
import Hummingbird

/// Reads a call to Janrain's server API: its form parameters and the credentials it presents — HTTP Basic,
/// `Authorization: Signature id:signature` with `Date`, a user's `OAuth`/`Bearer` token, or the `client_id` and
/// `client_secret` (or `access_token`) parameters — which are taken out of the parameters a signature covers.
enum ServerRequests {
    static func read(
        _ request: Request, context: CaptureRequestContext, proxies: TrustedProxies, limit: Int, allowed: Set<String>
    ) async throws -> ServerRequest {
        var parameters = try await APIRequest.parameters(request, limit: limit)
        let credentials = try credentials(request, parameters: parameters)
        for name in ServerRequest.credentialParameters { parameters[name] = nil }
        try CaptureAPIController.refuseUnknown(parameters, allowed: allowed)
        return ServerRequest(
            path: request.uri.path, parameters: parameters, credentials: credentials,
            remoteAddress: APIRequest.origin(request, context: context, proxies: proxies).address)
    }

    static func credentials(_ request: Request, parameters: [String: String]) throws -> ServerRequest.Credentials {
        if let header = request.headers.value(.authorization) {
            if let basic = try BasicCredentials.parse(header) {
                guard let id = basic.id, let secret = basic.secret else { throw CaptureError.invalidClient }
                ChangeOrigin.note(client: id)
                return .secret(clientID: id, secret: secret)
            }
            if header.hasPrefix("Signature ") {
                let value = header.dropFirst("Signature ".count).trimmingCharacters(in: .whitespaces)
                guard let colon = value.firstIndex(of: ":") else {
                    throw CaptureError.invalidArgument("Authorization", "must be 'Signature client_id:signature'")
                }
                guard let date = request.headers.value(.date) else {
                    throw CaptureError.notPermitted("a signed request carries the Date it signed")
                }
                return .signed(
                    clientID: String(value[..<colon]), signature: String(value[value.index(after: colon)...]), date: date)
            }
            if let token = APIRequest.accessToken(request, parameters: [:]) { return .accessToken(token) }
            throw CaptureError.invalidArgument("Authorization", "takes Basic, Signature, OAuth or Bearer")
        }
        if let id = parameters["client_id"], let secret = parameters["client_secret"] {
            return .secret(clientID: id, secret: secret)
        }
        if let token = parameters["access_token"] { return .accessToken(token) }
        if let id = parameters["client_id"], let token = parameters["creation_token"] {
            return .creationToken(clientID: id, token: token)
        }
        // An id without a secret (an app's public client): refused as a wrong secret.
        if let id = parameters["client_id"] { return .secret(clientID: id, secret: "") }
        if parameters["client_secret"] != nil { throw CaptureError.missingArgument("client_id") }
        return .none
    }
}
