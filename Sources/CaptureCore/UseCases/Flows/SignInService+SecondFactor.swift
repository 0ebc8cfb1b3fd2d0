import CaptureJSON
import Foundation

extension SignInService {
    /// `/oauth/auth_native_second_factor`: the ticket of a right password and an authenticator or recovery code
    /// finish the sign-in as the password sign-in would have (same client, flow, response type and PKCE). Wrong
    /// codes count against the ticket and against the account as wrong passwords do.
    public func completeSecondFactor(ticket: String?, code: String?, _ request: FlowRequest) async throws -> AuthResult {
        try await metrics.countingSignIn(.secondFactor) {
            guard let ticket, !ticket.isEmpty else { throw CaptureError.missingArgument("ticket") }
            guard let code, !code.isEmpty else { throw CaptureError.missingArgument("code") }
            let now = time.now()
            guard let taken = try await ceremonies.use(hash: TokenMinter.hash(ticket), { (nil, $0) }),
                taken.kind == .secondFactor, taken.expiresAt > now, taken.clientID == request.clientID,
                let userID = taken.userID, let user = try await users.find(id: userID)
            else { throw CaptureError.invalidSecondFactor }
            let attempt: SignInThrottle.Attempt
            do {
                attempt = try await throttle.begin(email: user.email, deviceHash: nil, address: request.remoteAddress, now: now)
            } catch {
                try await ceremonies.insert(taken)
                throw error
            }
            guard try await secondFactor.spendSecondFactor(code, of: user) else {
                var again = taken
                again.attempts += 1
                if again.attempts < SecondFactorCheck.secondFactorAttempts { try await ceremonies.insert(again) }
                throw CaptureError.invalidSecondFactor
            }
            try await throttle.succeeded(attempt, now: time.now())
            var parameters = StoredJSON.object(taken.payload)?.compactMapValues(\.stringValue) ?? [:]
            let provider = parameters.removeValue(forKey: SecondFactorCheck.providerKey)
            var resumed = FlowRequest(
                parameters: parameters, remoteAddress: request.remoteAddress, crossOrigin: request.crossOrigin)
            resumed.clientSecret = request.clientSecret
            var context = try await steps.context(of: resumed, takesForm: provider == nil)
            context.secondFactorUsed = true
            guard let provider else {
                return try await finishPasswordSignIn(
                    user, context: context, request: resumed,
                    device: try await issuer.trustedDevice(resumed.deviceToken, of: user))
            }
            var signedIn = user
            signedIn.lastLoginAt = time.now()
            try await users.update(signedIn)
            return try await steps.complete(
                context, user: signedIn, isNew: false, refreshSecret: resumed.refreshSecret, provider: provider,
                locale: resumed.locale)
        }
    }

}
