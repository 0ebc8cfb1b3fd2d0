import Foundation

/// Storage of one-time codes. A user has at most one live code per purpose: issuing one replaces the last.
public protocol CodeRepository: Sendable {
    /// In one transaction: reads the newest code of `userID` for `purpose`, stores what `decide` returns for it
    /// (nil leaves it as it was) and returns `decide`'s verdict, so concurrent wrong entries are each counted.
    func use<Verdict: Sendable>(
        userID: String, purpose: CodePurpose, _ decide: @Sendable (OneTimeCode?) -> (OneTimeCode?, Verdict)
    ) async throws -> Verdict
    /// The users holding a live (unused, unexpired) code for `purpose` sent to `address`.
    func holders(address: String, purpose: CodePurpose, at now: Date) async throws -> [String]
    /// Deletes codes that expired before `cutoff`; returns how many.
    func purge(expiredBefore cutoff: Date) async throws -> Int
}
