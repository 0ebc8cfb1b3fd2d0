extension CaptureMetrics {
    /// Runs a sign-in attempt and counts its outcome in `capture_sign_ins_total`.
    func countingSignIn<T>(_ method: SignInMethod, _ attempt: () async throws -> T) async throws -> T {
        do {
            let result = try await attempt()
            signIn(method, .success)
            return result
        } catch {
            signIn(method, SignInOutcome(error))
            throw error
        }
    }
}
