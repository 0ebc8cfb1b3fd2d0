import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureStore

/// Janrain's filter grammar (`entity.find`, `entity.count`): precedence, values by the attribute's type, the
/// positions errors name, the bounds, and a fuzz of random and hostile filters that only ever get Janrain's errors.
@Suite struct EntityFilterParserTests {
    let schema = FilterSchema.schema

    func parse(_ text: String) throws(CaptureError) -> EntityFilter { try EntityFilter.parse(text, schema: schema) }

    func refusal(_ text: String) -> CaptureError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    /// The description of the 200 `text` gets (nil when it gets none, or another error).
    func problem(_ text: String) -> String? {
        guard case .invalidArgument("filter", let reason) = refusal(text) else { return nil }
        return reason
    }

    func profile(_ path: String, _ kind: FilterValueKind) -> FilterField {
        .profile(ProfileField(names: path.split(separator: ".").map(String.init), kind: kind)!)
    }

    var genderField: FilterField { profile("gender", .text) }
    func gender(_ value: String) -> EntityFilter { .compare(genderField, .equal, .text(value)) }

    @Test func comparisonsOfEveryKind() throws {
        #expect(try parse("gender='male'") == gender("male"))
        #expect(
            try parse("primaryAddress.city = 'Paris'") == .compare(profile("primaryAddress.city", .text), .equal, .text("Paris")))
        #expect(try parse("age > 25") == .compare(profile("age", .number), .greater, .integer(25)))
        // Integers with or without quotes, as Janrain's pages say; decimals, signs and exponents.
        #expect(try parse("age > '25'") == parse("age > 25"))
        #expect(try parse("height >= 1.75") == .compare(profile("height", .number), .greaterOrEqual, .decimal(1.75)))
        #expect(
            try parse("primaryAddress.geo.lat < -3.5e1")
                == .compare(profile("primaryAddress.geo.lat", .number), .less, .decimal(-35)))
        #expect(try parse("age != +7") == .compare(profile("age", .number), .notEqual, .integer(7)))
        #expect(try parse("age <= 99999999999999999999") == .compare(profile("age", .number), .lessOrEqual, .decimal(1e20)))
        #expect(try parse("newsletter = true") == .compare(profile("newsletter", .boolean), .equal, .boolean(true)))
        #expect(try parse("optIn.status != 'FALSE'") == .compare(profile("optIn.status", .boolean), .notEqual, .boolean(false)))
        // A string attribute takes an unquoted number as its text.
        #expect(try parse("primaryAddress.zip = 75001") == .compare(profile("primaryAddress.zip", .text), .equal, .text("75001")))
        // The record's own columns.
        #expect(try parse("id > 1000") == .compare(.record(.id), .greater, .integer(1000)))
        #expect(try parse("uuid = 'a-b'") == .compare(.record(.uuid), .equal, .text("a-b")))
        #expect(try parse("email = ' Ann@Example.COM '") == .compare(.record(.email), .equal, .text("ann@example.com")))
        #expect(try parse("memberCode is not null") == .not(.isNull(profile("memberCode", .text))))
    }

    @Test func onlyAnEqualityOnARecordKeyMatchesAtMostOne() throws {
        for text in [
            "email = 'a@example.com'", "uuid = 'x'", "id = 7", "id = 7 and gender = 'A'",
            "(lastUpdated > '2024-01-01' and email = 'a@example.com')",
        ] {
            #expect(try parse(text).matchesAtMostOne, "\(text)")
        }
        // An `or`, a `not`, an order or a profile attribute can match many (unique profile values included: storage
        // keeps them in JSON, not in a key column).
        for text in [
            "email = 'a' or email = 'b'", "not email = 'a'", "id >= 7", "email != 'a'", "memberCode = 'A'",
            "id is null",
        ] {
            #expect(try !parse(text).matchesAtMostOne, "\(text)")
        }
    }

    @Test func stringsEscapeQuotesDoubledOrWithABackslash() throws {
        #expect(try parse("gender = 'O''Brien'") == gender("O'Brien"))
        #expect(try parse(#"gender = 'O\'Brien'"#) == gender("O'Brien"))
        #expect(try parse(#"gender = 'a\\b'"#) == gender(#"a\b"#))
        #expect(try parse(#"gender = 'C:\dir'"#) == gender(#"C:\dir"#))
        #expect(try parse("gender = ''") == gender(""))
        #expect(try parse("gender = 'é 😀 -- /* */ ; OR 1=1'") == gender("é 😀 -- /* */ ; OR 1=1"))
    }

    @Test func precedenceIsJanrains() throws {
        let a = gender("a")
        let b = EntityFilter.compare(profile("age", .number), .equal, .integer(1))
        let c = EntityFilter.isNull(profile("birthday", .text))
        // `and` binds tighter than `or`.
        #expect(try parse("gender = 'a' or age = 1 and birthday is null") == .any([a, .all([b, c])]))
        #expect(try parse("gender = 'a' and age = 1 or birthday is null") == .any([.all([a, b]), c]))
        #expect(try parse("(gender = 'a' or age = 1) and birthday is null") == .all([.any([a, b]), c]))
        // Chains are one node each.
        #expect(try parse("gender='a' or age=1 or birthday is null") == .any([a, b, c]))
        // `is null` binds tighter than `not`; `not` reads its comparison whole.
        #expect(try parse("not birthday is null") == .not(c))
        #expect(try parse("!gender = 'a'") == .not(a))
        #expect(try parse("not not gender = 'a' and age = 1") == .all([.not(.not(a)), b]))
        #expect(try parse("not (gender = 'a' or age = 1)") == .not(.any([a, b])))
        // Keywords in any case; paths are case-sensitive.
        #expect(try parse("NOT gender = 'a' AND age = 1 Or birthday IS Null") == .any([.all([.not(a), b]), c]))
        #expect(try parse("birthday Is NoT nUlL") == .not(c))
        #expect(refusal("Gender = 'a'")?.code == 223)
    }

    @Test func datesCompareAsStorageKeepsThem() throws {
        let birthday = profile("birthday", .text)
        #expect(try parse("birthday > '1990-01-01'") == .compare(birthday, .greater, .text("1990-01-01")))
        // Janrain's own example: a date attribute against a time of day stands for that day's midnight.
        #expect(
            try parse("gender='male' and birthday>'2012-06-13 18:02:56.012122 +0000'")
                == .all([gender("male"), .compare(birthday, .greater, .text("2012-06-13"))]))
        #expect(try parse("birthday <= '2012-06-13 18:02:56 +0000'") == .compare(birthday, .lessOrEqual, .text("2012-06-13")))
        #expect(try parse("birthday = '2012-06-13 18:02:56 +0000'") == .never)
        #expect(try parse("birthday = '2012-06-13 00:00:00 +0000'") == .compare(birthday, .equal, .text("2012-06-13")))
        // Time zones are honoured: these name the same instant.
        let instant = EntityFilter.compare(
            .record(.lastUpdated), .greaterOrEqual, .instant(Date(timeIntervalSince1970: 1_462_060_800)))
        #expect(try parse("lastUpdated >= '2016-05-01 00:00:00 +0000'") == instant)
        #expect(try parse("lastUpdated >= '2016-05-01 02:00:00 +0200'") == instant)
        #expect(try parse("lastUpdated >= '2016-04-30T19:00:00-05:00'") == instant)
        #expect(try parse("lastUpdated >= '2016-05-01'") == instant)
        #expect(try parse("lastUpdated >= '2016-05-01 00:00:00'") == instant)
        // A profile date-time is text in Janrain's form, which sorts as the time does.
        #expect(
            try parse("optIn.updated < '2016-05-01 02:00:00.5 +0200'")
                == .compare(profile("optIn.updated", .text), .less, .text("2016-05-01 00:00:00.500000 +0000")))
        #expect(problem("created > 'yesterday'")?.hasSuffix("at position 11") == true)
        #expect(problem("birthday > '1990-02-30'") != nil)
    }

    @Test func errorsNameThePosition() {
        #expect(
            problem("gender = ")
                == "expected a value ('text', a number, true or false) after '=', found the end of the filter at position 10")
        #expect(problem("gender = 'male") == "the string that starts here has no closing quote at position 10")
        #expect(problem("gender == 'male'")?.hasSuffix("at position 8") == true)
        #expect(problem("(gender = 'a'")?.hasSuffix("at position 14") == true)
        #expect(problem("gender = 'a' age = 1")?.hasSuffix("at position 14") == true)
        #expect(problem("gender = 'a' and")?.hasSuffix("at position 17") == true)
        #expect(problem("gender 'a'")?.hasSuffix("at position 8") == true)
        #expect(problem("gender = \"a\"")?.hasSuffix("at position 10") == true)
        #expect(problem("gender = 'a'; drop table users")?.hasSuffix("at position 13") == true)
        #expect(problem("gender = 'a' -- comment")?.hasSuffix("at position 14") == true)
        #expect(problem("gender = null")?.contains("is null") == true)
        #expect(problem("age = 1 = 2")?.hasSuffix("at position 9") == true)
        #expect(problem("(gender = 'a') = 'b'")?.hasSuffix("at position 16") == true)
        #expect(problem("gender is 'a'")?.hasSuffix("at position 11") == true)
        #expect(problem("gender = 'a\u{0}'")?.hasSuffix("at position 12") == true)
        #expect(problem("12abc = 1")?.hasSuffix("at position 3") == true)
        #expect(problem("") == "the filter is empty at position 1")
        #expect(problem("gender = 'a' ) ")?.hasSuffix("at position 14") == true)
    }

    @Test func pathsAndValuesMeetTheSchema() {
        // An attribute the schema lacks is Janrain's 223, named.
        guard case .schemaViolation(let violation) = refusal("primaryAddress.town = 'x'") else {
            Issue.record("an unknown attribute is a schema violation")
            return
        }
        #expect(violation.code == 223 && violation.path == "primaryAddress.town")
        // Objects, plurals and the service's hidden attributes cannot be compared.
        #expect(problem("primaryAddress = 'x'")?.contains("is an object") == true)
        #expect(problem("primaryAddress is null")?.contains("is an object") == true)
        #expect(problem("photos.value = 'x'")?.contains("plural") == true)
        #expect(problem("password = 'x'") != nil)
        #expect(problem("profiles is null") != nil)
        #expect(problem("primaryAddress..city = 'x'") != nil)
        // Values of the wrong type.
        #expect(problem("age = 'abc'") != nil)
        #expect(problem("age > true") != nil)
        #expect(problem("age > 1e999") != nil)
        #expect(problem("newsletter > true") != nil)
        #expect(problem("newsletter = 'yes'") != nil)
        #expect(problem("gender = true") != nil)
        #expect(problem("id > 'x'") != nil)
        // `contains` was removed: Janrain's 485.
        #expect(refusal("gender contains 'ma'") == .filterOperatorRemoved("contains"))
        #expect(refusal("gender contains 'ma'")?.code == 485)
    }

    @Test func limitsBoundTheTextDepthAndNodes() throws {
        let limits = EntityFilter.Limits.standard
        #expect(
            try parse(
                "(" + String(repeating: "(", count: limits.maxDepth - 1) + "age = 1"
                    + String(repeating: ")", count: limits.maxDepth)) != .never)
        #expect(
            problem(
                String(repeating: "(", count: limits.maxDepth + 1) + "age = 1"
                    + String(repeating: ")", count: limits.maxDepth + 1))?.contains("nests deeper") == true)
        #expect(problem(String(repeating: "not ", count: limits.maxDepth + 1) + "age = 1")?.contains("nests deeper") == true)
        // 128 comparisons and 127 `or`s fit; 129 and 128 do not.
        #expect(try parse(Array(repeating: "age = 1", count: 128).joined(separator: " or ")) != .never)
        #expect(problem(Array(repeating: "age = 1", count: 129).joined(separator: " or "))?.contains("more than 256") == true)
        #expect(problem("gender = '" + String(repeating: "x", count: limits.maxLength) + "'")?.contains("longer than") == true)
        // Thousands of parentheses are refused at the first one past the depth, without recursing into them.
        #expect(problem(String(repeating: "(", count: 4000))?.hasSuffix("at position 33") == true)
    }

    @Test func queriesTakeJanrainsParameters() throws {
        let query = try EntityQuery(
            schema: schema, filter: "id > 10", sortOn: #"["-lastUpdated", "primaryAddress.city"]"#, maxResults: "500",
            firstResult: "20", timeout: "30")
        #expect(query.filter == .compare(.record(.id), .greater, .integer(10)))
        #expect(query.maxResults == 500 && query.firstResult == 20 && query.timeout == .seconds(30))
        #expect(
            query.order == [
                EntitySort(field: .record(.lastUpdated), descending: true),
                EntitySort(field: profile("primaryAddress.city", .text)), EntitySort(field: .record(.id)),
            ])
        // `id` is not added twice; defaults as Janrain's.
        let byID = try EntityQuery(
            schema: schema, filter: " ", sortOn: #"["-id"]"#, maxResults: nil, firstResult: nil, timeout: nil)
        #expect(byID.filter == nil && byID.order == [EntitySort(field: .record(.id), descending: true)])
        #expect(byID.maxResults == 100 && byID.firstResult == 0 && byID.timeout == .seconds(10))
        func refused(_ make: () throws(CaptureError) -> EntityQuery) -> String? {
            do {
                _ = try make()
                return nil
            } catch {
                guard case .invalidArgument(let argument, _) = error else { return "\(error)" }
                return argument
            }
        }
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(schema: schema, filter: nil, sortOn: nil, maxResults: "10001", firstResult: nil, timeout: nil)
            } == "max_results")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(schema: schema, filter: nil, sortOn: nil, maxResults: "0", firstResult: nil, timeout: nil)
            } == "max_results")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(schema: schema, filter: nil, sortOn: nil, maxResults: nil, firstResult: "-1", timeout: nil)
            } == "first_result")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(schema: schema, filter: nil, sortOn: nil, maxResults: nil, firstResult: nil, timeout: "61")
            } == "timeout")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(
                    schema: schema, filter: nil, sortOn: "lastUpdated", maxResults: nil, firstResult: nil, timeout: nil)
            } == "sort_on")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(
                    schema: schema, filter: nil, sortOn: #"["photos"]"#, maxResults: nil, firstResult: nil, timeout: nil)
            } == "sort_on")
        #expect(
            refused { () throws(CaptureError) in
                try EntityQuery(
                    schema: schema, filter: nil, sortOn: #"["id", "-id"]"#, maxResults: nil, firstResult: nil, timeout: nil)
            } == "sort_on")
        #expect(EntityQuery.timedOut(.seconds(10)).code == 200)
    }

    @Test func theSchemaNamesTheAttributesStorageIndexes() {
        #expect(schema.indexedFilterFields.map(\.names) == [["memberCode"], ["score"]])
        #expect(FilterIndexName.name(forExpression: "x").count == FilterIndexName.prefix.count + 16)
        #expect(FilterIndexName.name(forExpression: "x") != FilterIndexName.name(forExpression: "y"))
    }

    /// Random and hostile filters: each is parsed, or refused with one of Janrain's errors in its shape; none crashes,
    /// and what parses compiles to SQL whose only text from the filter is a path's plain names.
    @Test func fuzzedFiltersGetOnlyJanrainsErrors() {
        var random = SeededGenerator()
        let pieces = [
            "'", "''", "\\", "\\'", "--", "/*", "*/", ";", " OR 1=1", "' OR '1'='1", "'; DROP TABLE users; --", "(", ")",
            "not ", "!", " and ", " or ", " is ", "null", "NULL", " contains ", "gender", "age", "height", "birthday",
            "newsletter", "primaryAddress.city", "primaryAddress", "photos.value", "optIn.updated", "id", "uuid", "email",
            "lastUpdated", "created", "=", "!=", ">=", "<=", "<", ">", "==", "<>", "99999999999999999999999999", "1e999",
            "-", "+", ".", "e", "\u{0}", "\u{7}", "é", "😀", "\u{202E}", "\u{FEFF}", " ", "\t", "\n", "\"", "true", "'x'",
            "12", "-0.5", "'2016-05-01 00:00:00 +0000'", "'1990-02-30'", "$", "%", "_", "?", ":name", "@", "#", "`",
            "json_extract(profile, '$.x')", "profile", "users", "\u{10FFFF}",
        ]
        var parsed = 0
        for round in 0..<4000 {
            var text = ""
            if round % 10 == 9 {
                // Random scalars, printable or not.
                for _ in 0..<Int.random(in: 1...40, using: &random) {
                    text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0...0x2FF, using: &random)) ?? " ")
                }
            } else if round % 50 == 7 {
                let depth = Int.random(in: 1...200, using: &random)
                text = String(repeating: "(", count: depth) + "age = 1" + String(repeating: ")", count: depth)
            } else {
                for _ in 0..<Int.random(in: 1...30, using: &random) { text += pieces.randomElement(using: &random)! }
            }
            do {
                let filter = try EntityFilter.parse(text, schema: schema)
                parsed += 1
                let (sql, _) = SQLiteFilterSQL.condition(filter)
                let withoutPaths = sql.replacing(/json_extract\(profile, '\$\.[A-Za-z_][A-Za-z0-9_.]*'\)/, with: "")
                #expect(!withoutPaths.contains("'"), "\(text.debugDescription) → \(sql)")
            } catch {
                #expect([200, 223, 485].contains(error.code), "\(text.debugDescription): \(error)")
                #expect(!error.errorDescription.isEmpty)
                switch error {
                case .invalidArgument("filter", _), .schemaViolation, .filterOperatorRemoved: break
                default: Issue.record("\(text.debugDescription): \(error)")
                }
            }
        }
        #expect(parsed > 0)
    }
}
