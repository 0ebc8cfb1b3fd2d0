import CaptureCore
import CaptureJSON
import CaptureStore
import CaptureTestSupport
import Foundation
import Testing

/// `capturectl user import`, run as the real binary against a test world's database.
@Suite("capturectl user import")
struct UserImportTests {
    /// bcrypt (cost 10) of "imported password 0", as scripts/generate-export.py writes it.
    static let hash = "$2b$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP."

    @Test("a generated export of 300 records is imported whole: ids, dates, hashes, objects and plurals kept")
    func generatedExport() async throws {
        let world = try await TestWorld.current()
        let file = try await Export.generated(count: 300)
        let result = try await CLI.run(["user", "import", file.path, "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let summary = try result.object()
        #expect(summary["read"] as? Int == 300)
        #expect(summary["imported"] as? Int == 300)
        #expect(summary["refused"] as? Int == 0)
        #expect(summary["renumbered"] as? Int == 0)

        let user = try await world.service.admin.findUser("user4@example.com")
        #expect(user.number == 5)
        #expect(user.id.count == 36)
        #expect(user.passwordHash == "$2b$10$r0M0TGulSRmH073wMewnjuvJMsAaL6jaLoD6sqmPdfxxHgl1Pnhpq")
        #expect(CaptureDate.format(user.createdAt) == "2014-05-13 16:55:48.000000 +0000")
        #expect(CaptureDate.format(user.updatedAt) == "2014-05-14 16:55:48.000000 +0000")
        #expect(user.lastLoginAt.map(CaptureDate.format) == "2014-05-15 16:55:48.000000 +0000")
        #expect(user.emailVerifiedAt.map(CaptureDate.format) == "2014-05-13 17:55:48.000000 +0000")
        #expect(user.lastElementID == 42)
        #expect(user.profile["loyaltyPoints"] == .int(4))
    }

    @Test("bad records are refused one by one with their line and Janrain's reason; the good ones are imported")
    func badRecords() async throws {
        let world = try await TestWorld.current()
        try await world.register("taken@example.com")
        let good = { (n: Int) in Export.record(n) }
        var lines = [good(1), good(2)]  // lines 1, 2
        lines.append("{\"email\": \"broken@example.com\",")  // 3: not JSON
        lines.append(Export.record(3, ["password": "\"hunter2\""]))  // 4: plain text
        lines.append(Export.record(4, ["password": "\"5f4dcc3b5aa765d61d8327deb882cf99\""]))  // 5: a bare MD5
        lines.append(Export.record(5, ["password": #"{"type":"password-md4","value":"5f4dcc3b5aa765d61d8327deb882cf99"}"#]))  // 6
        lines.append(Export.record(6, ["favouriteColour": "\"teal\""]))  // 7: unknown attribute
        lines.append(Export.record(7, ["email": "null"]))  // 8: no email
        lines.append(Export.record(8, ["email": "\"user1@example.com\""]))  // 9: email earlier in the file
        lines.append(Export.record(9, ["email": "\"TAKEN@example.com\""]))  // 10: email in the database
        lines.append(Export.record(10, ["uuid": "\"\(Export.uuid(1))\""]))  // 11: uuid earlier in the file
        lines.append(Export.record(11, ["created": "\"yesterday\""]))  // 12
        lines.append(Export.record(12, ["primaryAddress": #"{"city": "\#(String(repeating: "x", count: 65))"}"#]))  // 13
        lines.append(Export.record(13, ["photos": #"[{"id": 4, "type": "a", "value": "ftp://x"}]"#]))  // 14: pattern
        // 15
        lines.append(
            Export.record(
                14, ["photos": #"[{"id": 4, "value": "https://a.example/1"}, {"id": 4, "value": "https://a.example/2"}]"#]))
        lines.append("")  // 16: blank, skipped
        lines.append(Export.record(15, ["uuid": "\"not-a-uuid\""]))  // 17
        lines.append(good(16))  // 18
        let file = try Export.write(lines.joined(separator: "\n") + "\n", name: "bad.jsonl")

        let result = try await CLI.run(["user", "import", file.path], in: world)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout == "read 17, imported 3, refused 14\n")
        let expected = [
            "line 3: 200 invalid_argument: record: not valid JSON",
            "line 4: 340 invalid_data_format (password): password is not a hash this service reads",
            "line 5: 340 invalid_data_format (password): password is not a hash this service reads",
            "line 6: 340 invalid_data_format (password): password: 'password-md4' is not a password type",
            "line 7: 223 unknown_attribute (favouriteColour):",
            "line 8: 362 missing_required_attribute (email): email is required",
            "line 9: 361 unique_violation (email): this email address is already in use",
            "line 10: 361 unique_violation (email): this email address is already in use",
            "line 11: 361 unique_violation (uuid): a user with this uuid already exists",
            "line 12: 342 invalid_date_time (created):",
            "line 13: 363 length_violation (primaryAddress.city):",
            "line 14: 340 invalid_data_format (photos.value): photos.value does not have the required form",
            "line 15: 361 unique_violation (photos#4): photos: element id 4 is used twice in the record",
            "line 17: 340 invalid_data_format (uuid):",
        ]
        let reported = result.stderr.split(separator: "\n").map(String.init)
        #expect(reported.count == expected.count, "\(result.stderr)")
        for (line, prefix) in zip(reported, expected) {
            #expect(line.hasPrefix(prefix), "\(line) should start with \(prefix)")
        }
        for n in [1, 2, 16] { _ = try await world.service.admin.findUser("user\(n)@example.com") }
        for n in [3, 4, 5, 6, 12, 13, 14, 15] {
            await #expect(throws: CaptureError.self) { try await world.service.admin.findUser("user\(n)@example.com") }
        }
        // Nothing half-imported: no unique value or record of a refused line is left behind.
        #expect(try await world.service.admin.listUsers().count == 4)
    }

    @Test("--rejects writes the refusals as JSON lines; --ignore-unknown drops unknown attributes")
    func rejectsFileAndIgnoreUnknown() async throws {
        let world = try await TestWorld.current()
        let lines = [
            Export.record(1, ["favouriteColour": "\"teal\"", "primaryAddress": #"{"city": "Lyon", "planet": "Earth"}"#]),
            Export.record(2, ["password": "\"hunter2\""]),
        ]
        let file = try Export.write(lines.joined(separator: "\n"), name: "unknown.jsonl")
        let rejects = file.deletingLastPathComponent().appendingPathComponent("rejects.jsonl")
        let result = try await CLI.run(
            ["user", "import", file.path, "--ignore-unknown", "--rejects", rejects.path, "--json"], in: world)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let summary = try result.object()
        #expect(summary["imported"] as? Int == 1)
        #expect(summary["refused"] as? Int == 1)
        let written = try String(contentsOf: rejects, encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        #expect(object["line"] as? Int == 2)
        #expect(object["code"] as? Int == 340)
        #expect(object["error"] as? String == "invalid_data_format")
        #expect(object["attribute"] as? String == "password")
        let user = try await world.service.admin.findUser("user1@example.com")
        #expect(user.profile["favouriteColour"] == nil)
        #expect(user.profile["primaryAddress"] == ["city": "Lyon"])
    }

    @Test("an imported bcrypt hash signs in with the old password, in each form Janrain exports it")
    func signInWithImportedHash() async throws {
        let world = try await TestWorld.current()
        let rest = String(Self.hash.dropFirst(4))
        let lines = [
            Export.record(1, ["password": "\"$2a$\(rest)\""]),
            Export.record(2, ["password": "\"$2y$\(rest)\""]),
            Export.record(3, ["password": #"{"type": "password-bcrypt", "value": "\#(Self.hash)"}"#]),
            Export.record(4, ["password": "null"]),
        ]
        let file = try Export.write(lines.joined(separator: "\n"), name: "hashes.jsonl")
        let result = try await CLI.run(["user", "import", file.path], in: world)
        #expect(result.status == 0, "\(result.stderr)")

        for n in 1...3 {
            let email = "user\(n)@example.com"
            let auth = try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: email, password: "imported password 0")))
            #expect(auth.user.email == email)
            #expect(auth.grant != nil)
            await #expect(throws: CaptureError.invalidCredentials) {
                try await world.service.signIn.signIn(
                    FlowRequest(parameters: TestWorld.signIn(email: email, password: "imported password 1")))
            }
        }
        #expect(try await world.service.admin.findUser("user2@example.com").passwordHash == "$2b$\(rest)")
        // No password: the user exists and resets it; no password signs in.
        #expect(try await world.service.admin.findUser("user4@example.com").passwordHash == nil)
        await #expect(throws: CaptureError.invalidCredentials) {
            try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: "user4@example.com", password: "imported password 0")))
        }
    }

    @Test("the imported record reads back through /entity's shape with its object and plural, element ids kept")
    func entityShape() async throws {
        let world = try await TestWorld.current()
        let file = try Export.write(
            Export.record(
                7,
                [
                    "photos":
                        #"[{"id": 70, "type": "small", "value": "https://p.example/7.jpg"}, {"type": "large", "value": "https://p.example/7L.jpg"}]"#
                ]),
            name: "one.jsonl")
        let result = try await CLI.run(["user", "import", file.path], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        let user = try await world.service.admin.findUser("user7@example.com")
        let record = try await world.service.profile.record(of: user)
        guard case .object(let members) = record else {
            Issue.record("not an object: \(record)")
            return
        }
        #expect(members["uuid"] == .string(Export.uuid(7)))
        #expect(members["id"] == .int(8))
        #expect(members["created"] == "2024-01-08 10:00:00.000000 +0000")
        #expect(members["primaryAddress"]?.member("city") == "Lyon")
        #expect(members["primaryAddress"]?.member("zip") == .null)
        #expect(
            members["photos"] == [
                ["id": 70, "type": "small", "value": "https://p.example/7.jpg"],
                ["id": 71, "type": "large", "value": "https://p.example/7L.jpg"],
            ])
        // The record's element counter is past every imported id: the next element gets 72.
        var document = user.document(schema: world.service.catalog.schema, asUser: true)
        try document.update(at: EntityPath(parsing: "photos"), with: [["type": "x", "value": "https://p.example/n"]])
        #expect(document.values["photos"]?.elements?.last?.member("id") == .int(72))
    }

    @Test("CSV: dot paths for object members, a plural as a JSON cell, quoted cells with commas and line breaks")
    func csvImport() async throws {
        let world = try await TestWorld.current()
        let generated = try await Export.generated(count: 40, format: "csv")
        let first = try await CLI.run(["user", "import", generated.path, "--json"], in: world)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try first.object()["imported"] as? Int == 40)

        let csv = #"""
            email,password,primaryAddress.city,primaryAddress.address1,optIn.status,loyaltyPoints,photos,aboutMe
            csv1@example.com,\#(Self.hash),Cork,"1 Quay, Apt 2",true,12,"[{""type"":""small"",""value"":""https://p.example/c1""}]","say ""hi"""
            csv5@example.com,,,,,,,"two
            lines"
            csv2@example.com,,,,,,,
            csv3@example.com,plaintext,,,,,,
            csv4@example.com,,,,maybe,,,

            """#
        let file = try Export.write(csv, name: "users.csv")
        let result = try await CLI.run(["user", "import", file.path], in: world)
        #expect(result.status == 1)
        #expect(result.stdout == "read 5, imported 2, refused 3\n")
        // A quoted cell may span lines (the record is numbered by its first); the schema refuses line breaks in text.
        #expect(
            result.stderr == """
                line 3: 340 invalid_data_format (aboutMe): aboutMe contains control characters
                line 6: 340 invalid_data_format (password): password is not a hash this service reads (bcrypt, a crypt or PHC string, or {"type": "password-…", "value": …}); plain passwords are never stored
                line 7: 341 invalid_json_type (optIn.status): optIn.status must be true or false

                """)
        let user = try await world.service.admin.findUser("csv1@example.com")
        #expect(user.profile["primaryAddress"] == ["city": "Cork", "address1": "1 Quay, Apt 2"])
        #expect(user.profile["optIn"] == ["status": true])
        #expect(user.profile["loyaltyPoints"] == .int(12))
        #expect(user.profile["aboutMe"] == "say \"hi\"")
        #expect(user.profile["photos"] == [["id": 1, "type": "small", "value": "https://p.example/c1"]])
        #expect(user.passwordHash == Self.hash)
        #expect(try await world.service.admin.findUser("csv2@example.com").passwordHash == nil)
    }

    @Test("a CSV header naming no attribute, an unreadable file and an unknown format import nothing")
    func fileErrors() async throws {
        let world = try await TestWorld.current()
        let header = try Export.write("email,shoeSize\na@example.com,42\n", name: "shoes.csv")
        let refused = try await CLI.run(["user", "import", header.path], in: world)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("column 2 ('shoeSize'): not an attribute"), "\(refused.stderr)")
        #expect(try await world.service.admin.listUsers().isEmpty)

        let skipped = try await CLI.run(["user", "import", header.path, "--ignore-unknown"], in: world)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stdout == "read 1, imported 1, refused 0\n")

        let missing = try await CLI.run(["user", "import", "/nonexistent/users.jsonl"], in: world)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read '/nonexistent/users.jsonl'"))

        let unknownFormat = try await CLI.run(
            ["user", "import", header.path.replacingOccurrences(of: ".csv", with: ".txt")], in: world)
        #expect(unknownFormat.status == 2)
        #expect(unknownFormat.stderr.contains("--format"))
        let badFormat = try await CLI.run(["user", "import", header.path, "--format", "xml"], in: world)
        #expect(badFormat.status == 2)
    }

    @Test("a line over 1 MiB is refused without stopping the lines around it, also when it is the last")
    func overlongLine() async throws {
        let world = try await TestWorld.current()
        let long = Export.record(2, ["aboutMe": "\"" + String(repeating: "x", count: 1_200_000) + "\""])
        let file = try Export.write([Export.record(1), long, Export.record(3), long].joined(separator: "\n"), name: "long.jsonl")
        let result = try await CLI.run(["user", "import", file.path], in: world)
        #expect(result.status == 1)
        #expect(result.stdout == "read 4, imported 2, refused 2\n")
        #expect(
            result.stderr == """
                line 2: 200 invalid_argument: record: line 2 is longer than 1048576 bytes
                line 4: 200 invalid_argument: record: line 4 is longer than 1048576 bytes

                """)
        _ = try await world.service.admin.findUser("user3@example.com")
    }

    @Test("a numeric id another record holds is replaced by the next free one; the uuid is kept")
    func numericIDTaken() async throws {
        let world = try await TestWorld.current()
        let registered = try await world.register("first@example.com")
        #expect(registered.user.number == 1)
        let file = try Export.write(Export.record(0) + "\n" + Export.record(1), name: "ids.jsonl")
        let result = try await CLI.run(["user", "import", file.path, "--json"], in: world)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.object()["renumbered"] as? Int == 1)
        // user1 keeps 2 although user0, whose 1 was taken, comes first in the file.
        #expect(try await world.service.admin.findUser("user1@example.com").number == 2)
        let renumbered = try await world.service.admin.findUser("user0@example.com")
        #expect(renumbered.id == Export.uuid(0))
        #expect(renumbered.number == 3)
    }
}

/// Export files for the tests.
enum Export {
    static func uuid(_ n: Int) -> String {
        "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - String(n).count) + String(n)
    }

    /// One JSON line for user `n` (Janrain's keys), with some members replaced by raw JSON.
    static func record(_ n: Int, _ overrides: [String: String] = [:]) -> String {
        var members: [String: String] = [
            "uuid": "\"\(uuid(n))\"", "id": "\(n + 1)", "email": "\"user\(n)@example.com\"",
            "created": "\"2024-01-0\(n % 9 + 1) 10:00:00.000000 +0000\"", "lastUpdated": "null", "lastLogin": "null",
            "emailVerified": "\"2024-01-09 10:00:00.000000 +0000\"", "password": "\"\(UserImportTests.hash)\"",
            "displayName": "\"User \(n)\"", "givenName": "null",
            "primaryAddress": #"{"city": "Lyon", "address1": "\#(n) Main Street", "zip": null}"#,
            "photos": "[]",
        ]
        members.merge(overrides) { _, new in new }
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
    }

    static func write(_ text: String, name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A file from scripts/generate-export.py.
    static func generated(count: Int, format: String = "jsonl") async throws -> URL {
        let url = try write("", name: "generated.\(format)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", TestWorld.repositoryRoot.appendingPathComponent("scripts/generate-export.py").path,
            "--count", "\(count)", "--out", url.path,
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        await process.exited()
        try #require(process.terminationStatus == 0, "scripts/generate-export.py failed")
        return url
    }
}

extension JSONValue {
    func member(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }

    var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
