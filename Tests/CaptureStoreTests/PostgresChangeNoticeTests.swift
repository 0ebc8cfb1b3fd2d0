import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

/// Issue 32: two instances on one PostgreSQL database, each running its storage's services as the server does. The
/// clients' version comes from memory (PostgreSQL's change notices), not a round trip: it answers while another
/// connection holds the counter's table locked. A change through one instance is seen by itself at once and by the
/// other within a second; when the notices' connections are ended, each instance reads the version from the database
/// (still right) until its listener is back.
@Suite struct PostgresChangeNoticeTests {
    static let logger = Logger(label: "capture.test.postgres")

    @Test func aClientChangeReachesTheOtherInstanceAndADroppedListenerFallsBackToReading() async throws {
        guard case .postgres(let location) = try await TestStorage.newLocation(.postgres) else { return }
        let first = try await OpenedStorage.open(.postgres(location), service: true)
        let second = try await OpenedStorage.open(.postgres(location), service: true)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in first.services + second.services { group.addTask { try await service.run() } }
            defer { group.cancelAll() }
            let probe = try await PostgresTestServer.connectWhenASlotFrees(location)
            func read(_ sql: String) async throws -> [PostgresRow] {
                try await probe.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).collect()
            }
            func stored() async throws -> Int64 {
                try await read("SELECT version FROM \(location.schema!).change_counters WHERE name = 'clients'")
                    .first!.decode(Int64.self)
            }
            /// The version each store answers while the counter cannot be read: nil for one that would have to read it.
            func fromMemory() async throws -> [Int64?] {
                _ = try await read("BEGIN")
                _ = try await read("LOCK TABLE \(location.schema!).change_counters IN ACCESS EXCLUSIVE MODE")
                var answers: [Int64?] = []
                for store in [first, second] {
                    let clients = store.repositories.clients
                    // A read waits for the lock; it is left to finish after the rollback.
                    let asked = Task { try await clients.version() }
                    answers.append(try? await PostgresTestServer.within(.milliseconds(500), asked).get())
                }
                _ = try await read("ROLLBACK")
                return answers
            }
            func eventually(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
                let deadline = ContinuousClock.now + limit
                while ContinuousClock.now < deadline {
                    if try await condition() { return true }
                    try await Task.sleep(for: .milliseconds(10))
                }
                return try await condition()
            }

            let initial = try await stored()
            #expect(try await eventually(.seconds(10)) { try await fromMemory() == [initial, initial] }, "both listening")

            // A change through the first: itself at once, the other within a second; both still from memory.
            try await first.repositories.clients.upsert(Self.client("listener-one"))
            let changed = try await stored()
            #expect(changed > initial)
            #expect(try await first.repositories.clients.version() == changed)
            let clock = ContinuousClock()
            let started = clock.now
            #expect(try await eventually(.seconds(1)) { try await second.repositories.clients.version() == changed })
            #expect(clock.now - started < .seconds(1))
            #expect(try await fromMemory() == [changed, changed])

            // The notices' connections end (an administrator, a restart): each instance reads the version meanwhile,
            // a change made then is seen, and the listeners come back by themselves.
            let ended = try await read(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE application_name = 'capture-bridge changes \(location.schema!)'
                """)
            #expect(ended.count == 2, "one listener per instance")
            try await first.repositories.clients.upsert(Self.client("listener-two"))
            let again = try await stored()
            #expect(try await eventually(.seconds(1)) { try await second.repositories.clients.version() == again })
            #expect(try await eventually(.seconds(10)) { try await fromMemory() == [again, again] }, "listening again")
            try await probe.close()
        }
        try await first.close()
        try await second.close()
    }

    static func client(_ id: String) -> Client {
        Client(
            clientID: id, name: id, secretHash: nil, redirectURIs: ["https://app.example/done"], allowedOrigins: [],
            responseTypes: ["token"], legacyTokenURL: false, accessTokenLifeHours: nil, createdAt: Date())
    }
}
