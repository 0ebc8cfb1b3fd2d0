import HummingbirdBcrypt

/// Hashes and checks passwords; implementations must not block the caller's thread.
public protocol PasswordHasher: Sendable {
    func hash(_ password: String) async -> String
    func verify(_ password: String, hash: String) async -> Bool
}

/// bcrypt (hummingbird-auth) on the `HashingPool`, never on an event loop.
public struct BcryptPasswordHasher: PasswordHasher {
    public let cost: Int

    public init(cost: Int) {
        self.cost = cost
    }

    public func hash(_ password: String) async -> String {
        let cost = UInt8(self.cost)
        return await HashingPool.run { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async -> Bool {
        await HashingPool.run { Bcrypt.verify(password, hash: hash) }
    }
}
