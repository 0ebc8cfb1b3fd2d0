import Foundation

/// One of the service's signing keys as storage keeps it: the private key sealed under the code key (`CodeKey.seal`),
/// so a copy of the database alone signs nothing. Keys of one algorithm are numbered (`generation`, unique per
/// algorithm): the newest active one signs; a rotation gives the old one a `retireAt`, until which it stays published
/// so that tokens it signed still verify.
public struct SigningKey: Sendable, Equatable {
    /// RFC 7638 thumbprint of the public key (base64url of SHA-256).
    public var kid: String
    public var algorithm: JWSAlgorithm
    public var generation: Int
    /// The private key (RSA: PKCS#1 DER; P-256: the 32-byte scalar), sealed by `CodeKey.seal`.
    public var sealedKey: String
    public var createdAt: Date
    /// When a rotation retires it; nil while it is its algorithm's newest.
    public var retireAt: Date?

    public init(
        kid: String, algorithm: JWSAlgorithm, generation: Int, sealedKey: String, createdAt: Date, retireAt: Date? = nil
    ) {
        self.kid = kid
        self.algorithm = algorithm
        self.generation = generation
        self.sealedKey = sealedKey
        self.createdAt = createdAt
        self.retireAt = retireAt
    }

    /// Published at `now`: active, or retiring later.
    public func isPublished(at now: Date) -> Bool {
        retireAt.map { $0 > now } ?? true
    }
}
