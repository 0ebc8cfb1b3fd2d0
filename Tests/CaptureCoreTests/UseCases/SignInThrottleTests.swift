import CaptureCore
import CaptureStore
import CaptureTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// Throttling that slows guessing without handing an attacker the owner's account: per account and source,
/// persistent, charged before the password check.
@Suite struct SignInThrottleTests {
    static let owner = "owner@example.com"
    static let password = "the owner's passphrase"

    enum Outcome: Equatable { case signedIn, wrong, limited, other(String) }

    @discardableResult
    static func attempt(
        _ world: TestWorld, password: String, from address: String?, device: String? = nil, email: String = owner
    ) async -> Outcome {
        await attempt(world.service, password: password, from: address, device: device, email: email)
    }

    @discardableResult
    static func attempt(
        _ service: CaptureFeatures, password: String, from address: String?, device: String? = nil, email: String = owner
    ) async -> Outcome {
        var parameters = TestWorld.signIn(email: email, password: password)
        if let device { parameters["device_token"] = device }
        do {
            _ = try await service.signIn.signIn(FlowRequest(parameters: parameters, remoteAddress: address))
            return .signedIn
        } catch CaptureError.invalidCredentials {
            return .wrong
        } catch CaptureError.rateLimited {
            return .limited
        } catch {
            return .other("\(error)")
        }
    }

    @Test func guessesFromOneAddressDoNotLockTheOwnerOutElsewhere() async throws {
        let world = try await TestWorld.make()
        try await world.register(Self.owner, password: Self.password)
        for _ in 0..<10 { #expect(await Self.attempt(world, password: "guess", from: "203.0.113.66") == .wrong) }
        #expect(await Self.attempt(world, password: Self.password, from: "203.0.113.66") == .limited)
        #expect(await Self.attempt(world, password: Self.password, from: "198.51.100.20") == .signedIn)
    }

    @Test func theOwnersDeviceSignsInWhileItsOwnAddressIsUnderAttack() async throws {
        let world = try await TestWorld.make()
        var registration = TestWorld.registration(email: Self.owner, password: Self.password)
        registration["device_token"] = ""
        let device = try #require(
            try await world.service.signIn.register(FlowRequest(parameters: registration, remoteAddress: "192.0.2.1")).deviceToken
        )
        // The attacker shares the owner's address (carrier NAT, the same Wi-Fi) but not the device.
        for _ in 0..<10 { #expect(await Self.attempt(world, password: "guess", from: "192.0.2.1") == .wrong) }
        #expect(await Self.attempt(world, password: Self.password, from: "192.0.2.1") == .limited)
        #expect(await Self.attempt(world, password: Self.password, from: "192.0.2.1", device: device) == .signedIn)
        // A device token is bound to its account and proves nothing for another one.
        try await world.register("other@example.com", password: Self.password)
        for _ in 0..<10 { await Self.attempt(world, password: "guess", from: "192.0.2.1", email: "other@example.com") }
        #expect(
            await Self.attempt(world, password: Self.password, from: "192.0.2.1", device: device, email: "other@example.com")
                == .limited)
    }

    @Test func aDeviceHasItsOwnLimit() async throws {
        let world = try await TestWorld.make { $0.signInMaxFailures = 3 }
        var registration = TestWorld.registration(email: Self.owner, password: Self.password)
        registration["device_token"] = ""
        let device = try #require(try await world.service.signIn.register(FlowRequest(parameters: registration)).deviceToken)
        for _ in 0..<3 { #expect(await Self.attempt(world, password: "guess", from: "192.0.2.1", device: device) == .wrong) }
        #expect(await Self.attempt(world, password: Self.password, from: "192.0.2.1", device: device) == .limited)
    }

    @Test func afterTheConsecutiveLimitOnlyTheOwnersAddressesAndDevicesMaySignIn() async throws {
        let world = try await TestWorld.make {
            $0.signInMaxFailures = 3
            $0.signInMaxConsecutiveFailures = 6
        }
        try await world.register(Self.owner, password: Self.password)
        #expect(await Self.attempt(world, password: Self.password, from: "192.0.2.10") == .signedIn)
        // A botnet: two guesses from each of many addresses stays under every per-source limit.
        for bot in 0..<3 {
            for _ in 0..<2 { #expect(await Self.attempt(world, password: "guess", from: "203.0.113.\(bot)") == .wrong) }
        }
        #expect(await Self.attempt(world, password: "guess", from: "203.0.113.99") == .limited)
        #expect(await Self.attempt(world, password: Self.password, from: "198.51.100.1") == .limited)
        // NIST SP 800-63B §5.2.2: an address the owner signed in from before still works, and a success resets the streak.
        #expect(await Self.attempt(world, password: Self.password, from: "192.0.2.10") == .signedIn)
        #expect(await Self.attempt(world, password: Self.password, from: "198.51.100.1") == .signedIn)
    }

    @Test func parallelGuessesAreEachChargedBeforeThePasswordCheck() async throws {
        let world = try await TestWorld.make { $0.signInMaxFailures = 5 }
        try await world.register(Self.owner, password: Self.password)
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            for _ in 0..<20 { group.addTask { await Self.attempt(world, password: "guess", from: "203.0.113.5") } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .wrong }.count == 5)
        #expect(outcomes.filter { $0 == .limited }.count == 15)
    }

    @Test func oneAddressIsLimitedAcrossAccounts() async throws {
        let world = try await TestWorld.make {
            $0.signInMaxFailures = 2
            $0.signInMaxFailuresPerAddress = 5
        }
        try await world.register(Self.owner, password: Self.password)
        for index in 0..<5 {
            #expect(
                await Self.attempt(world, password: "guess", from: "203.0.113.7", email: "user\(index)@example.com") == .wrong)
        }
        #expect(await Self.attempt(world, password: Self.password, from: "203.0.113.7") == .limited)
        #expect(await Self.attempt(world, password: Self.password, from: "203.0.113.8") == .signedIn)
    }

    @Test func behindAnUntrustedProxyAccountsThatKnowItStillSignInAfterTheAddressLimit() async throws {
        let world = try await TestWorld.make {
            $0.signInMaxFailures = 2
            $0.signInMaxFailuresPerAddress = 4
        }
        // Everyone arrives from the proxy's address: the owner registered through it, so the account knows it.
        _ = try await world.service.signIn.register(
            FlowRequest(parameters: TestWorld.registration(email: Self.owner, password: Self.password), remoteAddress: "10.0.0.1")
        )
        try await world.register("newcomer@example.com", password: Self.password)
        for index in 0..<4 {
            #expect(await Self.attempt(world, password: "guess", from: "10.0.0.1", email: "victim\(index)@example.com") == .wrong)
        }
        #expect(await Self.attempt(world, password: Self.password, from: "10.0.0.1", email: "newcomer@example.com") == .limited)
        #expect(await Self.attempt(world, password: Self.password, from: "10.0.0.1") == .signedIn)
    }

    @Test func countersSurviveARestartAndExpiredOnesArePurged() async throws {
        let world = try await TestWorld.make(backend: .sqlite) { $0.signInMaxFailures = 3 }
        try await world.register(Self.owner, password: Self.password)
        for _ in 0..<3 { await Self.attempt(world, password: "guess", from: "203.0.113.5") }

        // A second service on the same file (a restart, or another process) sees the same counters.
        let restarted = await CaptureFeatures.make(
            settings: world.service.settings, catalog: world.service.catalog,
            store: CaptureDatabase.repositories(try CaptureDatabase.open(path: world.database)), time: world.time)
        #expect(await Self.attempt(restarted, password: Self.password, from: "203.0.113.5") == .limited)

        let before = try await world.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM throttle") ?? 0 }
        #expect(before >= 3)
        world.time.advance(by: world.service.settings.signInWindowSeconds + 1)
        #expect(await Self.attempt(restarted, password: Self.password, from: "203.0.113.5") == .signedIn)
        let rows = try await world.pool.read { db in try String.fetchAll(db, sql: "SELECT key FROM throttle") }
        // What is left: the owner's known address, kept 90 days; nothing stores an address or an email in clear.
        #expect(rows.count == 1)
        #expect(rows.allSatisfy { $0.count == 64 && !$0.contains("@") && !$0.contains(".") })
    }

    @Test func registrationIsLimitedPerAddress() async throws {
        let world = try await TestWorld.make { $0.registrationsPerAddress = 2 }
        for index in 0..<2 {
            _ = try await world.service.signIn.register(
                FlowRequest(parameters: TestWorld.registration(email: "r\(index)@example.com"), remoteAddress: "203.0.113.1"))
        }
        await #expect(throws: CaptureError.rateLimited) {
            try await world.service.signIn.register(
                FlowRequest(parameters: TestWorld.registration(email: "r9@example.com"), remoteAddress: "203.0.113.1"))
        }
        _ = try await world.service.signIn.register(
            FlowRequest(parameters: TestWorld.registration(email: "r9@example.com"), remoteAddress: "203.0.113.2"))
    }

    @Test func anAddressInUseCostsRegistrationTheSamePasswordHash() async throws {
        let world = try await TestWorld.make()
        let counting = CountingHasher(BcryptPasswordHasher(cost: 10))
        let service = CaptureFeatures(
            settings: world.service.settings, catalog: world.service.catalog, store: world.service.store,
            parts: .init(hasher: counting, time: world.time, random: SystemRandom(), decoyHash: await counting.hash("decoy")))
        _ = try await service.signIn.register(FlowRequest(parameters: TestWorld.registration(email: "taken@example.com")))
        let before = counting.hashes
        await #expect(throws: CaptureError.emailAddressInUse(field: "emailAddress")) {
            try await service.signIn.register(FlowRequest(parameters: TestWorld.registration(email: "taken@example.com")))
        }
        #expect(counting.hashes == before + 1, "the 380 path does the same bcrypt work as a new registration")
    }
}

/// Counts the hashes a real hasher computes.
final class CountingHasher: PasswordHasher {
    let inner: any PasswordHasher
    private let count = Mutex(0)
    init(_ inner: any PasswordHasher) { self.inner = inner }
    var hashes: Int { count.withLock { $0 } }

    func hash(_ password: String) async -> String {
        count.withLock { $0 += 1 }
        return await inner.hash(password)
    }

    func verify(_ password: String, hash: String) async -> Bool {
        await inner.verify(password, hash: hash)
    }
}
