import CaptureCore
import Foundation
import Testing

/// The step-up rule (SPEC §19) and the sign-in time its sessions carry, on their own.
@Suite struct StepUpRuleTests {
    let rule = StepUpRule(window: 600)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aRecentSignInNeedsNothingAndAnOldOneThePasswordOrASignIn() {
        #expect(rule.need(sessionBegan: now - 600, at: now, hasPassword: true, hasSecondFactor: true) == .nothing)
        #expect(rule.need(sessionBegan: now - 601, at: now, hasPassword: true, hasSecondFactor: false) == .password(code: false))
        #expect(rule.need(sessionBegan: now - 601, at: now, hasPassword: true, hasSecondFactor: true) == .password(code: true))
        #expect(rule.need(sessionBegan: now - 601, at: now, hasPassword: false, hasSecondFactor: true) == .signIn)
        // Unknown (a session from before sessions said when they began) or in the future: not recent.
        #expect(rule.need(sessionBegan: nil, at: now, hasPassword: false, hasSecondFactor: false) == .signIn)
        #expect(rule.need(sessionBegan: now + 60, at: now, hasPassword: true, hasSecondFactor: false) == .password(code: false))
    }

    @Test func aChainIDCarriesItsSignInTimeAndNothingElseReadsAsOne() {
        let minter = TokenMinter(random: SystemRandom())
        let began = Date(timeIntervalSince1970: 1_800_000_000.123)
        let id = minter.chainID(at: began)
        #expect(id.count == 36 && id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(id)[14] == "7", "a UUID of version 7 (RFC 9562)")
        #expect(SessionStart.of(chainID: id).map { abs($0.timeIntervalSince(began)) < 0.001 } == true)
        #expect(minter.chainID(at: began) != id, "the rest is random")
        // A version 4 id (every chain before), garbage, or a forged id of another shape: no time at all.
        #expect(SessionStart.of(chainID: minter.identifier()) == nil)
        #expect(SessionStart.of(chainID: "not-a-chain") == nil)
        #expect(SessionStart.of(chainID: "zzzzzzzz-zzzz-7zzz-8zzz-zzzzzzzzzzzz") == nil)
    }
}
