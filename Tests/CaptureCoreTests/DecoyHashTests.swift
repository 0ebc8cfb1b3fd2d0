import CaptureCore
import HummingbirdBcrypt
import Testing

/// The hash unknown addresses are checked against: a bcrypt hash in form and cost, which no password matches.
struct DecoyHashTests {
    @Test func aDecoyIsABcryptHashOfTheConfiguredCostThatNoPasswordMatches() {
        let hasher = BcryptPasswordHasher(cost: 10)
        let decoy = hasher.decoy(random: SystemRandom())
        #expect(decoy.utf8.count == 60 && decoy.hasPrefix("$2b$10$"))
        #expect(BcryptCost.of(decoy) == 10)
        #expect(decoy.dropFirst(7).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "/") })
        #expect(hasher.decoy(random: SystemRandom()) != decoy, "random salt and digest each time")
        for password in ["", "password", String(decoy.dropFirst(29)), decoy] {
            #expect(!Bcrypt.verify(password, hash: decoy), "\(password)")
        }
    }

    /// The decoy's salt and digest sit where a real hash's do: a real hash's digest put after a decoy-shaped prefix of
    /// the same salt verifies, so the check runs bcrypt in full on the decoy's salt rather than refusing its form.
    @Test func aDecoyHasTheLayoutBcryptChecksInFull() {
        let real = Bcrypt.hash("correct horse", cost: 4)
        let decoy = BcryptPasswordHasher(cost: 4).decoy(random: SystemRandom())
        #expect(decoy.prefix(7) == real.prefix(7).replacingOccurrences(of: "$2a$", with: "$2b$"))
        let sameSaltAsReal = decoy.prefix(7) + real.dropFirst(7)
        #expect(Bcrypt.verify("correct horse", hash: String(sameSaltAsReal)))
        #expect(!Bcrypt.verify("correct horse", hash: String(decoy.prefix(7) + real.dropFirst(7).prefix(22) + decoy.suffix(31))))
    }
}
