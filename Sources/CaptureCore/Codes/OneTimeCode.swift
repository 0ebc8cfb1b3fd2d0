import Foundation

/// What a one-time code proves.
public enum CodePurpose: String, Sendable, Codable, CaseIterable {
    case passwordReset = "reset"
    case emailVerification = "verify"
    /// The old address's way back after an address change: proves that mailbox and restores it (docs/contract.md §15).
    case addressRestore = "restore"
}

/// A stored one-time code: only a hash of it, bound to one user and one purpose, with its expiry and the wrong
/// typed entries made against it (docs/contract.md §11; what they end is `CodeGuessing`'s rule).
public struct OneTimeCode: Sendable, Equatable {
    public var id: Int64?
    public var purpose: CodePurpose
    public var userID: String
    public var hash: String
    /// The normalised address the code was sent to (also part of `hash`): how a restore finds its account.
    public var address: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var attempts: Int
    public var usedAt: Date?

    public init(
        purpose: CodePurpose, userID: String, hash: String, address: String? = nil, createdAt: Date, expiresAt: Date
    ) {
        self.purpose = purpose
        self.userID = userID
        self.hash = hash
        self.address = address
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = 0
    }

    /// Unused and unexpired. Wrong entries do not end a code: strangers could end it for its owner (`CodeGuessing`).
    public func isLive(at now: Date) -> Bool {
        usedAt == nil && expiresAt > now
    }
}

/// The code a person reads in a message and types on a phone: 8 characters from an alphabet without look-alikes
/// (no 0/O, 1/I), 40 bits from the CSPRNG, shown as `ABCD-EFGH`.
public enum CodeFormat {
    static let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    public static func mint(_ random: any RandomSource) -> String {
        let characters = random.bytes(8).map { alphabet[Int($0 & 31)] }
        return String(characters[0..<4]) + "-" + String(characters[4...])
    }

    /// What a person typed, as minted: case, spaces and dashes do not matter.
    public static func normalize(_ typed: String) -> String {
        String(typed.uppercased().filter { $0 != "-" && !$0.isWhitespace })
    }

    /// The stored hash: HMAC-SHA-256 under the key outside the database, of the purpose, the user and the normalised
    /// address the code was sent to (docs/contract.md §15: a code proves that address, for that purpose, and nothing else; an
    /// account whose address changed since no longer matches its old codes).
    public static func hash(_ typed: String, userID: String, address: String, purpose: CodePurpose, key: CodeKey) -> String {
        key.mac("\(purpose.rawValue)\n\(userID)\n\(User.normalize(email: address))\n\(normalize(typed))")
    }
}
