import Foundation
import Testing

@testable import CaptureCore

/// Authenticator-app codes against RFC 6238's test vectors, and the rules around them: drift, single use, recovery
/// codes spent once, the secret sealed under the code key.
@Suite struct AuthenticatorCodeTests {
    /// RFC 6238 Appendix B's SHA-1 secret; its 8-digit codes end in these 6 digits.
    static let totp = TOTP(secret: Array("12345678901234567890".utf8))

    @Test(arguments: [
        (59.0, "287082"), (1_111_111_109, "081804"), (1_111_111_111, "050471"), (1_234_567_890, "005924"),
        (2_000_000_000, "279037"), (20_000_000_000, "353130"),
    ])
    func theRFCVectorsMatch(_ example: (Double, String)) {
        #expect(Self.totp.code(step: TOTP.step(at: Date(timeIntervalSince1970: example.0))) == example.1)
    }

    @Test func aCodeMatchesOneStepEitherSideAndNeverTwice() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let step = TOTP.step(at: now)
        #expect(Self.totp.matchingStep(Self.totp.code(step: step - 1), at: now, after: nil) == step - 1)
        #expect(Self.totp.matchingStep(Self.totp.code(step: step + 1), at: now, after: nil) == step + 1)
        #expect(Self.totp.matchingStep(Self.totp.code(step: step - 2), at: now, after: nil) == nil)
        // Used at `step`: that code and the one before it are spent; the next still works.
        #expect(Self.totp.matchingStep(Self.totp.code(step: step), at: now, after: step) == nil)
        #expect(Self.totp.matchingStep(Self.totp.code(step: step - 1), at: now, after: step) == nil)
        #expect(Self.totp.matchingStep(Self.totp.code(step: step + 1), at: now, after: step) == step + 1)
        #expect(Self.totp.matchingStep("12345", at: now, after: nil) == nil)
        #expect(Self.totp.matchingStep("abcdef", at: now, after: nil) == nil)
    }

    @Test func theLinkCarriesTheSecretInBase32() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.grouped("MZXW6YTBOI") == "MZXW 6YTB OI")
        let uri = Self.totp.provisioningURI(issuer: "Fern & Co", account: "a@example.com")
        #expect(
            uri == "otpauth://totp/Fern%20%26%20Co:a@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=Fern%20%26%20Co&algorithm=SHA1&digits=6&period=30")
    }

    @Test func aRecoveryCodeIsSpentOnceAndTheSecretOnlyOpensUnderItsKey() {
        let key = CodeKey.ephemeral()
        let codes = RecoveryCodes.make(SystemRandom())
        #expect(codes.count == 10 && Set(codes).count == 10)
        #expect(codes.allSatisfy { $0.count == 11 && $0.dropFirst(5).first == "-" })
        let secret = Array("12345678901234567890".utf8)
        let factor = SecondFactor(
            userID: "u", sealedSecret: key.seal(secret), recoveryHashes: codes.map { key.mac(RecoveryCodes.normalize($0)) },
            createdAt: Date())
        #expect(key.unseal(factor.sealedSecret) == secret)
        #expect(CodeKey.ephemeral().unseal(factor.sealedSecret) == nil)
        let spent = factor.accepting(codes[3].uppercased().replacingOccurrences(of: "-", with: ""), at: Date(), key: key)
        #expect(spent?.recoveryHashes.count == 9)
        #expect(spent?.accepting(codes[3], at: Date(), key: key) == nil)
        let now = Date()
        let code = TOTP(secret: secret).code(step: TOTP.step(at: now))
        let used = factor.accepting(code, at: now, key: key)
        #expect(used?.lastStep == TOTP.step(at: now))
        #expect(used?.accepting(code, at: now, key: key) == nil)
    }
}
