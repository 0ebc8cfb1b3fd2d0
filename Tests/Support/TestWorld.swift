import CaptureCore
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

/// A service on its own temporary SQLite file, with the repository's Settings and WebFlows.
public struct TestWorld: Sendable {
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let settingsDirectory = repositoryRoot.appendingPathComponent("Settings")

    public let service: CaptureService
    public let pool: DatabasePool
    public let database: String
    public let time: TestTime

    public static func make(
        settingsDirectory: URL = settingsDirectory, time: TestTime = TestTime(), metrics: CaptureMetrics = .facade,
        configure: (inout ServiceSettings) -> Void = { _ in }
    ) async throws -> TestWorld {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-test-\(UUID().uuidString)")
        var settings = try ServiceSettings.load(file: settingsDirectory.appendingPathComponent("service.json"))
        settings.bcryptCost = 10
        settings.port = 8080
        settings.database = directory.appendingPathComponent("capture.sqlite").path
        configure(&settings)
        let pool = try CaptureDatabase.open(path: settings.database)
        var service = await CaptureService.make(
            settings: settings, catalog: try FlowCatalog.load(directory: settingsDirectory),
            store: CaptureDatabase.repositories(pool, metrics: metrics), time: time)
        service.metrics = metrics
        try await service.syncSettingsClients()
        return TestWorld(service: service, pool: pool, database: settings.database, time: time)
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
        try await service.register(FlowRequest(parameters: Self.registration(email: email, password: password)))
    }
}

extension CaptureService {
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
