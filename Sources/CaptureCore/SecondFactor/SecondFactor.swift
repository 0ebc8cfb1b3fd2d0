import Foundation

/// An account's second factor: an authenticator app's secret (sealed under the service's code key) and the recovery
/// codes not used yet (their keyed hashes). The password alone no longer signs in once it is set up.
public struct SecondFactor: Sendable, Equatable {
    public var userID: String
    /// The TOTP secret, sealed (`CodeKey.seal`).
    public var sealedSecret: String
    /// The last step a code was accepted for: no code of that step or an earlier one is taken again.
    public var lastStep: Int64?
    /// `CodeKey.hash` of each recovery code still usable.
    public var recoveryHashes: [String]
    public var createdAt: Date

    public init(userID: String, sealedSecret: String, recoveryHashes: [String], createdAt: Date) {
        self.userID = userID
        self.sealedSecret = sealedSecret
        self.recoveryHashes = recoveryHashes
        self.createdAt = createdAt
    }

    public static let recoveryCodeCount = 10
}

/// Ten single-use recovery codes of 10 characters (about 49 bits each) from an alphabet without look-alikes, shown once
/// as `xxxxx-xxxxx`; typed with or without the dash, in either case.
public enum RecoveryCodes {
    static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789".utf8)

    public static func make(_ random: any RandomSource) -> [String] {
        (0..<SecondFactor.recoveryCodeCount).map { _ in
            let symbols = random.bytes(10).map { alphabet[Int($0) % alphabet.count] }
            return String(decoding: symbols[0..<5], as: UTF8.self) + "-" + String(decoding: symbols[5...], as: UTF8.self)
        }
    }

    /// The form a code is hashed in: lower case, without dashes or spaces.
    public static func normalize(_ code: String) -> String {
        code.lowercased().filter { $0 != "-" && !$0.isWhitespace }
    }
}

extension SecondFactor {
    /// The factor after `code` was accepted at `date` — an authenticator code for a step not used yet, or a recovery
    /// code not used yet, which is spent — or nil when `code` proves nothing. The secret is opened with `key`.
    func accepting(_ code: String, at date: Date, key: CodeKey) -> SecondFactor? {
        var next = self
        let typed = code.filter { !$0.isWhitespace }
        if typed.count == TOTP.digits, typed.allSatisfy(\.isNumber) {
            guard let secret = key.unseal(sealedSecret),
                let step = TOTP(secret: secret).matchingStep(typed, at: date, after: lastStep)
            else { return nil }
            next.lastStep = step
            return next
        }
        let hash = key.mac(RecoveryCodes.normalize(typed))
        guard let index = recoveryHashes.firstIndex(where: { ConstantTime.equals($0, hash) }) else { return nil }
        next.recoveryHashes.remove(at: index)
        return next
    }
}
