import Foundation

/// What an access token proves: the user and token behind it, or the documented refusal.
public struct AccessTokenCheck: Sendable {
    let checks: any TokenChecks
    let time: any TimeSource
}

extension AccessTokenCheck {
    /// The user and token behind an access token: unknown or revoked → invalid (200), expired → 414,
    /// deactivated account → 403.
    public func authenticate(accessToken: String?) async throws -> (User, TokenRecord) {
        let (user, lookup) = try await authenticated(accessToken: accessToken, { $0 }) {
            try await checks.check($0, .user)
        }
        return (user, lookup.record)
    }

    /// `authenticate` for `/entity`: the user's record as stored comes with the check (`TokenChecks`, `.record`).
    func authenticatedRecord(accessToken: String?) async throws -> (User, TokenCheck) {
        try await authenticated(accessToken: accessToken, { $0 }) { try await checks.check($0, .record) }
    }

    /// `authenticate`'s checks on what `find` reads for the token's key (its `check`).
    private func authenticated<Lookup>(
        accessToken: String?, _ check: (Lookup) -> TokenCheck, _ find: (String) async throws -> Lookup?
    ) async throws -> (User, Lookup) {
        guard let accessToken, !accessToken.isEmpty else { throw CaptureError.missingArgument("access_token") }
        guard let found = try await find(TokenMinter.key(accessToken)) else { throw CaptureError.invalidAccessToken }
        let lookup = check(found)
        guard lookup.record.kind == .access else { throw CaptureError.invalidAccessToken }
        switch lookup.record.state(at: time.now()) {
        case .active: break
        case .expired: throw CaptureError.accessTokenExpired
        case .revoked, .used: throw CaptureError.invalidAccessToken
        }
        guard let user = lookup.user else { throw CaptureError.invalidAccessToken }
        guard !user.isDisabled else { throw CaptureError.accountDeactivated }
        return (user, found)
    }

}
