import Foundation

/// What a presented one-time code may cost and what it proves (issue 48: strangers burnt the owner's reset code by
/// guessing wrong five times).
///
/// A message's link carries the short code and a tag: HMAC-SHA-256 under the code key of the purpose, the account,
/// the address and the short code, 130 bits written in the code's own alphabet. Nobody without the key or the
/// message can make one, so a link's code needs no cap on wrong entries: its tag is checked (in constant time) before
/// any stored code is looked at, a forged or garbled one is refused without counting, and a right one never counts
/// as a wrong entry. The short code a person types (40 bits) is what can be guessed, so each typed entry is charged,
/// before it is checked, to a counter of the requester (network address), the screen and the address it names, in
/// the throttle store that every instance shares; wrong entries no longer wear out the code, so a stranger's cannot
/// end it for its owner. Past `typedPerRequester` entries a requester is refused even the right code (a cap that
/// answered right codes would still tell which guess was right). A ceiling of wrong typed entries from everyone
/// (`typedCeiling`) ends the typed form of a code, never its link, so guesses from many addresses are bounded per
/// code as well (docs/threat-model.md, "Code burning").
public struct CodeGuessing: Sendable {
    /// A presented code, as its form says.
    public enum Entry: Sendable, Equatable {
        /// A short code as typed, normalised (`CodeFormat.normalize`).
        case typed(String)
        /// A link's code: the short code and its tag.
        case link(code: String, tag: String)
        /// Neither: it cannot be anyone's code.
        case malformed
    }

    let store: any ThrottleRepository
    let key: CodeKey

    public init(store: any ThrottleRepository, key: CodeKey) {
        self.store = store
        self.key = key
    }

    /// Characters of a link's tag (5 bits each: 130 bits).
    public static let tagLength = 26
    /// Typed entries one requester may make at one screen for one address, refilled over `typedDrainSeconds`.
    public static let typedPerRequester = 5
    public static let typedDrainSeconds: TimeInterval = 30 * 60
    /// Wrong typed entries, from everyone, after which a code is taken only from its link.
    public static let typedCeiling = 100

    static let perRequester = ThrottleRule(capacity: typedPerRequester, drainSeconds: typedDrainSeconds)

    /// What `presented` is: 8 characters of the alphabet are a typed code, 8 more the tag's length a link's (case,
    /// spaces and dashes do not matter, as for typing), anything else nobody's code.
    public static func entry(_ presented: String) -> Entry {
        let normalized = CodeFormat.normalize(presented)
        guard normalized.allSatisfy({ CodeFormat.alphabet.contains($0) }) else { return .malformed }
        switch normalized.count {
        case 8: return .typed(normalized)
        case 8 + tagLength: return .link(code: String(normalized.prefix(8)), tag: String(normalized.dropFirst(8)))
        default: return .malformed
        }
    }

    /// The code a message's link carries for `code`: `ABCD-EFGH-` and the tag.
    public func linkCode(_ code: String, userID: String, address: String, purpose: CodePurpose) -> String {
        let short = CodeFormat.normalize(code)
        return String(short.prefix(4)) + "-" + String(short.dropFirst(4)) + "-"
            + tag(short, userID: userID, address: address, purpose: purpose)
    }

    /// Whether `tag` is the link tag of `code` for this account, address and purpose.
    public func proves(_ tag: String, code: String, userID: String, address: String, purpose: CodePurpose) -> Bool {
        ConstantTime.equals(tag, self.tag(code, userID: userID, address: address, purpose: purpose))
    }

    /// Charges one typed entry at `screen` (a code's purpose; the reset screen takes restore codes too) for `address`
    /// from `requester`, or throws `rateLimited`, charging nothing, when the requester used its allowance. Charged
    /// for every address alike, with an account or not, so the limit tells nothing about who has one.
    public func admitTyped(screen: CodePurpose, address: String, requester: String?, now: Date) async throws {
        let counter = TokenMinter.hash(
            "code guess|\(screen.rawValue)|\(User.normalize(email: address))|\(requester ?? "-")")
        let rule = Self.perRequester
        let admitted = try await store.update([counter], now: now) { states in
            guard !rule.isExhausted(states[counter], at: now) else { return ([:], false) }
            return ([counter: rule.adding(to: states[counter], at: now)], true)
        }
        guard admitted else { throw CaptureError.rateLimited }
    }

    private func tag(_ code: String, userID: String, address: String, purpose: CodePurpose) -> String {
        let label = "code link\n\(purpose.rawValue)\n\(userID)\n\(User.normalize(email: address))\n\(CodeFormat.normalize(code))"
        let bytes = key.derive(label, count: (Self.tagLength * 5 + 7) / 8)
        return String(
            (0..<Self.tagLength).map { index -> Character in
                // The index-th group of 5 bits, most significant first.
                let bit = index * 5
                let pair = Int(bytes[bit / 8]) << 8 | Int(bit / 8 + 1 < bytes.count ? bytes[bit / 8 + 1] : 0)
                return CodeFormat.alphabet[(pair >> (11 - bit % 8)) & 31]
            })
    }
}
