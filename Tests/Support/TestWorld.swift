import CaptureCore
import CaptureStorage
import CaptureStore
import Foundation
import GRDB
import Synchronization

/// A clock tests can move: frozen at `start`, or (`followingWallClock`) running with real time, for tests that meet
/// servers stamping real times (an OpenID provider's ID tokens) however long a loaded machine takes between steps.
public final class TestTime: TimeSource {
    private let current: Mutex<Date>
    private let runs: Bool

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
        runs = false
    }

    private init(offsetFromWallClock: TimeInterval) {
        current = Mutex(Date(timeIntervalSinceReferenceDate: offsetFromWallClock))
        runs = true
    }

    /// Real time, which `advance` moves ahead.
    public static func followingWallClock() -> TestTime { TestTime(offsetFromWallClock: 0) }

    public func now() -> Date {
        let stored = current.withLock { $0 }
        return runs ? Date() + stored.timeIntervalSinceReferenceDate : stored
    }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }
}

/// A service on its own new store, with the repository's Settings and WebFlows: a temporary SQLite file, or a new
/// PostgreSQL database when `CAPTURE_TEST_BACKEND=postgres` (`TestBackend.selected`). A test that looks into the SQLite
/// file itself (its pages, its WAL, raw SQL) asks for `backend: .sqlite`.
public struct TestWorld: Sendable {
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let settingsDirectory = repositoryRoot.appendingPathComponent("Settings")

    /// A temporary copy of Settings whose schema.json has `text` replaced by `replacement` (the caller removes it).
    public static func settingsCopy(replacingInSchema text: String, with replacement: String) throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: settingsDirectory, to: copy)
        let schema = copy.appendingPathComponent("schema.json")
        try String(contentsOf: schema, encoding: .utf8).replacingOccurrences(of: text, with: replacement)
            .write(to: schema, atomically: true, encoding: .utf8)
        return copy
    }

    public let service: CaptureFeatures
    public let storage: OpenedStorage
    /// What `--db` takes to reach the same store (a file path, or a PostgreSQL URL with its password).
    public let database: String
    public let time: TestTime

    /// The SQLite file's pool; only for worlds made with `backend: .sqlite`.
    public var pool: DatabasePool {
        guard let pool = storage.sqlite else {
            preconditionFailure("this test reads the SQLite file: make its world with backend: .sqlite")
        }
        return pool
    }

    /// Runs SQL that reads the same on both backends (`ALTER TABLE … RENAME TO …`) on the world's database, through a
    /// connection of its own.
    public func execute(sql: String) async throws {
        switch storage.location {
        case .sqlite: try await pool.write { db in try db.execute(sql: sql) }
        case .postgres(let location): try await PostgresTestServer.shared.execute(sql, on: location)
        }
    }

    public static func make(
        backend: TestBackend = .selected, settingsDirectory: URL = settingsDirectory, time: TestTime = TestTime(),
        metrics: CaptureMetrics = .facade, legacy: (any LegacyApp)? = nil,
        configure: (inout ServiceSettings) -> Void = { _ in }
    ) async throws -> TestWorld {
        let location = try await TestStorage.newLocation(backend)
        var settings = try ServiceSettings.load(file: settingsDirectory.appendingPathComponent("service.json"))
        settings.bcryptCost = 4  // below what a settings file may say (10): these tests are not about bcrypt
        settings.port = 8080
        settings.database = TestStorage.connectionString(location)
        configure(&settings)
        let storage = try await OpenedStorage.open(try settings.databaseLocation(), metrics: metrics)
        let service = await CaptureFeatures.make(
            settings: settings, catalog: try FlowCatalog.load(directory: settingsDirectory), store: storage.repositories,
            time: time, metrics: metrics, legacy: legacy)
        try await service.clientAdmin.syncSettingsClients()
        return TestWorld(service: service, storage: storage, database: settings.database, time: time)
    }

    /// The common parameters the demo page sends.
    public static func flowParameters(form: String, flow: String = "webViewSignIn") -> [String: String] {
        ["client_id": "demo-mobile-app", "flow": flow, "locale": "en-US", "response_type": "token", "form": form]
    }

    public static func registration(email: String, password: String = "correct horse battery") -> [String: String] {
        flowParameters(form: "registrationForm").merging([
            "emailAddress": email, "displayName": "Tester", "firstName": "Tess", "lastName": "Ter",
            "newPassword": password, "newPasswordConfirm": password,
        ]) { _, new in new }
    }

    public static func signIn(email: String, password: String) -> [String: String] {
        flowParameters(form: "signInForm").merging(["signInEmailAddress": email, "currentPassword": password]) { _, new in new }
    }

    @discardableResult
    public func register(_ email: String, password: String = "correct horse battery") async throws -> AuthResult {
        try await service.signIn.register(FlowRequest(parameters: Self.registration(email: email, password: password)))
    }

    /// `register`, then the address marked proven as a verification code marks it (for tests about something else,
    /// such as linking a provider, which needs a proven address).
    @discardableResult
    public func registerProven(_ email: String, password: String = "correct horse battery") async throws -> AuthResult {
        let result = try await register(email, password: password)
        var user = result.user
        user.emailVerifiedAt = time.now()
        try await service.store.users.update(user)
        return result
    }
}

extension ClientAdministration {
    /// `addClient(_:)` with every field spelled out, as the tests register clients.
    public func addClient(
        id: String, name: String?, confidential: Bool, redirectURIs: [String], allowedOrigins: [String],
        responseTypes: [String], legacyTokenURL: Bool
    ) async throws -> (Client, secret: String?) {
        var draft = ClientDraft(id: id)
        draft.name = name
        draft.confidential = confidential
        draft.redirectURIs = redirectURIs
        draft.allowedOrigins = allowedOrigins
        draft.responseTypes = responseTypes
        draft.legacyTokenURL = legacyTokenURL
        return try await addClient(draft)
    }
}
