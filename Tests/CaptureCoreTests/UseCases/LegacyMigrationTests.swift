import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// When the old Janrain app is asked, and what of its answer is kept (`LegacyMigration`, `LegacyBreaker`): the rules
/// in Core, with the old app played by `ScriptedLegacyApp` (the HTTP client and a real second instance are
/// Tests/Interop/test_signin_migration.py's).
@Suite struct LegacyBreakerTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func breaker(failures: Int = 3, cooldown: TimeInterval = 60, maxInFlight: Int = 8) -> LegacyBreaker {
        LegacyBreaker(
            cutover: start.addingTimeInterval(86400), failuresToOpen: failures, cooldown: cooldown,
            maxInFlight: maxInFlight)
    }

    @Test func neverAskedFromTheCutoverOn() async {
        let breaker = Self.breaker()
        #expect(await breaker.admit(now: Self.start.addingTimeInterval(86399)) != nil)
        #expect(await breaker.admit(now: Self.start.addingTimeInterval(86400)) == nil)
        #expect(await breaker.admit(now: Self.start.addingTimeInterval(10 * 86400)) == nil)
    }

    @Test func opensAfterTheFailuresInARowAndTriesOnceAfterTheCooldown() async throws {
        let breaker = Self.breaker(failures: 3, cooldown: 60)
        var now = Self.start
        for _ in 0..<2 {
            await breaker.finish(try #require(await breaker.admit(now: now)), answered: false, now: now)
        }
        // An answer (yes or no) in between starts the count again.
        await breaker.finish(try #require(await breaker.admit(now: now)), answered: true, now: now)
        for _ in 0..<3 {
            await breaker.finish(try #require(await breaker.admit(now: now)), answered: false, now: now)
        }
        #expect(await breaker.isOpen(now: now))
        #expect(await breaker.admit(now: now.addingTimeInterval(59)) == nil, "not asked while open")
        now = now.addingTimeInterval(60)
        let trial = try #require(await breaker.admit(now: now), "one trial after the cooldown")
        #expect(await breaker.admit(now: now) == nil, "only one trial at a time")
        await breaker.finish(trial, answered: false, now: now)
        #expect(await breaker.admit(now: now.addingTimeInterval(30)) == nil, "a failed trial opens it again")
        now = now.addingTimeInterval(60)
        await breaker.finish(try #require(await breaker.admit(now: now)), answered: true, now: now)
        #expect(!(await breaker.isOpen(now: now)))
        #expect(await breaker.admit(now: now) != nil, "an answered trial closes it")
    }

    @Test func boundsTheCallsInFlight() async throws {
        let breaker = Self.breaker(maxInFlight: 2)
        let first = try #require(await breaker.admit(now: Self.start))
        _ = try #require(await breaker.admit(now: Self.start))
        #expect(await breaker.admit(now: Self.start) == nil)
        await breaker.finish(first, answered: true, now: Self.start)
        #expect(await breaker.admit(now: Self.start) != nil)
    }
}

@Suite struct LegacyMigrationTests {
    static let uuid = "0b6a3b2e-5d1c-4f0e-9a51-2c7d3e4f5a6b"

    static func settings() -> LegacyJanrainSettings {
        // TestTime starts at 2027-01-15; the cutover is after it.
        LegacyJanrainSettings(
            captureUrl: "https://old-app.janraincapture.com", clientId: "owner-client", loginClientId: "login-client",
            cutover: "2027-06-01T00:00:00Z")
    }

    static func record(_ email: String, uuid: String = uuid) -> JSONValue {
        .object([
            "uuid": .string(uuid), "id": .int(4711), "email": .string(email), "givenName": .string("Ada"),
            "created": .string("2019-03-04 05:06:07.000000 +0000"), "oldAppOnlyAttribute": .string("left out"),
            "password": .string("$2a$10$notahashthatwillbekeptxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
        ])
    }

    static func world(
        _ app: ScriptedLegacyApp, configure: (inout ServiceSettings) -> Void = { _ in }
    ) async throws
        -> TestWorld
    {
        try await TestWorld.make(legacy: app) { settings in
            settings.legacyJanrain = Self.settings()
            configure(&settings)
        }
    }

    static func signIn(_ world: TestWorld, _ email: String, _ password: String) async throws -> AuthResult {
        try await world.service.signIn.signIn(FlowRequest(parameters: TestWorld.signIn(email: email, password: password)))
    }

    @Test func theOldAppsYesMigratesTheUserWithItsIDsAndTheTypedPassword() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["ada@example.com": Self.record("ada@example.com")])
        let world = try await Self.world(app)
        let result = try await Self.signIn(world, "Ada@example.com", "old password")
        #expect(result.user.id == Self.uuid && result.user.number == 4711 && result.user.givenName == "Ada")
        #expect(result.user.createdAt == CaptureDate.parse("2019-03-04 05:06:07.000000 +0000"))
        let stored = try #require(try await world.service.store.users.find(email: "ada@example.com"))
        #expect(stored.passwordHash.flatMap(BcryptCost.of) == 4, "the typed password, hashed here")
        #expect(stored.profile["oldAppOnlyAttribute"] == nil)
        let audit = try await world.service.audit.auditLog(AuditFilter(action: "user.migrated"))
        #expect(audit.map(\.target) == [Self.uuid])
        #expect(audit.first?.detail?.contains("https://old-app.janraincapture.com") == true)
        // Now a local password: the old app is not asked again, for a right or a wrong one.
        _ = try await Self.signIn(world, "ada@example.com", "old password")
        await #expect(throws: CaptureError.invalidCredentials) { try await Self.signIn(world, "ada@example.com", "nope") }
        #expect(await app.signIns == 1)
    }

    /// A record imported without a usable hash gets the typed password when the old app vouches for the same record;
    /// a record made here (a social sign-in: no password) cannot be given one by the old app.
    @Test func aLocalRecordWithoutAPasswordIsCompletedOnlyByItsOwnUUID() async throws {
        let app = ScriptedLegacyApp(
            password: "old password",
            records: [
                "jo@example.com": Self.record("jo@example.com"),
                "kim@example.com": Self.record("kim@example.com", uuid: "22222222-3333-4444-8555-666666666666"),
            ])
        let world = try await Self.world(app)
        let imported = User(id: Self.uuid, email: "jo@example.com", passwordHash: nil, createdAt: world.time.now())
        let madeHere = User(
            id: "77777777-8888-4999-8aaa-bbbbbbbbbbbb", email: "kim@example.com", passwordHash: nil,
            createdAt: world.time.now())
        _ = try await world.service.store.users.importBatch([imported, madeHere])
        let result = try await Self.signIn(world, "jo@example.com", "old password")
        #expect(result.user.id == Self.uuid)
        #expect(try await world.service.store.users.find(id: Self.uuid)?.passwordHash != nil)
        await #expect(throws: CaptureError.invalidCredentials) {
            try await Self.signIn(world, "kim@example.com", "old password")
        }
        #expect(try await world.service.store.users.find(email: "kim@example.com")?.passwordHash == nil)
        #expect(await app.signIns == 2)
    }

    /// A hash this service never runs (bcrypt over the cost bounds, stored before imports were bounded) is no usable
    /// password: the old app is asked, and its yes replaces it with the typed password hashed here.
    @Test func aRecordWhoseHashIsNeverRunIsCompletedByTheOldApp() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["pat@example.com": Self.record("pat@example.com")])
        let world = try await Self.world(app)
        let costly = "$2b$31$" + String(repeating: "a", count: 53)
        #expect(StoredPasswordHash.format(of: costly) == .unusable)
        let imported = User(id: Self.uuid, email: "pat@example.com", passwordHash: costly, createdAt: world.time.now())
        _ = try await world.service.store.users.importBatch([imported])
        let result = try await Self.signIn(world, "pat@example.com", "old password")
        #expect(result.user.id == Self.uuid)
        #expect(try await world.service.store.users.find(id: Self.uuid)?.passwordHash.flatMap(BcryptCost.of) == 4)
        #expect(await app.signIns == 1)
    }

    /// Two sign-ins of one person racing: the one that finds the record already migrated by the other goes on with
    /// it (its password is the one the old app vouched for) instead of failing; one record, one audit row.
    @Test func aSignInThatLosesTheRaceToMigrateSignsInWithTheRecordTheOtherMade() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["lu@example.com": Self.record("lu@example.com")])
        let world = try await Self.world(app)
        await app.setMeanwhile {
            _ = try? await Self.signIn(world, "lu@example.com", "old password")
        }
        let result = try await Self.signIn(world, "lu@example.com", "old password")
        #expect(result.user.id == Self.uuid)
        #expect(await app.signIns == 2)
        #expect(try await world.service.audit.auditLog(AuditFilter(action: "user.migrated")).count == 1)
    }

    @Test func theOldAppsNoIsTheOrdinaryRefusalAndNothingIsCreated() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["bo@example.com": Self.record("bo@example.com")])
        let world = try await Self.world(app)
        await #expect(throws: CaptureError.invalidCredentials) { try await Self.signIn(world, "bo@example.com", "wrong") }
        #expect(try await world.service.store.users.find(email: "bo@example.com") == nil)
        #expect(await app.signIns == 1)
    }

    @Test func anAddressWithALocalPasswordNeverAsksTheOldApp() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["cy@example.com": Self.record("cy@example.com")])
        let world = try await Self.world(app)
        try await world.register("cy@example.com", password: "new password")
        await #expect(throws: CaptureError.invalidCredentials) {
            try await Self.signIn(world, "cy@example.com", "old password")
        }
        #expect(await app.signIns == 0)
    }

    @Test func neverAskedAfterTheCutover() async throws {
        let app = ScriptedLegacyApp(password: "old password", records: ["di@example.com": Self.record("di@example.com")])
        let world = try await Self.world(app)
        world.time.advance(by: 200 * 86400)
        await #expect(throws: CaptureError.invalidCredentials) {
            try await Self.signIn(world, "di@example.com", "old password")
        }
        try await world.service.recovery.requestPasswordReset(Self.forgot("di@example.com"))
        #expect(await app.signIns == 0)
        #expect(await app.lookups == 0)
        #expect(try await world.service.store.users.find(email: "di@example.com") == nil)
    }

    /// A hostile or confused old app: a record of another address, or of another uuid than the sign-in vouched
    /// for, plants nothing.
    @Test func aRecordThatIsNotTheOneVouchedForPlantsNothing() async throws {
        // The record answered for the uuid is another address's.
        let otherAddress = ScriptedLegacyApp(password: "pw", records: ["eve@example.com": Self.record("victim@example.com")])
        // The record answered is not of the uuid the sign-in answered.
        let otherUUID = ScriptedLegacyApp(
            password: "pw", records: ["fay@example.com": Self.record("fay@example.com")],
            answeredUUID: "99999999-9999-4999-8999-999999999999")
        for (app, email) in [(otherAddress, "eve@example.com"), (otherUUID, "fay@example.com")] {
            let world = try await Self.world(app)
            await #expect(throws: CaptureError.invalidCredentials) { try await Self.signIn(world, email, "pw") }
            #expect(try await world.service.store.users.find(email: email) == nil)
            #expect(try await world.service.store.users.find(email: "victim@example.com") == nil)
            #expect(try await world.service.store.users.find(id: Self.uuid) == nil)
        }
    }

    /// Every attempt is charged to the sign-in throttle first: a refused attempt counts, and once the limit is used
    /// up the old app is not asked at all.
    @Test func migrationAttemptsAreThrottledLikeAnySignIn() async throws {
        let app = ScriptedLegacyApp(password: "pw", records: ["gil@example.com": Self.record("gil@example.com")])
        let world = try await Self.world(app) { $0.signInMaxFailures = 2 }
        for _ in 0..<2 {
            await #expect(throws: CaptureError.invalidCredentials) { try await Self.signIn(world, "gil@example.com", "x") }
        }
        await #expect(throws: CaptureError.rateLimited) { try await Self.signIn(world, "gil@example.com", "pw") }
        #expect(await app.signIns == 2)
    }

    @Test func anOldAppThatDoesNotAnswerIsTheOrdinaryRefusalAndOpensTheBreaker() async throws {
        let app = ScriptedLegacyApp(password: "pw", records: [:], failing: true)
        let world = try await Self.world(app) { $0.legacyJanrain?.breakerFailures = 2 }
        for index in 0..<4 {
            await #expect(throws: CaptureError.invalidCredentials) {
                try await Self.signIn(world, "h\(index)@example.com", "pw")
            }
        }
        #expect(await app.signIns == 2, "asked until the breaker opened")
        let failures = try await world.service.audit.auditLog(AuditFilter(action: "user.migration_failed"))
        #expect(failures.count == 1, "one row a minute, naming the old app, not the address")
        #expect(failures.first?.target == "https://old-app.janraincapture.com")
    }

    @Test func forgotPasswordForAnAddressOnlyTheOldAppKnowsMigratesItAndMailsHere() async throws {
        let app = ScriptedLegacyApp(password: "pw", records: ["ida@example.com": Self.record("ida@example.com")])
        let world = try await Self.world(app)
        try await world.service.recovery.requestPasswordReset(Self.forgot("ida@example.com"))
        let user = try #require(try await world.service.store.users.find(email: "ida@example.com"))
        #expect(user.id == Self.uuid && user.passwordHash == nil)
        let mail = try await world.service.store.outbox.list(limit: 10).filter { $0.status == .pending }
        #expect(mail.map(\.recipient) == ["ida@example.com"] && mail.first?.kind == .passwordReset)
        // Unknown to both: the same reply, nothing created, nothing mailed.
        try await world.service.recovery.requestPasswordReset(Self.forgot("nobody@example.com"))
        #expect(try await world.service.store.users.find(email: "nobody@example.com") == nil)
        #expect(try await world.service.store.outbox.list(limit: 10).filter { $0.status == .pending }.count == 1)
    }

    static func forgot(_ email: String) -> FlowRequest {
        FlowRequest(
            parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(["signInEmailAddress": email]) { $1 })
    }
}

/// The old Janrain app as `LegacyMigration` sees it, scripted: one password for every address it holds a record of.
actor ScriptedLegacyApp: LegacyApp {
    let password: String
    let records: [String: JSONValue]
    let answeredUUID: String?
    let failing: Bool
    private(set) var signIns = 0
    private(set) var lookups = 0
    /// Runs while a sign-in waits for the old app's answer (another request doing its work meanwhile).
    var meanwhile: (@Sendable () async -> Void)?

    func setMeanwhile(_ work: @escaping @Sendable () async -> Void) { meanwhile = work }

    init(password: String, records: [String: JSONValue], answeredUUID: String? = nil, failing: Bool = false) {
        self.password = password
        self.records = records
        self.answeredUUID = answeredUUID
        self.failing = failing
    }

    func signIn(email: String, password: String) async -> LegacyAnswer<String> {
        signIns += 1
        if let work = meanwhile {
            meanwhile = nil
            await work()
        }
        if failing { return .failed("scripted: no answer") }
        guard password == self.password, let record = records[email], case .object(let members) = record,
            case .string(let uuid)? = members["uuid"]
        else { return .refused }
        return .found(answeredUUID ?? uuid)
    }

    func record(_ key: LegacyRecordKey) async -> LegacyAnswer<JSONValue> {
        lookups += 1
        if failing { return .failed("scripted: no answer") }
        switch key {
        case .email(let email): return records[email].map { .found($0) } ?? .refused
        case .uuid(let uuid):
            let match = records.values.first { value in
                guard case .object(let members) = value, case .string(let id)? = members["uuid"] else { return false }
                return id == uuid
            }
            // A hostile app answers its record for the uuid asked about whatever it holds.
            return match.map { .found($0) } ?? records.values.first.map { .found($0) } ?? .refused
        }
    }
}
