import CaptureJSON
import Foundation

/// Where RP-initiated logout sends the browser.
public enum LogoutOutcome: Sendable, Equatable {
    /// To the client's registered `post_logout_redirect_uri` (with its `state`).
    case redirect(String)
    /// Nowhere: the service says the person is signed out.
    case signedOut
    /// A request that cannot be honoured (a hint we did not sign, an unregistered address): an error page.
    case refused(AuthorizationError)
}

extension OIDCService {
    /// OpenID Connect RP-Initiated Logout 1.0 §2: an `id_token_hint` we signed (expired or not) names the browser
    /// session whose token chains end; the cookie's session ends in any case. `post_logout_redirect_uri` must be one
    /// the hinted (or named) client registered, compared exactly. Without a hint nothing but this browser's cookie
    /// ends: a page on another site cannot end anyone's tokens.
    public func logout(_ parameters: [String: String], sessionCookie: String?) async throws -> LogoutOutcome {
        func text(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        var hinted: (clientID: String, sessionID: String?, userID: String)?
        if let hint = text("id_token_hint") {
            guard let claims = try await verifiedHint(hint) else {
                return .refused(.init("invalid_request", "id_token_hint is not an ID token issued here", redirectable: false))
            }
            hinted = claims
        }
        let clientID = hinted?.clientID ?? text("client_id")
        if let named = text("client_id"), let hinted, named != hinted.clientID {
            return .refused(.init("invalid_request", "client_id is not the ID token's audience", redirectable: false))
        }
        var destination: String?
        if let uri = text("post_logout_redirect_uri") {
            guard let clientID, try await registeredForLogout(uri, clientID: clientID) else {
                return .refused(
                    .init(
                        "invalid_request", "post_logout_redirect_uri is not registered for this client",
                        redirectable: false))
            }
            destination = uri
        }
        // Without a hint only the cookie goes (the controller clears it); with one, the hinted session's chains end,
        // and those of this browser's session when it is the same person's.
        if let hinted {
            if let sessionID = hinted.sessionID { try await endSession(sessionID, userID: hinted.userID) }
            if let session = BrowserSession.opened(sessionCookie, key: codes.codeKey, now: time.now()),
                session.userID == hinted.userID, session.id != hinted.sessionID
            {
                try await endSession(session.id, userID: session.userID)
            }
        }
        guard let destination else { return .signedOut }
        var pairs: [(String, String)] = []
        if let state = text("state"), state.utf8.count <= AuthorizationRequest.maxStateBytes { pairs.append(("state", state)) }
        return .redirect(
            pairs.isEmpty ? destination : destination + (destination.contains("?") ? "&" : "?") + FormBody.encoded(pairs))
    }

    /// The hint's audience, session and subject, when its signature verifies with a key we publish and we issued it.
    func verifiedHint(_ hint: String) async throws -> (clientID: String, sessionID: String?, userID: String)? {
        guard let token = try? IDToken(compact: hint) else { return nil }
        do {
            try token.verifySignature(with: try await signingKeys.published(knowing: token.keyID))
        } catch {
            return nil
        }
        guard let issuer = token.claims["iss"]?.stringValue, issuers.contains(issuer),
            let audience = token.claims["aud"]?.stringValue, let subject = token.claims["sub"]?.stringValue
        else { return nil }
        return (audience, token.claims["sid"]?.stringValue, subject)
    }

    /// The issuers this provider signs as: the public origin, and Hosted Login's when configured.
    public var issuers: [String] {
        [settings.resolvedPublicOrigin] + (hostedLoginIssuer.map { [$0] } ?? [])
    }

    public var hostedLoginIssuer: String? {
        settings.openIDConnect.hostedLoginCustomerId.map { settings.resolvedPublicOrigin + "/" + $0 + "/login" }
    }

    func registeredForLogout(_ uri: String, clientID: String) async throws -> Bool {
        let listed = try await clientSettings.value(ClientSettingKey.postLogoutRedirectURIs, for: clientID) ?? ""
        return listed.split(separator: " ").contains { $0 == uri }
    }

    /// Revokes every token chain the session started and forgets the session.
    func endSession(_ sessionID: String, userID: String) async throws {
        for grant in try await grants.grants(inSession: sessionID) where grant.userID == userID {
            try await tokens.revokeChain(grant.chainID, of: userID, at: time.now())
        }
        try await grants.removeSession(sessionID)
        await audit.recordSecurityEvent(
            "oidc.logout", target: userID, outcome: "signed_out", detail: "an OpenID Connect browser session ended")
    }
}
