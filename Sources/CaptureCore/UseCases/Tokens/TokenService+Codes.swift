import Foundation

/// An authorization code and the sign-out token of the chain it starts; only the caller ever sees them.
struct IssuedCode: Sendable {
    var code: String
    var signOutToken: String
    var chainID: String
}

extension TokenService {
    /// `/oauth/token` with `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.6): the same client,
    /// the same redirect URI (origin + path), the PKCE verifier when the code has a challenge; once only.
    public func exchangeCode(
        _ code: String?, redirectURI: String?, codeVerifier: String?, clientID: String?, clientSecret: String?
    ) async throws -> IssuedGrant {
        let client = try await clientAccess.authenticateClient(id: clientID, secret: clientSecret)
        guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
        let notUsable = "authorization code is invalid, used, or was issued to another client"
        guard let record = try await tokens.find(hash: TokenMinter.key(code)), record.kind == .code,
            record.clientID == client.clientID
        else { throw CaptureError.invalidGrant(notUsable) }
        if record.state(at: time.now()) == .expired { throw CaptureError.authorizationCodeExpired }
        if let bound = record.redirectURI {
            let supplied = redirectURI ?? ""
            guard supplied == bound || supplied == clientAccess.ownPageAddress(of: bound, client: client) else {
                throw CaptureError.redirectURIMismatch(expected: bound, supplied: supplied)
            }
        }
        if let challenge = record.codeChallenge {
            guard let codeVerifier, !codeVerifier.isEmpty else { throw CaptureError.missingArgument("code_verifier") }
            guard PKCE.verify(codeVerifier, challenge: challenge) else {
                throw CaptureError.invalidGrant("code_verifier does not match the code_challenge")
            }
        }
        try await provenAddress.requireProvenAddress(presenting: code, client: client)
        return try await redeem(
            code, kind: .code, client: client,
            reused: "authorization code was already used; the tokens issued for it have been revoked",
            notUsable: notUsable)
    }
}
