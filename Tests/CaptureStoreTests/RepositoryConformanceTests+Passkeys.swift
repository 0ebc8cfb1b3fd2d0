import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Testing

/// The passkey, ceremony and second-factor repositories' contract on both backends: one owner per credential, each
/// `use` decided once however many stores race for it, and an account's deletion taking its rows.
extension RepositoryConformanceTests {
    static func passkey(
        _ credentialID: String, user: String, signCount: UInt32 = 0, created offset: TimeInterval = 0
    ) -> Passkey {
        Passkey(
            credentialID: credentialID, userID: user, name: "Key \(credentialID)", publicKey: Array(0...255),
            signCount: signCount, backupEligible: true, backedUp: false, transports: ["internal", "hybrid"],
            createdAt: now + offset)
    }

    static func ceremony(
        _ hash: String, _ kind: PendingCeremony.Kind = .passkeyGet, user: String? = nil, expires: TimeInterval = 300
    ) -> PendingCeremony {
        PendingCeremony(
            hash: hash, kind: kind, userID: user, clientID: "app", payload: "payload of \(hash)", createdAt: now,
            expiresAt: now + expires)
    }

    // MARK: passkeys

    @Test(arguments: TestBackend.allCases)
    func aPasskeyHasOneOwnerAndIsListedAndRemovedByIt(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let owner = try await repositories.users.insert(Self.user("keys@example.com"))
        let other = try await repositories.users.insert(Self.user("other-keys@example.com"))
        let passkeys = repositories.passkeys
        var first = Self.passkey("cred-1", user: owner.id)
        first.lastUsedAt = Self.now + 5
        var second = Self.passkey("cred-2", user: owner.id, signCount: .max, created: 1)
        second.transports = []
        try await passkeys.insert(first)
        try await passkeys.insert(second)
        try await passkeys.insert(Self.passkey("cred-3", user: other.id))
        await #expect(throws: CaptureError.notPermitted("this passkey is registered already")) {
            try await passkeys.insert(Self.passkey("cred-1", user: other.id))
        }
        #expect(try await passkeys.find(credentialID: "cred-1") == first)
        #expect(try await passkeys.find(credentialID: "cred-2") == second)
        #expect(try await passkeys.find(credentialID: "unknown") == nil)
        #expect(try await passkeys.list(userID: owner.id) == [first, second])

        #expect(try await !passkeys.remove(credentialID: "cred-1", userID: other.id), "a passkey is its owner's")
        #expect(try await passkeys.remove(credentialID: "cred-1", userID: owner.id))
        #expect(try await !passkeys.remove(credentialID: "cred-1", userID: owner.id))
        #expect(try await passkeys.removeAll(userID: owner.id) == 1)
        #expect(try await passkeys.removeAll(userID: owner.id) == 0)
        #expect(try await passkeys.list(userID: owner.id).isEmpty)
        #expect(try await passkeys.list(userID: other.id).map(\.credentialID) == ["cred-3"])
    }

    @Test(arguments: TestBackend.allCases)
    func aPasskeysUseStoresWhatTheDecisionReturns(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = try await repositories.users.insert(Self.user("counter@example.com"))
        let passkeys = repositories.passkeys
        try await passkeys.insert(Self.passkey("cred", user: user.id, signCount: 5))
        let old = try await passkeys.use(credentialID: "cred") { found -> (Passkey?, UInt32?) in
            guard var found else { return (nil, nil) }
            let old = found.signCount
            found.signCount = 9
            found.backedUp = true
            found.lastUsedAt = Self.now + 60
            return (found, old)
        }
        #expect(old == 5)
        let stored = try #require(try await passkeys.find(credentialID: "cred"))
        #expect(stored.signCount == 9 && stored.backedUp && stored.lastUsedAt == Self.now + 60)
        // Nil leaves the passkey as it is; an unknown one is decided as nil.
        #expect(try await passkeys.use(credentialID: "cred") { found in (nil, found?.signCount) } == 9)
        #expect(try await passkeys.find(credentialID: "cred") == stored)
        #expect(try await passkeys.use(credentialID: "unknown") { found in (nil, found == nil) })
    }

    @Test(arguments: TestBackend.allCases)
    func aCounterRacedFromTwoStoresPassesOnce(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let user = try await a.repositories.users.insert(Self.user("cloned@example.com"))
        try await a.repositories.passkeys.insert(Self.passkey("raced", user: user.id, signCount: 7))
        let passed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                let passkeys = (index % 2 == 0 ? a : b).repositories.passkeys
                group.addTask {
                    try await passkeys.use(credentialID: "raced") { found in
                        guard var found, Passkey.counterAccepts(stored: found.signCount, presented: 8) else {
                            return (nil, false)
                        }
                        found.signCount = 8
                        return (found, true)
                    }
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(passed == 1)
        #expect(try await b.repositories.passkeys.find(credentialID: "raced")?.signCount == 8)
    }

    // MARK: ceremonies

    @Test(arguments: TestBackend.allCases)
    func aCeremonyKeepsWhatTheDecisionChangesAndExpiredOnesArePurged(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = try await repositories.users.insert(Self.user("ticket@example.com"))
        let ceremonies = repositories.ceremonies
        try await ceremonies.insert(Self.ceremony("ticket", .secondFactor, user: user.id))
        try await ceremonies.insert(Self.ceremony("old", expires: -1))
        // A wrong code counts: the changed ceremony is kept.
        let attempts = try await ceremonies.use(hash: "ticket") { found -> (PendingCeremony?, Int?) in
            guard var found else { return (nil, nil) }
            found.attempts += 1
            return (found, found.attempts)
        }
        #expect(attempts == 1)
        var expected = Self.ceremony("ticket", .secondFactor, user: user.id)
        expected.attempts = 1
        #expect(try await ceremonies.use(hash: "ticket") { found in (found, found) } == expected)

        #expect(try await ceremonies.purge(expiredBefore: Self.now) == 1)
        #expect(try await ceremonies.use(hash: "old") { found in (found, found) } == nil)
        #expect(try await ceremonies.use(hash: "ticket") { found in (found, found?.kind) } == .secondFactor)
    }

    @Test(arguments: TestBackend.allCases)
    func aCeremonyRacedFromTwoStoresIsTakenOnce(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        try await a.repositories.ceremonies.insert(Self.ceremony("challenge"))
        let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                let ceremonies = (index % 2 == 0 ? a : b).repositories.ceremonies
                group.addTask { try await ceremonies.use(hash: "challenge") { found in (nil, found != nil) } }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(taken == 1)
        #expect(try await a.repositories.ceremonies.use(hash: "challenge") { found in (nil, found) } == nil)
    }

    // MARK: second factors

    @Test(arguments: TestBackend.allCases)
    func aSecondFactorIsSavedReplacedAndRemoved(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = try await repositories.users.insert(Self.user("totp@example.com"))
        let factors = repositories.secondFactors
        #expect(try await factors.find(userID: user.id) == nil)
        var factor = SecondFactor(userID: user.id, sealedSecret: "sealed-1", recoveryHashes: ["h1", "h2"], createdAt: Self.now)
        try await factors.save(factor)
        #expect(try await factors.find(userID: user.id) == factor)
        factor.sealedSecret = "sealed-2"
        factor.lastStep = 60_000_000
        factor.recoveryHashes = []
        factor.createdAt = Self.now + 30
        try await factors.save(factor)
        #expect(try await factors.find(userID: user.id) == factor)
        #expect(try await factors.use(userID: user.id) { found in (nil, found?.lastStep) } == 60_000_000)
        #expect(try await factors.remove(userID: user.id))
        #expect(try await !factors.remove(userID: user.id))
        #expect(try await factors.find(userID: user.id) == nil)
        #expect(try await factors.use(userID: user.id) { found in (nil, found == nil) })
    }

    @Test(arguments: TestBackend.allCases)
    func aRecoveryCodeRacedFromTwoStoresIsAcceptedOnce(_ backend: TestBackend) async throws {
        let (a, b) = try await Self.twoStores(backend)
        let user = try await a.repositories.users.insert(Self.user("recovery@example.com"))
        try await a.repositories.secondFactors.save(
            SecondFactor(userID: user.id, sealedSecret: "sealed", recoveryHashes: ["h1", "h2", "h3"], createdAt: Self.now))
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                let factors = (index % 2 == 0 ? a : b).repositories.secondFactors
                group.addTask {
                    try await factors.use(userID: user.id) { found in
                        guard var found, let spent = found.recoveryHashes.firstIndex(of: "h2") else { return (nil, false) }
                        found.recoveryHashes.remove(at: spent)
                        return (found, true)
                    }
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(accepted == 1)
        #expect(try await b.repositories.secondFactors.find(userID: user.id)?.recoveryHashes == ["h1", "h3"])
    }

    // MARK: deletion

    @Test(arguments: TestBackend.allCases)
    func deletingAUserTakesItsPasskeysCeremoniesAndSecondFactor(_ backend: TestBackend) async throws {
        let repositories = try await TestStorage.open(backend).repositories
        let user = try await repositories.users.insert(Self.user("leaving@example.com"))
        let other = try await repositories.users.insert(Self.user("staying@example.com"))
        try await repositories.passkeys.insert(Self.passkey("leaving-key", user: user.id))
        try await repositories.passkeys.insert(Self.passkey("staying-key", user: other.id))
        try await repositories.ceremonies.insert(Self.ceremony("leaving-setup", .totpSetup, user: user.id))
        try await repositories.ceremonies.insert(Self.ceremony("staying-ticket", .secondFactor, user: other.id))
        try await repositories.ceremonies.insert(Self.ceremony("anonymous"))
        for owner in [user, other] {
            try await repositories.secondFactors.save(
                SecondFactor(userID: owner.id, sealedSecret: "sealed", recoveryHashes: ["h"], createdAt: Self.now))
        }

        #expect(try await repositories.users.delete(id: user.id))
        #expect(try await repositories.passkeys.find(credentialID: "leaving-key") == nil)
        #expect(try await repositories.passkeys.list(userID: user.id).isEmpty)
        #expect(try await repositories.secondFactors.find(userID: user.id) == nil)
        let ceremonies = repositories.ceremonies
        #expect(try await ceremonies.use(hash: "leaving-setup") { found in (found, found) } == nil)
        // The other account's rows, and a ceremony of no account, stay.
        #expect(try await repositories.passkeys.find(credentialID: "staying-key") != nil)
        #expect(try await repositories.secondFactors.find(userID: other.id) != nil)
        #expect(try await ceremonies.use(hash: "staying-ticket") { found in (found, found?.userID) } == other.id)
        #expect(try await ceremonies.use(hash: "anonymous") { found in (found, found != nil) })
    }
}
