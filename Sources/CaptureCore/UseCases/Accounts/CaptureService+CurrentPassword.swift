extension CaptureService {
    /// A current password typed to confirm a change of the signed-in account: the field it came in (where a wrong
    /// one is reported), what was typed, and the network address it came from (for the sign-in throttle).
    struct CurrentPassword: Sendable {
        var field: String
        var typed: String
        var address: String?
    }

    /// Checks `password` against the account's like a sign-in: throttled and charged before bcrypt runs, so a
    /// stolen token is no way around the sign-in limits; a wrong one is a 390 on its field.
    func check(_ password: CurrentPassword, of user: User, messages: Messages) async throws {
        let attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: password.address, now: time.now())
        guard await hasher.verify(password.typed, hash: user.passwordHash ?? decoyHash) else {
            throw CaptureError.invalidFormFields([password.field: [messages.text("field.currentPassword.wrong")]])
        }
        try await throttle.succeeded(attempt, now: time.now())
    }
}
