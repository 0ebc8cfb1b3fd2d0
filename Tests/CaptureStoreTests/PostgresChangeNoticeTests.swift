import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 32: two instances on one PostgreSQL database, each running its storage's services as the server does. The
/// clients' version comes from memory (PostgreSQL's change notices), not a round trip: it answers while another
/// connection holds the counter's table locked. A change through one instance is seen by itself at once and by the
/// other once the notice arrives (under `make bench`, `TestTiming.bounded`, within a second); when the notices'
/// connections are ended, each instance reads the version from the database (still right) until its listener is back.
@Suite struct PostgresChangeNoticeTests {
    @Test func aClientChangeReachesTheOtherInstanceAndADroppedListenerFallsBackToReading() async throws {
        try await PostgresInstances.run { pair in
            let (first, second) = (pair.first, pair.second)
            let initial = try await pair.storedClientsVersion()
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await pair.clientsVersionsFromMemory() == [initial, initial]
                }, "both listening")

            // A change through the first: itself at once, the other once the notice arrives; both still from memory.
            try await first.repositories.clients.upsert(Self.client("listener-one"))
            let changed = try await pair.storedClientsVersion()
            #expect(changed > initial)
            #expect(try await first.repositories.clients.version() == changed)
            let clock = ContinuousClock()
            let started = clock.now
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await second.repositories.clients.version() == changed
                })
            let seen = clock.now - started
            print("a client change seen by the other instance after \(seen)")
            if TestTiming.bounded { #expect(seen < .seconds(1)) }
            #expect(try await pair.clientsVersionsFromMemory() == [changed, changed])

            // The notices' connections end (an administrator, a restart): each instance reads the version meanwhile,
            // a change made then is seen, and the listeners come back by themselves. (Both listen first: on a busy
            // machine a heartbeat answered late has a listener connect again.)
            #expect(try await pair.bothListening())
            let ended = try await pair.listeners("pg_terminate_backend(pid)")
            #expect(ended.count == 2, "one listener per instance")
            try await first.repositories.clients.upsert(Self.client("listener-two"))
            let again = try await pair.storedClientsVersion()
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await second.repositories.clients.version() == again
                })
            #expect(
                try await PostgresInstances.eventually(TestTiming.patience) {
                    try await pair.clientsVersionsFromMemory() == [again, again]
                }, "listening again")
        }
    }

    static func client(_ id: String) -> Client {
        Client(
            clientID: id, name: id, secretHash: nil, redirectURIs: ["https://app.example/done"], allowedOrigins: [],
            responseTypes: [.token], legacyTokenURL: false, accessTokenLifeHours: nil, createdAt: Date())
    }
}
