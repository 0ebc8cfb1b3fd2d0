import CaptureCore
import CaptureStorage
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// `capturectl db copy`: a populated SQLite file to PostgreSQL and back, every record of every table the same (as each
/// backend maps its rows, and as the features' repositories read them), and the copy serving the same sessions.
@Suite struct DatabaseCopyTests {
    @Test func aSQLiteFileCopiedToPostgreSQLAndBackKeepsEveryRecordAndItsSessions() async throws {
        let (world, live) = try await CopiedStore.populated()
        let now = world.time.now()
        let source = try await CopiedStore.everyRecord(world.storage)
        for table in CopiedTable.allCases {
            #expect(source[table].map { $0.count > 0 } == true, "nothing in \(table.name) to copy")
        }

        let postgres = TestStorage.connectionString(try await TestStorage.newLocation(.postgres))
        let copied = try await CLI.run(["db", "copy", "--from", world.database, "--to", postgres, "--json"])
        #expect(copied.status == 0, "\(copied.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [[String: Any]])
        #expect(report.map { $0["table"] as? String } == CopiedTable.allCases.map(\.name))
        for entry in report {
            let table = try #require(CopiedTable(rawValue: entry["table"] as? String ?? ""))
            #expect(entry["rows"] as? Int == source[table]?.count, "\(entry)")
        }
        let onPostgres = try await OpenedStorage.open(try DatabaseLocation(postgres))
        #expect(try await CopiedStore.everyRecord(onPostgres) == source)
        let readings = try await RepositoryReadings.read(world.storage.repositories, naming: source, now: now)
        #expect(readings.users.count == 2 && readings.users.allSatisfy { $0 != nil })
        #expect(try await RepositoryReadings.read(onPostgres.repositories, naming: source, now: now) == readings)

        // The copy serves the same sessions: the access token checks, the refresh token rotates (new ids continue
        // after the copied ones), the reused chain stays revoked; a new account's number stays above the floor.
        let service = await CaptureFeatures.make(
            settings: world.service.settings, catalog: world.service.catalog, store: onPostgres.repositories,
            time: world.time, codeKey: world.service.codeKey)
        #expect(try await service.profile.entity(accessToken: live.accessToken).email == "other@example.com")
        // Under the same code key the copy publishes the same signing keys.
        #expect(try await service.signingKeys.document() == world.service.signingKeys.document())
        _ = try await service.tokens.refresh(refreshToken: live.refreshToken, clientID: "demo-mobile-app", clientSecret: nil)
        try await Self.expectIDsContinue(onPostgres, after: source, now: now)
        var parameters = TestWorld.registration(email: "after@example.com")
        parameters["displayName"] = "After"
        let after = try await service.signIn.register(FlowRequest(parameters: parameters)).user
        guard case .userNumberFloor(let floor)? = source[.userNumberFloor], case .users(let users)? = source[.users] else {
            Issue.record("no floor or users read")
            return
        }
        #expect(floor.count == 1 && floor[0] > users.compactMap(\.number).max() ?? 0)
        #expect((after.number ?? 0) > floor[0])

        // Back into a new SQLite file: the same records again (the refresh and registration made on PostgreSQL
        // included).
        let back = TestStorage.connectionString(try await TestStorage.newLocation(.sqlite))
        let returned = try await CLI.run(["db", "copy", "--from", postgres, "--to", back])
        #expect(returned.status == 0, "\(returned.stderr)")
        let onSQLite = try await OpenedStorage.open(try DatabaseLocation(back))
        let fromPostgres = try await CopiedStore.everyRecord(onPostgres)
        #expect(try await CopiedStore.everyRecord(onSQLite) == fromPostgres)
        #expect(
            try await RepositoryReadings.read(onSQLite.repositories, naming: fromPostgres, now: now)
                == RepositoryReadings.read(onPostgres.repositories, naming: fromPostgres, now: now))
        try await Self.expectIDsContinue(onSQLite, after: fromPostgres, now: now)

        // A target that already holds records is refused, and left as it was.
        let again = try await CLI.run(["db", "copy", "--from", world.database, "--to", back])
        #expect(again.status == 1 && again.stderr.contains("not empty"), "\(again.stderr)")
        #expect(try await onSQLite.records.count(.users) == 3)
        try await onPostgres.close()
        try await onSQLite.close()
    }

    /// A token and an audit entry written after a copy take ids above every copied one.
    static func expectIDsContinue(_ store: OpenedStorage, after copied: [CopiedTable: CopiedPage], now: Date) async throws {
        guard case .tokens(let tokens)? = copied[.tokens], case .auditLog(let entries)? = copied[.auditLog] else {
            Issue.record("no tokens or audit entries copied")
            return
        }
        let token = TokenRecord(
            kind: .device, hash: "after-copy-\(UUID().uuidString)", userID: tokens[0].userID, clientID: "demo-mobile-app",
            chainID: "after", issuedAt: now, expiresAt: now + 60)
        try await store.repositories.tokens.insert([token])
        let stored = try #require(try await store.repositories.tokens.find(hash: token.hash)?.id)
        #expect(stored > tokens.compactMap(\.id).max() ?? 0)
        try await store.repositories.audit.append(
            AuditEntry(id: nil, at: now, actor: "test", action: "after.copy", target: "x", outcome: "ok", detail: nil))
        let audited = try #require(try await store.repositories.audit.list(AuditFilter(action: "after.copy")).first?.id)
        #expect(audited > entries.compactMap(\.id).max() ?? 0)
    }

    /// Nobody can add a table to a backend's migrations and forget the copy: every table of a new store of either
    /// backend is one `CopiedTable` names, or one said here to be left out.
    @Test(arguments: TestBackend.allCases)
    func everyTableOfABackendIsCopied(_ backend: TestBackend) async throws {
        let leftOut: Set<String> = [
            "change_counters",  // versions of this store's own changes, for its caches: a new store starts its own
            "grdb_migrations", "capture_migrations",  // the schema's own steps, made by opening the target
        ]
        let location = try await TestStorage.newLocation(backend)
        let store = try await OpenedStorage.open(location)
        let tables: Set<String>
        switch location {
        case .sqlite:
            tables = Set(
                try await store.sqlite!.read { db in
                    try String.fetchAll(
                        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                })
        case .postgres(let server):
            tables = Set(
                try await PostgresTestServer.shared.rows(
                    """
                    SELECT table_name FROM information_schema.tables
                    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                    """, on: server
                ).map { $0[0] })
        }
        try await store.close()
        #expect(tables.subtracting(leftOut) == Set(CopiedTable.allCases.map(\.name)))
    }

    @Test func aMissingSourceOrABadURLIsRefusedBeforeAnythingIsWritten() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        let missing = try await CLI.run(["db", "copy", "--from", "/nonexistent/capture.sqlite", "--to", target])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/capture.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: target))
        let bad = try await CLI.run(["db", "copy", "--from", "mysql://x/y", "--to", target])
        #expect(bad.status == 2 && bad.stderr.contains("not supported"), "\(bad.stderr)")
    }
}
