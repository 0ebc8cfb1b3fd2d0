import CaptureCore
import Foundation
import Testing

/// `TokenState.stored` is the rule both the service and storage filters follow, so its conditions must name exactly
/// one state for every combination of stored times.
@Suite struct TokenStateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: [nil, now.addingTimeInterval(-5)], [nil, now.addingTimeInterval(-9)])
    func everyStoredTokenIsInExactlyOneState(revokedAt: Date?, usedAt: Date?) {
        for expiresAt in [Self.now.addingTimeInterval(-1), Self.now, Self.now.addingTimeInterval(1)] {
            let holding = TokenState.allCases.filter {
                $0.stored.holds(revokedAt: revokedAt, usedAt: usedAt, expiresAt: expiresAt, at: Self.now)
            }
            #expect(holding.count == 1, "\(String(describing: revokedAt)) \(String(describing: usedAt)) \(expiresAt)")
        }
    }

    @Test func revokedWinsOverUsedAndUsedOverExpired() {
        let past = Self.now.addingTimeInterval(-60)
        func state(revoked: Date?, used: Date?, expires: Date) -> TokenState {
            var record = TokenRecord(
                kind: .refresh, hash: "h", userID: "u", clientID: "c", chainID: "x", issuedAt: past, expiresAt: expires)
            record.revokedAt = revoked
            record.usedAt = used
            return record.state(at: Self.now)
        }
        #expect(state(revoked: past, used: past, expires: past) == .revoked)
        #expect(state(revoked: nil, used: past, expires: past) == .used)
        #expect(state(revoked: nil, used: nil, expires: Self.now) == .expired)
        #expect(state(revoked: nil, used: nil, expires: Self.now.addingTimeInterval(1)) == .active)
    }
}
