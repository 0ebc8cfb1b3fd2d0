import Foundation

/// Who may make a server API call, decided in one place before any of the calls: a client's secret (HTTP Basic or
/// parameters) or its Janrain signature within the date window, from an address on its whitelist, holding a feature
/// that permits the kind of call; or, where the call allows it, a user's access token, which reaches only its own
/// record. Every failure is one of Janrain's 400-range answers and nothing more.
///
/// A class, as `RecordService` is: every server API call passes through it, and a struct this size is copied per call.
public final class ServerAuthentication: Sendable {
    let clientAccess: ClientAccess
    let accessTokens: AccessTokenCheck
    let secrets: ClientSecrets
    let throttle: ClientAuthThrottle
    let creationTokens: CreationTokens
    let settings: ServiceSettings
    let time: any TimeSource
    let audit: AuditTrail

    init(
        clientAccess: ClientAccess, accessTokens: AccessTokenCheck, secrets: ClientSecrets, throttle: ClientAuthThrottle,
        creationTokens: CreationTokens, settings: ServiceSettings, time: any TimeSource, audit: AuditTrail
    ) {
        self.clientAccess = clientAccess
        self.accessTokens = accessTokens
        self.secrets = secrets
        self.throttle = throttle
        self.creationTokens = creationTokens
        self.settings = settings
        self.time = time
        self.audit = audit
    }
}

extension ServerAuthentication {
    /// The caller of `request`, permitted to make a call of `kind`; with `userToken`, an access token is taken too.
    public func caller(
        _ request: ServerRequest, for kind: ServerCallKind, userToken: Bool = false
    ) async throws
        -> ServerCaller
    {
        switch request.credentials {
        case .none:
            throw CaptureError.missingArgument("client_id")
        case .creationToken:
            throw CaptureError.notPermitted("a creation_token is taken by entity.create only")
        case .accessToken(let token):
            guard userToken else {
                throw CaptureError.notPermitted("this call takes a client's id and secret or signature, not an access token")
            }
            let (user, record) = try await accessTokens.authenticate(accessToken: token)
            return .user(user, record)
        case .secret(let id, let secret):
            return .client(
                try await permitted(id, request, kind) { client in client.accepts(secret: secret, at: time.now()) })
        case .signed(let id, let signature, let date):
            // Refused as a stale one is: a signed call stands or falls by its Date.
            guard let signedAt = JanrainSignature.date(date) else {
                throw CaptureError.notPermitted("the request's Date must be the UTC date and time 'yyyy-MM-dd HH:mm:ss'")
            }
            guard abs(time.now().timeIntervalSince(signedAt)) <= settings.signedRequestWindowSeconds else {
                throw CaptureError.notPermitted(
                    "the request's Date is more than \(Int(settings.signedRequestWindowSeconds)) seconds from the service's clock"
                )
            }
            let text = JanrainSignature.signedText(path: request.path, date: date, parameters: request.parameters)
            return .client(
                try await permitted(id, request, kind) { client in
                    // Every live secret is tried, so the time taken does not say which one signed.
                    secrets.secrets(of: client, at: time.now()).reduce(false) { verified, secret in
                        JanrainSignature.verifies(signature, text: text, secret: secret) || verified
                    }
                })
        }
    }

    /// The client calling `clients/*` or `settings/*`. A client's own settings are its own to read and change (any
    /// feature); another client's (`for_client_id`), the app's defaults and the clients themselves need `owner`.
    public func administrator(_ request: ServerRequest, ownSettingsOnly: Bool = false) async throws -> Client {
        let other = request.parameters["for_client_id"].map { !$0.isEmpty && $0 != request.credentials.clientID } ?? false
        let kind: ServerCallKind = ownSettingsOnly && !other ? .ownSettings : .administerClients
        guard case .client(let client) = try await caller(request, for: kind) else {
            throw CaptureError.notPermitted("this call takes a client's id and secret or signature")
        }
        return client
    }

    /// The client creating a record: one that may write records, or one presenting a creation token made for it
    /// (used up here).
    public func creator(_ request: ServerRequest) async throws -> String {
        guard case .creationToken(let id, let token) = request.credentials else {
            return try await caller(request, for: .writeRecords).clientID
        }
        guard try await clientAccess.registeredClient(id) != nil, try await creationTokens.redeem(token, for: id) else {
            throw CaptureError.invalidArgument(
                "creation_token", "is not a creation token for this client, or was used or expired")
        }
        return id
    }

    /// The client `id` names once `proves` accepts what it presented, checked against its whitelist and features.
    private func permitted(
        _ id: String, _ request: ServerRequest, _ kind: ServerCallKind, proves: (Client) -> Bool
    ) async throws -> Client {
        // A public client has no secret to prove: it fails like a wrong secret.
        guard let client = try await clientAccess.registeredClient(id), client.isConfidential, proves(client) else {
            let now = time.now()
            let limited = try await throttle.failed(clientID: id, address: request.remoteAddress, now: now)
            await audit.recordSecurityEvent(
                "client.auth_failed", target: id, outcome: limited ? "rate_limited" : "invalid_client",
                detail: "server API \(request.path) from \(request.remoteAddress ?? "an unknown address")", oncePer: 60)
            throw limited ? CaptureError.rateLimited : CaptureError.invalidClient
        }
        guard client.allowsCall(from: request.remoteAddress) else {
            throw CaptureError.notPermitted("this client may not call from this address (its whitelist)")
        }
        guard kind.isPermitted(for: client.features) else {
            let needed = kind.permittedBy.map(\.rawValue).sorted().joined(separator: ", ")
            throw CaptureError.notPermitted("this client lacks the feature this call needs (one of: \(needed))")
        }
        return client
    }
}
