import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// `ImportRecord`: one exported record to a user, against the repository's Settings/schema.json.
@Suite("Import records")
struct ImportRecordTests {
    static let schema = try! FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
    static let hash = "$2b$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP."

    func user(_ json: String, ignoreUnknown: Bool = false) throws(CaptureError) -> User {
        let value = try! JSONParser.parse(json)
        return try ImportRecord.user(
            from: value, schema: Self.schema, ignoreUnknown: ignoreUnknown, now: Date(timeIntervalSince1970: 0),
            newID: { "new-id" })
    }

    func violation(_ json: String) -> SchemaViolation? {
        do {
            _ = try user(json)
            return nil
        } catch {
            guard case .schemaViolation(let violation) = error else { return nil }
            return violation
        }
    }

    @Test("bcrypt hashes in every exported form are kept; $2y$ is stored as $2b$")
    func hashForms() throws {
        let rest = Self.hash.dropFirst(4)
        #expect(try user(#"{"email": "a@example.com", "password": "$2a$\#(rest)"}"#).passwordHash == "$2a$\(rest)")
        #expect(try user(#"{"email": "a@example.com", "password": "$2y$\#(rest)"}"#).passwordHash == "$2b$\(rest)")
        #expect(
            try user(#"{"email": "a@example.com", "password": {"type": "password-bcrypt", "value": "\#(Self.hash)"}}"#)
                .passwordHash == Self.hash)
        #expect(try user(#"{"email": "a@example.com", "password": null}"#).passwordHash == nil)
    }

    @Test(
        "plain text, a malformed bcrypt hash or one outside cost 4 to 16, an unknown password type are refused",
        arguments: [
            #""correct horse battery""#, #""$2b$10$short""#, #""$2x$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#,
            #""$2b$03$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#,
            #""$2b$32$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#,
            // Issue 27: one check of a cost-31 hash occupies a hashing thread for days.
            #""$2b$31$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#,
            #""$2b$17$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfUP.""#,
            #""$2b$10$QREXRsttup3w2/Agwe.O9O0tEL9ERyQ9p5xgqGUr0MdSQO27DfU!""#,
            #"{"type": "password-md4", "value": "5f4dcc3b5aa765d61d8327deb882cf99"}"#, "42",
        ])
    func refusedPasswords(_ password: String) {
        #expect(violation(#"{"email": "a@example.com", "password": \#(password)}"#)?.path == "password")
    }

    /// Issue 27: one address syntax, here too.
    @Test(
        "an address with a display name, brackets, a comment or a quoted part is refused on the email attribute",
        arguments: [
            "x<mallory@attacker.example>", "Mallory <mallory@attacker.example>", "mallory@attacker.example (comment)",
            #"\"quoted local\"@example.com"#, "two@@example.com", "no-domain@localhost", "zoë@example.com",
            "a@exämple.com", "a..b@example.com", ".a@example.com", "a@-example.com", "a@example.com.",
        ])
    func refusedAddresses(_ address: String) {
        let json = String(decoding: JSONValue.object(["email": .string(address)]).encoded(), as: UTF8.self)
        #expect(violation(json)?.path == "email", "\(address)")
    }

    @Test("uuid, numeric id and dates are kept; a record without them gets a new id and the import's time")
    func serviceAttributes() throws {
        let kept = try user(
            #"{"uuid": "0A1B2C3D-0000-4000-8000-00000000000F", "id": 77, "email": "A@Example.com", "created": "2015-03-04 05:06:07.123456 +0000", "lastLogin": "2016-01-01T00:00:00Z", "emailVerified": null}"#
        )
        #expect(kept.id == "0a1b2c3d-0000-4000-8000-00000000000f")
        #expect(kept.number == 77)
        #expect(kept.email == "a@example.com")
        #expect(CaptureDate.format(kept.createdAt) == "2015-03-04 05:06:07.123000 +0000")
        #expect(kept.updatedAt == kept.createdAt)
        #expect(kept.lastLoginAt.map(CaptureDate.format) == "2016-01-01 00:00:00.000000 +0000")
        #expect(kept.emailVerifiedAt == nil)
        let fresh = try user(#"{"email": "b@example.com"}"#)
        #expect(fresh.id == "new-id")
        #expect(fresh.number == nil)
        #expect(fresh.createdAt == Date(timeIntervalSince1970: 0))
        #expect(violation(#"{"email": "b@example.com", "uuid": "nope"}"#)?.path == "uuid")
        #expect(violation(#"{"email": "b@example.com", "id": "7"}"#)?.path == "id")
        #expect(violation(#"{"email": "b@example.com", "id": 0}"#)?.path == "id")
        #expect(violation(#"{"email": "b@example.com", "lastUpdated": "2015-13-01 00:00:00 +0000"}"#)?.code == 342)
    }

    @Test("read-only attributes import; element ids are kept and new ones numbered past the largest")
    func schemaAttributes() throws {
        let imported = try user(
            #"{"email": "a@example.com", "loyaltyPoints": 5, "photos": [{"id": 9, "value": "https://p.example/1"}, {"value": "https://p.example/2"}], "statuses": [{"id": 3, "status": "hi"}]}"#
        )
        #expect(imported.profile["loyaltyPoints"] == .int(5))
        #expect(
            imported.profile["photos"] == [
                ["id": 9, "value": "https://p.example/1"], ["id": 10, "value": "https://p.example/2"],
            ])
        #expect(imported.lastElementID == 10)
        #expect(violation(#"{"email": "a@example.com", "photos": [{"id": 2}, {"id": 2}]}"#)?.code == 361)
        #expect(violation(#"{"email": "a@example.com", "photos": [{"id": "2"}]}"#)?.path == "photos.id")
        #expect(violation(#"{"email": "a@example.com", "loyaltyPoints": -1}"#)?.code == 360)
        #expect(violation(#"{"displayName": "No Address"}"#)?.code == 362)
        #expect(violation(#"{"email": "a@example.com", "primaryAddress": {"planet": "Mars"}}"#)?.code == 223)
    }

    @Test("--ignore-unknown drops unknown attributes at every depth, element ids kept")
    func ignoreUnknown() throws {
        let imported = try user(
            #"{"email": "a@example.com", "shoeSize": 42, "primaryAddress": {"city": "Cork", "planet": "Mars"}, "photos": [{"id": 4, "value": "https://p.example/1", "likes": 3}]}"#,
            ignoreUnknown: true)
        #expect(imported.profile["shoeSize"] == nil)
        #expect(imported.profile["primaryAddress"] == ["city": "Cork"])
        #expect(imported.profile["photos"] == [["id": 4, "value": "https://p.example/1"]])
    }
}
