extension CaptureService {
    /// A current password typed to confirm a change of the signed-in account: the field it came in (where a wrong
    /// one is reported), what was typed, the network address it came from (for the sign-in throttle), and the second
    /// factor's code sent with it (`second_factor_code`, which a step-up asks for where a second factor is on).
    struct CurrentPassword: Sendable {
        var field: String
        var typed: String
        var address: String?
        var code: String? = nil
    }

    /// Checks `password` against the account's like a sign-in: throttled and charged before bcrypt runs, so a
    /// stolen token is no way around the sign-in limits; a wrong one is a 390 on its field. `also` is what the attempt
    /// needs besides the password (a second factor's code): a failure there leaves the attempt charged, as a wrong
    /// code at sign-in does.
    func check(
        _ password: CurrentPassword, of user: User, messages: Messages, also: () async throws -> Void = {}
    ) async throws {
        let attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: password.address, now: time.now())
        guard await hasher.verify(password.typed, hash: user.passwordHash ?? decoyHash) else {
            throw CaptureError.invalidFormFields([password.field: [messages.text("field.currentPassword.wrong")]])
        }
        try await also()
        try await throttle.succeeded(attempt, now: time.now())
    }
}
