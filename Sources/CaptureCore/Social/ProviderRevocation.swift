import Foundation

/// A provider's refresh token waiting to be revoked at the provider (RFC 7009): queued when an account is deleted or
/// erased, taken from its linked accounts (where it was kept sealed under the code key since the sign-in), and
/// tried until the provider takes it back. It names no user: erasure does not wait for it, nor it for erasure.
public struct ProviderRevocation: Sendable, Equatable {
    public var id: Int64
    public var provider: String
    /// The refresh token, sealed (`CodeKey.seal`).
    public var sealedToken: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var queuedAt: Date

    public init(
        id: Int64, provider: String, sealedToken: String, attempts: Int, nextAttemptAt: Date, lastError: String?,
        queuedAt: Date
    ) {
        self.id = id
        self.provider = provider
        self.sealedToken = sealedToken
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.queuedAt = queuedAt
    }

    /// Tries before the token is given up (audited): spaced as below, about four days in all.
    public static let maximumAttempts = 24
    /// How many due revocations one pass tries.
    public static let perPass = 100

    /// When to try again after `attempts` failed tries: a minute, doubling, at most six hours apart.
    public static func retry(after attempts: Int, from now: Date) -> Date {
        now.addingTimeInterval(min(60 * pow(2, Double(max(attempts - 1, 0))), 6 * 3600))
    }
}
