import Foundation

/// A sign-in still in use, as its owner sees it: the chain of tokens one sign-in started (its access and refresh
/// tokens and those their refreshes issued), on one client, from one device.
public struct AccountSession: Sendable, Equatable {
    /// `handle(ofChain:)`: names the session to its owner without naming the chain.
    public var id: String
    public var chainID: String
    public var clientID: String
    public var device: String?
    /// When the sign-in happened: the chain's first token.
    public var createdAt: Date
    /// The chain's newest token: the sign-in, or the last refresh (a token's each use is not recorded).
    public var lastUsedAt: Date
    /// The session of the token the list was asked for with.
    public var current: Bool

    /// A session's public name: 16 hex digits of a SHA-256 of its chain id, so a list shows nothing the service
    /// looks tokens up by.
    public static func handle(ofChain chainID: String) -> String {
        String(TokenMinter.hash("session:" + chainID).prefix(16))
    }

    /// The sessions among `tokens` (one account's): the chains with an access or refresh token still active at
    /// `now`, the one of `currentChain` first, then the most recently used first. Authorization codes, device and
    /// sign-out tokens make no session of their own.
    public static func sessions(of tokens: [TokenRecord], currentChain: String, at now: Date) -> [AccountSession] {
        let chains = Dictionary(grouping: tokens, by: \.chainID)
        let sessions = chains.compactMap { chainID, records -> AccountSession? in
            let lasting = records.filter { $0.kind == .access || $0.kind == .refresh }
            guard lasting.contains(where: { $0.state(at: now) == .active }),
                let first = records.min(by: { $0.issuedAt < $1.issuedAt }),
                let last = lasting.max(by: { $0.issuedAt < $1.issuedAt })
            else { return nil }
            return AccountSession(
                id: handle(ofChain: chainID), chainID: chainID, clientID: first.clientID,
                device: records.lazy.compactMap(\.device).first, createdAt: first.issuedAt, lastUsedAt: last.issuedAt,
                current: chainID == currentChain)
        }
        return sessions.sorted {
            $0.current != $1.current ? $0.current : ($0.lastUsedAt, $0.id) > ($1.lastUsedAt, $1.id)
        }
    }
}
