import Foundation

extension CaptureService {
    /// The stored form of a sign-out token for `chainStart`'s chain (docs/decisions.md, "Signing out of a code-mode
    /// page"). It lives as long as a refresh token issued at the same moment; `/oauth/revoke` takes it like any token of
    /// the chain and revokes the whole chain. Every other endpoint asks for a specific kind of token (access, refresh,
    /// code, device), so it is refused there, and introspection calls it inactive (`TokenKind.authorizes`).
    func signOutRecord(_ token: String, joining chainStart: TokenRecord) -> TokenRecord {
        TokenRecord(
            kind: .signOut, hash: TokenMinter.key(token), userID: chainStart.userID, clientID: chainStart.clientID,
            chainID: chainStart.chainID, authProvider: chainStart.authProvider, issuedAt: chainStart.issuedAt,
            expiresAt: chainStart.issuedAt + settings.refreshTokenLifetime)
    }
}
