import Foundation

/// Janrain's `access/*` calls: a backend that knows a user gets a token or an authorization code for them, issued
/// to itself or to another client (`for_client_id`), or a creation token that lets a client create one record.
public struct AccessIssuing: Sendable {
    let users: any UserRepository
    let catalog: FlowCatalog
    let authentication: ServerAuthentication
    let clientAccess: ClientAccess
    let issuer: TokenIssuer
    let creationTokens: CreationTokens
    let audit: AuditTrail
}

extension AccessIssuing {
    /// `access/getAccessToken`: an access token (and its refresh token) for the selected user.
    public func accessToken(_ request: ServerRequest) async throws -> IssuedGrant {
        let (caller, user, client) = try await subject(request)
        let grant = try await issuer.issueTokens(for: user, client: client, refreshSecret: nil)
        try await audit.record(
            "token.issue", target: user.id, by: .client(caller.clientID), outcome: AuditEntry.success,
            detail: "access token for \(client.clientID)")
        return grant
    }

    /// `access/getAuthorizationCode`: a one-time code for the selected user, redeemed at `/oauth/token` by the client
    /// it is for, with the same `redirect_uri`.
    public func authorizationCode(_ request: ServerRequest) async throws -> String {
        let (caller, user, client) = try await subject(request)
        guard let redirect = request.parameters["redirect_uri"], !redirect.isEmpty else {
            throw CaptureError.missingArgument("redirect_uri")
        }
        try clientAccess.checkRedirect(redirect, for: client)
        let issued = try await issuer.issueCode(
            for: user, client: client, redirectURI: redirect, codeChallenge: nil, refreshSecret: nil)
        try await audit.record(
            "token.issue", target: user.id, by: .client(caller.clientID), outcome: AuditEntry.success,
            detail: "authorization code for \(client.clientID)")
        return issued.code
    }

    /// `access/getCreationToken`: a token with which `for_client_id` (or the caller) creates one record.
    public func creationToken(_ request: ServerRequest) async throws -> String {
        let caller = try await authentication.caller(request, for: .issueTokens)
        try RecordService.checkTypeName(request.parameters)
        let client = try await target(request, caller: caller)
        var lifetime = CreationTokens.defaultLifetime
        if let text = request.parameters["lifetime"] {
            guard let seconds = Double(text), seconds > 0, seconds <= CreationTokens.maxLifetime else {
                throw CaptureError.invalidArgument(
                    "lifetime", "must be seconds above 0 and at most \(Int(CreationTokens.maxLifetime))")
            }
            lifetime = seconds
        }
        try await audit.record(
            "token.issue", target: client.clientID, by: .client(caller.clientID), outcome: AuditEntry.success,
            detail: "creation token for \(Int(lifetime)) s")
        return creationTokens.issue(for: client.clientID, lifetime: lifetime)
    }

    /// The caller, the selected user (an active account) and the client the token is for.
    private func subject(_ request: ServerRequest) async throws -> (ServerCaller, User, Client) {
        let caller = try await authentication.caller(request, for: .issueTokens)
        try RecordService.checkTypeName(request.parameters)
        let user = try await users.find(try EntitySelector(request.parameters, schema: catalog.schema))
        guard !user.isDisabled else { throw CaptureError.accountDeactivated }
        return (caller, user, try await target(request, caller: caller))
    }

    /// `for_client_id`'s client, else the caller's.
    private func target(_ request: ServerRequest, caller: ServerCaller) async throws -> Client {
        let id = request.parameters["for_client_id"].flatMap { $0.isEmpty ? nil : $0 } ?? caller.clientID
        guard let client = try await clientAccess.registeredClient(id) else {
            throw CaptureError.invalidArgument("for_client_id", "no client has this id")
        }
        return client
    }
}
