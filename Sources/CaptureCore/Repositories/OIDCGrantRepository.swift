import Foundation

/// Storage of OpenID Connect grants (`OIDCGrant`), one per token chain.
public protocol OIDCGrantRepository: Sendable {
    func insert(_ grant: OIDCGrant) async throws
    func find(chainID: String) async throws -> OIDCGrant?
    /// The grants of one browser session, for a logout.
    func grants(inSession sessionID: String) async throws -> [OIDCGrant]
    /// Deletes the grants of one browser session; answers how many.
    @discardableResult func removeSession(_ sessionID: String) async throws -> Int
    /// Deletes grants that expired before `cutoff`; answers how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}
