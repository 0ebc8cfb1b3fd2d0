import CaptureCore
import Foundation
import Synchronization

/// Token checks (`/oauth/introspect`, `/verify`, the token half of `/entity`) answered from memory (the table behind
/// `CachedTokenChecks`): what `.account` reads of an active access token of an active account, kept until its token row, its user row or a client changes anywhere
/// (`ChangeStamps`), bounded by `capacity` entries. Anything else (revoked, used, disabled, not found, other kinds) is
/// read every time, so a refusal never comes from here. Expiry is the caller's rule, checked on every answer as it is
/// on a read.
///
/// An entry is 128 bytes in a table allocated once (`Slot`: 128 bits of the token's SHA-256, identifiers in UUID form
/// as their 16 bytes, client ids, scopes and providers by index), found through an index of 12 bytes a bucket (the
/// digest's first 64 bits and the slot): about 17 MB for the default capacity, where a `Dictionary` of the entries
/// themselves spent as much on 98,304 (it grows at three quarters full, by doubling).
public final class TokenCheckCache: Sendable {
    private let stamps: ChangeStamps
    private let capacity: Int
    private let state: Mutex<State>

    /// 114,688 entries: 14.7 MB of slots and an index of 262,144 buckets (3.1 MB), which stays under three quarters full.
    public static let defaultCapacity = 114_688

    public init(stamps: ChangeStamps, capacity: Int = defaultCapacity) {
        self.stamps = stamps
        self.capacity = max(1, capacity)
        // The whole table at once: growing it by doubling would hold the old and the new one for a moment.
        var state = State()
        state.index.reserveCapacity(self.capacity)
        state.slots.reserveCapacity(self.capacity)
        self.state = Mutex(state)
    }

    /// Read before the database, and passed to `keep` with what was read.
    public var generation: UInt64 { stamps.generation }

    /// The check `key` had when it was kept (at `.account`), unless anything it depends on changed since.
    public func lookup(key: String) -> TokenCheck? {
        kept(key: key)?.check
    }

    /// `lookup(key:)` and the row id of the token's user, so that its row can be read without the token's.
    public func kept(key: String) -> (check: TokenCheck, userRow: Int64)? {
        guard let digest = Digest(key: key) else { return nil }
        guard let (entry, words) = state.withLock({ state in state.entry(digest).map { ($0, state.words) } }) else {
            return nil
        }
        let filled = entry.filledAt
        guard stamps.stamp(of: .token(rowID: entry.tokenRow)) <= filled, stamps.stamp(of: .user(rowID: entry.userRow)) <= filled,
            stamps.stamp(of: .everything) <= filled
        else {
            state.withLock { state in
                if state.entry(digest)?.filledAt == filled { state.remove(digest) }
            }
            return nil
        }
        return (entry.check(key: key, words: words), entry.userRow)
    }

    /// Keeps `check` (what of it `.account` reads), read after `generation` was, if it is one this cache holds.
    public func keep(_ check: TokenCheck, key: String, userRow: Int64, generation: UInt64) {
        let record = check.record
        guard record.kind == .access, let tokenRow = record.id, record.revokedAt == nil, record.usedAt == nil,
            record.refreshSecret == nil, record.redirectURI == nil, record.codeChallenge == nil, record.hash == key,
            let account = check.account, account.disabledAt == nil, account.id == record.userID,
            let digest = Digest(key: key)
        else { return }
        state.withLock { state in
            guard let clientID = state.word(record.clientID), let scope = state.word(record.scope),
                let provider = state.word(record.authProvider), let device = state.device(record.device)
            else { return }
            let entry = Entry(
                tokenRow: tokenRow, userRow: userRow, filledAt: generation, clientsVersion: check.clientsVersion,
                issuedAt: record.issuedAt, expiresAt: record.expiresAt, userID: CompactID(record.userID),
                clientID: clientID, scope: scope, authProvider: provider, chainID: CompactID(record.chainID),
                emailVerified: account.emailVerified, device: device, email: account.email)
            state.store(Slot(digest: digest, entry: entry), capacity: capacity)
        }
    }

    public var count: Int { state.withLock { $0.index.count } }

    private struct State: ~Copyable {
        /// The slot of each kept check by the first 64 bits of its digest. Two digests that share them share an index
        /// entry: the slot holds the whole digest, so the other one is simply not found (and read from the database).
        var index: [UInt64: Int32] = [:]
        var slots: [Slot] = []
        /// Slots whose check went (changed since it was kept), to be filled first.
        var free: [Int32] = []
        /// Counts the slots given way, from a random start: mixed (`ChangeStamps.mix`), it picks the next one.
        var evictions = UInt64.random(in: .min ... .max)
        /// Client ids, scopes and providers, each kept once; entries name them by index.
        var words: [String] = []
        var wordIndex: [String: UInt16] = [:]

        mutating func word(_ text: String) -> UInt16? {
            if let index = wordIndex[text] { return index }
            guard words.count < Int(Entry.noWord) else { return nil }
            let index = UInt16(words.count)
            words.append(text)
            wordIndex[text] = index
            return index
        }

        /// A device hint as a word, `Entry.noWord` for none.
        mutating func device(_ hint: String?) -> UInt16? {
            guard let hint else { return Entry.noWord }
            return word(hint)
        }

        func entry(_ digest: Digest) -> Entry? {
            guard let at = index[digest.high], slots[Int(at)].digest == digest else { return nil }
            return slots[Int(at)].entry
        }

        mutating func remove(_ digest: Digest) {
            guard let at = index[digest.high], slots[Int(at)].digest == digest else { return }
            index[digest.high] = nil
            free.append(at)
        }

        /// Keeps `slot` in the slot its digest has, else in a free one, else in a new one while there is room, else in
        /// one chosen at random, whose check gives way: whatever order checks come in, none is always the next to go.
        mutating func store(_ slot: Slot, capacity: Int) {
            let at: Int32
            if let current = index[slot.digest.high] {
                at = current
            } else if let reusable = free.popLast() {
                at = reusable
            } else if slots.count < capacity {
                index[slot.digest.high] = Int32(slots.count)
                return slots.append(slot)
            } else {
                evictions &+= 1
                at = Int32(truncatingIfNeeded: ChangeStamps.mix(evictions) % UInt64(slots.count))
                let leaving = slots[Int(at)].digest.high
                if index[leaving] == at { index[leaving] = nil }
            }
            slots[Int(at)] = slot
            index[slot.digest.high] = at
        }
    }

    private struct Slot {
        let digest: Digest
        let entry: Entry
    }

    /// 128 bits of the SHA-256 in a token's key (`TokenMinter.key`), which follows the mint time in a time-led key.
    struct Digest: Hashable {
        let high: UInt64
        let low: UInt64

        init?(key: String) {
            let hex = key.utf8
            guard hex.count >= 64 else { return nil }
            var words: (high: UInt64, low: UInt64) = (0, 0)
            for (offset, byte) in hex.suffix(64).prefix(32).enumerated() {
                guard let value = Self.nibble(byte) else { return nil }
                if offset < 16 {
                    words.high = words.high << 4 | UInt64(value)
                } else {
                    words.low = words.low << 4 | UInt64(value)
                }
            }
            (high, low) = words
        }

        private static func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
    }

    /// A lower-case UUID's 16 bytes, or any other text as it is.
    enum CompactID {
        case uuid(UInt64, UInt64)
        case text(String)

        private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

        init(_ text: String) {
            let hex = text.utf8.filter { $0 != UInt8(ascii: "-") }
            var words: (UInt64, UInt64) = (0, 0)
            var valid = text.utf8.count == 36 && hex.count == 32
            for (offset, byte) in hex.enumerated() where valid {
                let value: UInt64
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a") + 10)
                default: valid = false; continue
                }
                if offset < 16 { words.0 = words.0 << 4 | value } else { words.1 = words.1 << 4 | value }
            }
            let compact = CompactID.uuid(words.0, words.1)
            self = valid && compact.text == text ? compact : .text(text)
        }

        var text: String {
            switch self {
            case .text(let text): return text
            case .uuid(let high, let low):
                // Written in place: every kept check answered makes two of these.
                return String(unsafeUninitializedCapacity: 36) { text in
                    var position = 0
                    for offset in 0..<32 {
                        if offset == 8 || offset == 12 || offset == 16 || offset == 20 {
                            text[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        let word = offset < 16 ? high : low
                        text[position] = Self.digits[Int(word >> UInt64(60 - 4 * (offset % 16)) & 0xF)]
                        position += 1
                    }
                    return position
                }
            }
        }
    }

    private struct Entry {
        let tokenRow: Int64
        let userRow: Int64
        let filledAt: UInt64
        let clientsVersion: Int64
        let issuedAt: Date
        let expiresAt: Date
        let userID: CompactID
        // In the bytes after `userID`'s (an enum's tag leaves them free): 112 bytes an entry instead of 120.
        let clientID: UInt16
        let scope: UInt16
        let authProvider: UInt16
        let chainID: CompactID
        // In the padding after `chainID`'s tag byte: the entry stays 112 bytes.
        let emailVerified: Bool
        let device: UInt16
        let email: String

        /// `device` when the token has none.
        static let noWord = UInt16.max

        func check(key: String, words: [String]) -> TokenCheck {
            let userID = userID.text
            var record = TokenRecord(
                kind: .access, hash: key, userID: userID, clientID: words[Int(clientID)], chainID: chainID.text,
                scope: words[Int(scope)], authProvider: words[Int(authProvider)], issuedAt: issuedAt, expiresAt: expiresAt)
            record.id = tokenRow
            if device != Self.noWord { record.device = words[Int(device)] }
            return TokenCheck(
                record: record, account: AccountSummary(id: userID, email: email, emailVerified: emailVerified, disabledAt: nil),
                clientsVersion: clientsVersion)
        }
    }
}
