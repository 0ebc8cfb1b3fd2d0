import HummingbirdBcrypt

/// Hashes and checks passwords; implementations must not block the caller's thread.
public protocol PasswordHasher: Sendable {
    func hash(_ password: String) async -> String
    func verify(_ password: String, hash: String) async -> Bool
    /// Whether a hash that just verified should be made again at this hasher's cost (a cheaper one).
    func needsRehash(_ hash: String) -> Bool
}

extension PasswordHasher {
    public func needsRehash(_ hash: String) -> Bool { false }
}

/// Bounds on bcrypt's cost (2^cost rounds): one check of a cost-31 hash keeps a hashing thread busy for days, so no
/// stored hash may cost more than the setting's maximum (issue 27).
public enum BcryptCost {
    public static let range = 10...16
    /// The cost a `$2a$`/`$2b$`/`$2y$` hash names, or nil.
    public static func of(_ hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == 36, bytes[1] == 50, bytes[3] == 36, bytes[6] == 36,
            (48...57).contains(bytes[4]), (48...57).contains(bytes[5])
        else { return nil }
        return Int(bytes[4] - 48) * 10 + Int(bytes[5] - 48)
    }
}

/// bcrypt (hummingbird-auth) on the `HashingPool`, never on an event loop; checks every stored format
/// (`StoredPasswordHash`) and makes only bcrypt.
public struct BcryptPasswordHasher: PasswordHasher {
    public let cost: Int
    /// A bcrypt hash at `cost` that no password matches (an all-zero salt and digest): what a legacy check spends
    /// besides its own work, so it takes at least a bcrypt check's time.
    let timingFloor: String

    public init(cost: Int) {
        self.cost = cost
        timingFloor = "$2b$" + (cost < 10 ? "0\(cost)" : "\(cost)") + "$" + String(repeating: ".", count: 53)
    }

    public func hash(_ password: String) async -> String {
        let cost = UInt8(self.cost)
        return await HashingPool.run { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, hash: String) async -> Bool {
        let floor = timingFloor
        return await HashingPool.run { StoredPasswordHash.matches(password, stored: hash, timingFloor: floor) }
    }

    /// A hash for unknown accounts, so checking a password against it takes as long as against a real one: bcrypt's
    /// work is the candidate password's, at the cost and salt the hash names, so random salt and digest characters
    /// cost no hashing here yet match no password (184 random bits).
    public func decoy(random: any RandomSource) -> String {
        let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        // 53 characters: 22 of salt, 31 of digest; 64 symbols, so six bits of each byte pick one evenly.
        let characters = random.bytes(53).map { alphabet[Int($0 & 63)] }
        let costText = cost < 10 ? "0\(cost)" : "\(cost)"
        return "$2b$\(costText)$" + String(decoding: characters, as: UTF8.self)
    }

    /// A lower cost than ours (an imported hash, or one made before the setting was raised; never lowered), or a
    /// legacy format (an imported Janrain hash), which becomes bcrypt at its owner's first sign-in.
    public func needsRehash(_ hash: String) -> Bool {
        if hash.hasPrefix(LegacyPasswordHash.prefix) { return true }
        return BcryptCost.of(hash).map { $0 < cost } ?? false
    }
}
