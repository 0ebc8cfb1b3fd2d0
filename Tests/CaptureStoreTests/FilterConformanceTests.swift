import CaptureCore
import CaptureJSON
import CaptureStorage
import CaptureTestSupport
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import CapturePostgres
@testable import CaptureStore

/// `entity.find` and `entity.count` filters on the backend the run uses (`CAPTURE_TEST_BACKEND`): the same filters,
/// the same answers on SQLite and PostgreSQL. Every operator, null handling, dates and time zones, dotted paths,
/// sorting, paging by `id > n`, counts, injection attempts as values (matched literally), the indexes the planner
/// uses and the timeout.
@Suite struct FilterConformanceTests {
    static let backend = TestBackend.selected
    static let schema = FilterSchema.schema

    /// Five records read by every test but the timeout's (which has a store of its own).
    struct Seeded: Sendable {
        let storage: OpenedStorage
        /// By name (the address's local part).
        let users: [String: User]
    }

    static let seeded = Task { try await seed() }

    static func date(_ text: String) -> Date { CaptureDate.parse(text)! }

    static func seed() async throws -> Seeded {
        let storage = try await TestStorage.open(backend)
        try await storage.repositories.users.prepareFilterIndexes(for: schema)
        let records: [(String, String, [String: JSONValue])] = [
            (
                "ann", "2016-01-01 00:00:00 +0000",
                [
                    "gender": "female", "age": 30, "height": .double(1.7), "birthday": "1990-05-01", "newsletter": true,
                    "primaryAddress": ["city": "Paris", "geo": ["lat": .double(48.85)]],
                    "optIn": ["status": true, "updated": "2016-05-01 10:00:00.000000 +0000"], "memberCode": "A1",
                    "score": 10, "displayName": "O'Brien",
                ]
            ),
            (
                "bob", "2016-03-01 12:00:00 +0000",
                [
                    "gender": "male", "age": 25, "height": .double(1.8), "birthday": "1985-01-15", "newsletter": false,
                    "primaryAddress": ["city": "London"], "memberCode": "B2", "score": 20, "displayName": "' OR 1=1 --",
                ]
            ),
            (
                "cy", "2016-05-01 00:00:00 +0000",
                ["gender": "male", "age": .null, "primaryAddress": ["city": .null], "score": 5, "displayName": "Zoë"]
            ),
            (
                "dee", "2016-06-01 08:30:00 +0000",
                ["age": 41, "height": .double(1.65), "birthday": "2012-06-14", "memberCode": "D4", "displayName": "paris"]
            ),
            (
                "eve", "2017-01-01 00:00:00 +0000",
                [
                    "gender": "female", "age": 18, "height": .double(1.5), "birthday": "2012-06-13", "newsletter": true,
                    "primaryAddress": ["city": "paris"], "score": 30, "displayName": "100%_",
                ]
            ),
        ]
        var users: [String: User] = [:]
        for (name, created, profile) in records {
            var user = User(
                id: UUID().uuidString, email: "\(name)@example.com", passwordHash: nil, createdAt: date(created))
            user.profile = profile
            user.updatedAt = user.createdAt + 3600
            if name == "ann" || name == "dee" { user.lastLoginAt = user.createdAt + 7200 }
            users[name] = try await storage.repositories.users.insert(user)
        }
        return Seeded(storage: storage, users: users)
    }

    /// The names of the records `filter` finds, in the order asked.
    func find(
        _ filter: String?, sortOn: String? = nil, maxResults: String? = nil, firstResult: String? = nil
    ) async throws -> [String] {
        let seeded = try await Self.seeded.value
        let query = try EntityQuery(
            schema: Self.schema, filter: filter, sortOn: sortOn, maxResults: maxResults, firstResult: firstResult,
            timeout: nil)
        let found = try await seeded.storage.repositories.users.find(query)
        let count = try await seeded.storage.repositories.users.count(query.filter, timeout: query.timeout)
        if maxResults == nil && firstResult == nil { #expect(count == found.count, "\(filter ?? "")") }
        return found.map { String($0.email.prefix { $0 != "@" }) }
    }

    @Test func everyOperatorAndNull() async throws {
        let cases: [(String, [String])] = [
            ("gender = 'male'", ["bob", "cy"]),
            // An absent attribute matches no comparison, `!=` included (as in SQL).
            ("gender != 'male'", ["ann", "eve"]),
            ("not gender = 'male'", ["ann", "eve"]),
            ("!(gender = 'male')", ["ann", "eve"]),
            ("gender is null", ["dee"]),
            ("gender is not null", ["ann", "bob", "cy", "eve"]),
            ("not gender is null", ["ann", "bob", "cy", "eve"]),
            // A JSON null is null.
            ("age is null", ["cy"]),
            ("age > 25", ["ann", "dee"]),
            ("age >= 25", ["ann", "bob", "dee"]),
            ("age < 25", ["eve"]),
            ("age <= '25'", ["bob", "eve"]),
            ("age = 30", ["ann"]),
            ("age != 30", ["bob", "dee", "eve"]),
            ("age > 24.5", ["ann", "bob", "dee"]),
            ("age > 99999999999999999999", []),
            ("height = 1.7", ["ann"]),
            ("height < 1.7", ["dee", "eve"]),
            ("height >= 1.65 and height <= 1.75", ["ann", "dee"]),
            ("newsletter = true", ["ann", "eve"]),
            ("newsletter = false", ["bob"]),
            ("newsletter != TRUE", ["bob"]),
            ("newsletter is null", ["cy", "dee"]),
            ("optIn.status = 'true'", ["ann"]),
            ("gender = 'male' and age > 20 or primaryAddress.city = 'paris'", ["bob", "eve"]),
            ("gender = 'male' and (age > 20 or primaryAddress.city = 'paris')", ["bob"]),
            ("(gender = 'female' or gender is null) and not (age < 20)", ["ann", "dee"]),
        ]
        for (filter, expected) in cases {
            #expect(try await find(filter) == expected, "\(filter)")
        }
    }

    @Test func datesPathsAndColumns() async throws {
        let seeded = try await Self.seeded.value
        let bob = try #require(seeded.users["bob"])
        let cases: [(String, [String])] = [
            ("birthday > '1990-01-01'", ["ann", "dee", "eve"]),
            ("birthday>'2012-06-13 18:02:56.012122 +0000'", ["dee"]),
            ("birthday >= '2012-06-13'", ["dee", "eve"]),
            ("birthday <= '2012-06-13 18:00:00 +0000'", ["ann", "bob", "eve"]),
            ("birthday = '2012-06-13 18:00:00 +0000'", []),
            ("birthday != '2012-06-13 18:00:00 +0000'", ["ann", "bob", "dee", "eve"]),
            ("birthday is null", ["cy"]),
            // The same instant in three zones; cy was created exactly then.
            ("created >= '2016-05-01 00:00:00 +0000'", ["cy", "dee", "eve"]),
            ("created >= '2016-05-01 02:00:00 +0200'", ["cy", "dee", "eve"]),
            ("created > '2016-04-30 19:00:00.000 -0500'", ["dee", "eve"]),
            ("created < '2016-05-01'", ["ann", "bob"]),
            ("lastUpdated >= '2016-06-01 09:30:00 +0000'", ["dee", "eve"]),
            ("lastUpdated > '2016-06-01T09:30:00Z'", ["eve"]),
            ("lastLogin is not null", ["ann", "dee"]),
            ("lastLogin > '2016-01-01 01:59:59 +0000'", ["ann", "dee"]),
            ("emailVerified is null", ["ann", "bob", "cy", "dee", "eve"]),
            ("optIn.updated > '2016-05-01 11:00:00 +0200'", ["ann"]),
            ("optIn.updated > '2016-05-01 12:00:00 +0200'", []),
            // Dotted paths; text compares exactly.
            ("primaryAddress.city = 'Paris'", ["ann"]),
            ("primaryAddress.city is null", ["cy", "dee"]),
            ("primaryAddress.geo.lat > 40", ["ann"]),
            ("email = 'BOB@example.com'", ["bob"]),
            ("email != 'bob@example.com' and email < 'd'", ["ann", "cy"]),
            ("uuid = '\(bob.id)'", ["bob"]),
            ("id = \(bob.number!)", ["bob"]),
            ("id > 2", ["cy", "dee", "eve"]),
            ("memberCode = 'D4' or score = 30", ["dee", "eve"]),
            ("score >= 10", ["ann", "bob", "eve"]),
        ]
        for (filter, expected) in cases {
            #expect(try await find(filter) == expected, "\(filter)")
        }
    }

    @Test func injectionAttemptsMatchLiterally() async throws {
        let cases: [(String, [String])] = [
            ("displayName = ''' OR 1=1 --'", ["bob"]),
            (#"displayName = '\' OR 1=1 --'"#, ["bob"]),
            ("displayName = 'O''Brien'", ["ann"]),
            ("displayName = '100%_'", ["eve"]),
            ("displayName = '%'", []),
            ("displayName = '1%'", []),
            ("gender = 'male'' OR ''1''=''1'", []),
            ("gender = 'male; DROP TABLE users; --'", []),
            ("gender = 'male'' /* */ --'", []),
            ("displayName = 'Zoë'", ["cy"]),
            ("displayName > 'Z'", ["cy", "dee"]),
        ]
        for (filter, expected) in cases {
            #expect(try await find(filter) == expected, "\(filter)")
        }
        // Still all there.
        #expect(try await find(nil) == ["ann", "bob", "cy", "dee", "eve"])
    }

    @Test func sortingAndPaging() async throws {
        #expect(try await find(nil, sortOn: #"["-age"]"#) == ["dee", "ann", "bob", "eve", "cy"])
        #expect(try await find(nil, sortOn: #"["age"]"#) == ["cy", "eve", "bob", "ann", "dee"])
        #expect(try await find(nil, sortOn: #"["gender", "-id"]"#) == ["dee", "eve", "ann", "cy", "bob"])
        // Text sorts byte by byte on both backends.
        #expect(try await find(nil, sortOn: #"["displayName"]"#) == ["bob", "eve", "ann", "cy", "dee"])
        #expect(try await find(nil, sortOn: #"["-created"]"#) == ["eve", "dee", "cy", "bob", "ann"])
        #expect(try await find(nil, sortOn: #"["newsletter"]"#) == ["cy", "dee", "bob", "ann", "eve"])
        #expect(try await find(nil, sortOn: #"["-primaryAddress.city"]"#) == ["eve", "ann", "bob", "cy", "dee"])
        #expect(try await find("age is not null", sortOn: #"["-height"]"#) == ["bob", "ann", "dee", "eve"])
        // Janrain's export: sort on id, filter id > the last seen, a page at a time.
        var seen: [String] = []
        var last: Int64 = 0
        let seeded = try await Self.seeded.value
        while true {
            let page = try await find("id > \(last)", sortOn: #"["id"]"#, maxResults: "2")
            if page.isEmpty { break }
            seen += page
            last = try #require(seeded.users[page.last!]?.number)
        }
        #expect(seen == ["ann", "bob", "cy", "dee", "eve"])
        #expect(try await find(nil, maxResults: "2", firstResult: "1") == ["bob", "cy"])
        #expect(
            try await find("gender is not null", sortOn: #"["-id"]"#, maxResults: "3", firstResult: "1") == ["cy", "bob", "ann"])
    }

    @Test func countsFollowTheFilter() async throws {
        let users = try await Self.seeded.value.storage.repositories.users
        let timeout = EntityQuery.defaultTimeout
        #expect(try await users.count(nil, timeout: timeout) == 5)
        #expect(try await users.count(EntityFilter.parse("gender = 'male'", schema: Self.schema), timeout: timeout) == 2)
        #expect(try await users.count(.never, timeout: timeout) == 0)
        #expect(try await users.count(.all([]), timeout: timeout) == 5)
        #expect(try await users.count(.any([]), timeout: timeout) == 0)
    }

    /// Many records, written straight in SQL: queries past their timeout are stopped with Janrain's error, and the
    /// connection works afterwards; the indexes on `lastUpdated`, `id` and the unique and `indexed` attributes serve
    /// the filters that name them.
    @Test func timeoutsAndIndexes() async throws {
        let storage = try await TestStorage.open(Self.backend)
        let users = storage.repositories.users
        try await users.prepareFilterIndexes(for: Self.schema)
        let rows = 20_000
        switch storage.location {
        case .sqlite:
            let pool = try #require(storage.sqlite)
            try await pool.write { db in
                try db.execute(
                    sql: """
                        WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < \(rows))
                        INSERT INTO users (id, number, email, profile, lastElementID, createdAt, updatedAt)
                        SELECT 'big-' || n, n, 'big' || n || '@example.com',
                            json_object('memberCode', 'M' || n, 'score', n, 'displayName', hex(randomblob(8))), 0,
                            '2020-01-01 00:00:00.000', '2020-01-01 00:00:00.000'
                        FROM g
                        """)
                try db.execute(sql: "ANALYZE")
            }
        case .postgres(let location):
            try await PostgresTestServer.shared.execute(
                """
                INSERT INTO users (id, number, email, profile, created_at, updated_at)
                SELECT 'big-' || n, n, 'big' || n || '@example.com',
                    json_build_object('memberCode', 'M' || n, 'score', n, 'displayName', md5(n::text))::text,
                    '2020-01-01 00:00:00+00', '2020-01-01 00:00:00+00'
                FROM generate_series(1, \(rows)) AS n
                """, on: location)
            try await PostgresTestServer.shared.execute("ANALYZE users", on: location)
        }
        let slow = try EntityFilter.parse("displayName >= '0' or score < 0", schema: Self.schema)
        let tiny = Duration.milliseconds(1)
        await #expect(throws: EntityQuery.timedOut(tiny)) {
            try await users.find(EntityQuery(filter: slow, sort: [EntitySort(field: .record(.email))], timeout: tiny))
        }
        await #expect(throws: EntityQuery.timedOut(tiny)) { try await users.count(slow, timeout: tiny) }
        // The connections serve the next query as usual.
        #expect(try await users.count(slow, timeout: .seconds(30)) == rows)
        #expect(try await users.count(nil, timeout: .seconds(30)) == rows)

        // The plans of selective filters use the indexes.
        let filters: [(String, String, Int)] = [
            ("memberCode = 'M77'", FilterIndexName.prefix, 1), ("score = 77", FilterIndexName.prefix, 1),
            ("lastUpdated > '2021-01-01'", "users_by_update", 0), ("id > \(rows - 5)", "number", 5),
        ]
        for (text, index, count) in filters {
            let filter = try EntityFilter.parse(text, schema: Self.schema)
            let plan = try await Self.plan(filter, storage)
            #expect(plan.contains(index), "\(text): \(plan)")
            #expect(try await users.count(filter, timeout: .seconds(30)) == count, "\(text)")
        }
        // An export's page reads `number`'s index in order: no sort of the rest of the table.
        let export = try await Self.exportPlan(after: rows / 2, storage)
        #expect(export.contains("number") && !export.contains("TEMP B-TREE") && !export.contains("Sort"), "\(export)")
    }

    /// The plan of an export's page (Janrain's advice: `sort_on ["id"]`, `filter "id > <last id>"`, `max_results`).
    static func exportPlan(after last: Int, _ storage: OpenedStorage) async throws -> String {
        let order = [EntitySort(field: .record(.id))]
        switch storage.location {
        case .sqlite:
            let (condition, arguments) = SQLiteFilterSQL.condition(.compare(.record(.id), .greater, .integer(Int64(last))))
            return try await storage.sqlite!.read { db in
                try Row.fetchAll(
                    db,
                    sql:
                        "EXPLAIN QUERY PLAN SELECT * FROM users WHERE \(condition) ORDER BY \(SQLiteFilterSQL.orderBy(order)) LIMIT 1000",
                    arguments: arguments
                ).map { $0["detail"] as String }.joined(separator: "\n")
            }
        case .postgres(let location):
            let sql = "EXPLAIN SELECT * FROM users WHERE number > \(last) ORDER BY \(PostgresFilterSQL.orderBy(order)) LIMIT 1000"
            return try await PostgresTestServer.shared.rows(sql, on: location).map { $0.joined() }.joined(separator: "\n")
        }
    }

    /// The query plan of `SELECT … WHERE filter`, as one text.
    static func plan(_ filter: EntityFilter, _ storage: OpenedStorage) async throws -> String {
        switch storage.location {
        case .sqlite:
            let (condition, arguments) = SQLiteFilterSQL.condition(filter)
            return try await storage.sqlite!.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM users WHERE \(condition)", arguments: arguments)
                    .map { $0["detail"] as String }.joined(separator: "\n")
            }
        case .postgres(let location):
            var bindings = PostgresBindings()
            var condition = PostgresFilterSQL.condition(filter, bindings: &bindings)
            // The one value, written in for EXPLAIN (test values only: a name's digits, a number, a date).
            guard case .compare(_, _, let value) = filter else { return "" }
            let literal: String
            switch value {
            case .text(let text): literal = "'\(text)'"
            case .integer(let integer): literal = "\(integer)"
            case .instant(let date): literal = "'\(ISO8601DateFormatter().string(from: date))'::timestamptz"
            case .decimal, .boolean: return ""
            }
            condition = condition.replacingOccurrences(of: "$1", with: literal)
            return try await PostgresTestServer.shared.rows("EXPLAIN SELECT * FROM users WHERE \(condition)", on: location)
                .map { $0.joined() }.joined(separator: "\n")
        }
    }
}
