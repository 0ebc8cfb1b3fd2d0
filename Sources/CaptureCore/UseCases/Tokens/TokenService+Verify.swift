import CaptureJSON
import Foundation

/// The answer of `POST /verify`, BrowserID's verifier shape.
public enum VerifyReceipt: Sendable, Equatable {
    case okay(email: String, emailVerified: Bool, audience: String, expiresMilliseconds: Int64, issuer: String)
    case failure(reason: String)

    public var json: JSONValue {
        switch self {
        case .okay(let email, let verified, let audience, let expires, let issuer):
            [
                "status": "okay", "email": .string(email), "email_verified": .bool(verified), "audience": .string(audience),
                "expires": .int(expires), "issuer": .string(issuer),
            ]
        case .failure(let reason):
            ["status": "failure", "reason": .string(reason)]
        }
    }

    /// `json`, written directly for the success that `/verify` answers most.
    public var encodedBytes: [UInt8] {
        guard case .okay(let email, let verified, let audience, let expires, let issuer) = self else {
            return json.encodedBytes()
        }
        var object = JSONObjectWriter()
        object.member("audience", audience)
        object.member("email", email)
        object.member("email_verified", verified)
        object.member("expires", expires)
        object.member("issuer", issuer)
        object.member("status", "okay")
        return object.finished()
    }
}

extension TokenService {
    /// `POST /verify`: is `assertion` (an access token) active, and was it issued to a client that serves
    /// `audience` (an origin on the client's allowed origins or redirect URIs)? BrowserID's `okay` means "this person
    /// controls this address", so an address not proven yet is a failure unless the client allows it (docs/contract.md §15), and
    /// the receipt says `email_verified` either way.
    public func verify(assertion: String?, audience: String?) async throws -> VerifyReceipt {
        guard let assertion, !assertion.isEmpty, let audience, !audience.isEmpty else {
            throw CaptureError.missingArgument(assertion?.isEmpty == false ? "audience" : "assertion")
        }
        guard let origin = URLOrigin.reused(audience) else { return .failure(reason: "audience must be an http(s) origin") }
        guard let lookup = try await checks.check(TokenMinter.key(assertion), .account),
            lookup.record.kind == .access, let account = lookup.account
        else { return .failure(reason: "assertion is not a token this service issued") }
        let record = lookup.record
        switch record.state(at: time.now()) {
        case .active: break
        case .expired: return .failure(reason: "assertion has expired")
        case .revoked, .used: return .failure(reason: "assertion has been revoked")
        }
        guard !account.isDisabled else { return .failure(reason: "the account is deactivated") }
        guard let client = try await clientAccess.registeredClient(record.clientID, version: lookup.clientsVersion),
            clientAccess.clientDirectory.origins(
                of: client, version: lookup.clientsVersion, publicOrigin: settings.resolvedPublicOrigin
            )
            .contains(origin)
        else {
            return .failure(reason: "audience does not match the client the assertion was issued to")
        }
        guard account.emailVerified || client.allowUnverifiedEmail else {
            return .failure(reason: "the account's email address is not verified yet")
        }
        return .okay(
            email: account.email, emailVerified: account.emailVerified, audience: origin.description,
            expiresMilliseconds: Int64((record.expiresAt.timeIntervalSince1970 * 1000).rounded(.down)),
            issuer: settings.issuerHost)
    }

}
