/// A social sign-in's one-time token that travels through a redirect (to a page's fragment, or to an app's return
/// address) is bound to whoever started the sign-in (docs/contract.md §15): the start sends `code_challenge` (S256 of a verifier
/// the starter keeps), and every redemption of the token sends `code_verifier`. A token that never travelled
/// (`/signin/oauth_token`'s reply to the app that asked) carries no challenge and needs none.
public enum InitiatorBinding {
    /// The challenge a start must carry, checked (S256, RFC 7636's characters).
    public static func challenge(_ challenge: String?, method: String?) throws -> String {
        guard let checked = try PKCE.checkedChallenge(challenge, method: method, required: true) else {
            throw CaptureError.missingArgument("code_challenge")
        }
        return checked
    }

    /// Whether `verifier` redeems a token started with `challenge` (nil: a token that never travelled).
    public static func admits(_ verifier: String?, challenge: String?) -> Bool {
        guard let challenge else { return true }
        guard let verifier, !verifier.isEmpty else { return false }
        return PKCE.verify(verifier, challenge: challenge)
    }
}
