import Foundation

/// One of the person's sessions with its client's name, as `/sessions` lists it.
public struct SessionListing: Sendable, Equatable {
    public var session: AccountSession
    /// The client's name; its id when the client is gone.
    public var clientName: String
}

extension PrivacyService {
    /// The tokens read for one account's list, a page at a time: enough for every session a person keeps.
    static let sessionTokenPages = 20

    /// The signed-in person's sessions (`AccountSession.sessions`), the one of `accessToken` first.
    public func sessions(accessToken: String?) async throws -> [SessionListing] {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        return try await sessionListings(of: user.id, current: token.chainID)
    }

    /// `userID`'s sessions with their clients' names, the one of chain `current` first.
    func sessionListings(of userID: String, current chainID: String) async throws -> [SessionListing] {
        var listings: [SessionListing] = []
        for session in try await sessions(of: userID, current: chainID) {
            let name = try? await clientAccess.client(id: session.clientID).name
            listings.append(SessionListing(session: session, clientName: name ?? session.clientID))
        }
        return listings
    }

    /// Signs out the session `id` (a handle from the list) of the person signed in with `accessToken`: its whole
    /// chain is revoked. Returns how many tokens that revoked.
    public func endSession(accessToken: String?, id: String?) async throws -> Int {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        guard let id, !id.isEmpty else { throw CaptureError.missingArgument("session") }
        let listed = try await sessions(of: user.id, current: token.chainID)
        guard let session = listed.first(where: { ConstantTime.equals($0.id, id) }) else {
            throw CaptureError.recordNotFound("session")
        }
        let revoked = try await tokens.revokeChain(session.chainID, of: user.id, at: time.now())
        metrics.revoked(revoked, .sessionEnded)
        await audit.recordSecurityEvent("session.end", target: user.id, detail: "\(session.id) \(session.clientID)")
        return revoked.count
    }

    /// Signs out every session of the person but the one of `accessToken`. Returns how many tokens that revoked.
    public func endOtherSessions(accessToken: String?) async throws -> Int {
        let (user, token) = try await accessTokens.authenticate(accessToken: accessToken)
        let revoked = try await tokens.revokeAll(userID: user.id, exceptChain: token.chainID, at: time.now())
        metrics.revoked(revoked, .sessionEnded)
        await audit.recordSecurityEvent("session.end_others", target: user.id, detail: "\(revoked.count) tokens")
        return revoked.count
    }

    private func sessions(of userID: String, current chainID: String) async throws -> [AccountSession] {
        let now = time.now()
        var found: [TokenRecord] = []
        for page in 0..<Self.sessionTokenPages {
            let batch = try await tokens.list(
                TokenFilter(userID: userID, now: now, page: Page(limit: Page.maxLimit, offset: page * Page.maxLimit)))
            found += batch
            if batch.count < Page.maxLimit { break }
        }
        return AccountSession.sessions(of: found, currentChain: chainID, at: now)
    }
}
