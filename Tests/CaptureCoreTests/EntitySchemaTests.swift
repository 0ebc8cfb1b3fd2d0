import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// The entity schema (Settings/schema.json): every type and constraint, paths as the SDKs write them, and
/// Janrain's update / replace / delete semantics on objects and plurals.
@Suite struct EntitySchemaTests {
    let schema: EntitySchema

    init() throws {
        schema = try FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
    }

    func document(_ values: [String: JSONValue] = [:], asUser: Bool = true) -> EntityDocument {
        EntityDocument(
            schema: schema, values: values.merging(["email": "a@b.co"]) { old, _ in old }, lastElementID: 0, asUser: asUser)
    }

    /// The violation an update of `path` to `value` meets, or nil when it is accepted.
    func violation(_ path: String, _ value: JSONValue, asUser: Bool = true) throws -> SchemaViolation? {
        var record = document(asUser: asUser)
        do {
            try record.update(at: EntityPath(parsing: path), with: value)
            return nil
        } catch {
            guard case .schemaViolation(let violation) = error else { throw error }
            return violation
        }
    }

    @Test func pathsAreReadAsBothSDKsAndJanrainWriteThem() throws {
        let expected = EntityPath(steps: [.init(name: "photos", element: 3), .init(name: "value")])
        #expect(try EntityPath(parsing: "/photos#3/value") == expected)
        #expect(try EntityPath(parsing: "photos#3.value") == expected)
        #expect(try EntityPath(parsing: "/").isRoot && EntityPath(parsing: "").isRoot)
        #expect(expected.description == "photos#3.value")
        for bad in ["/photos#x", "/photos#0", "a//b", "/1abc", "/a b", "/photos#-1"] {
            #expect(throws: CaptureError.self, "\(bad)") { try EntityPath(parsing: bad) }
        }
    }

    @Test func eachTypeTakesItsOwnJSONAndRefusesOthersWithJanrainsCodes() throws {
        // string, email, date, dateTime, boolean, integer, decimal, object, plural
        #expect(try violation("givenName", "Zoë") == nil)
        #expect(try violation("givenName", 42)?.code == 341)
        #expect(try violation("email", "not an address")?.code == 340)
        #expect(try violation("birthday", "1990-02-28") == nil)
        #expect(try violation("birthday", "1990-02-30")?.code == 342)
        #expect(try violation("optIn.updated", "2024-05-01T12:30:00Z") == nil)
        #expect(try violation("optIn.updated", "2024-05-01 12:30:00.5 +0200") == nil)
        #expect(try violation("optIn.updated", "yesterday")?.code == 342)
        #expect(try violation("optIn.status", true) == nil)
        #expect(try violation("optIn.status", "true")?.code == 341)
        #expect(try violation("primaryAddress", "Main Street")?.code == 341)
        #expect(try violation("photos", ["value": "https://x.test/a.png"])?.code == 341)
        #expect(try violation("photos", [["value": "https://x.test/a.png"]]) == nil)

        var record = document()
        try record.update(at: EntityPath(parsing: "optIn.updated"), with: "2024-05-01T12:30:00+02:00")
        #expect(try record.value(at: EntityPath(parsing: "optIn.updated")) == "2024-05-01 10:30:00.000000 +0000")
    }

    @Test func numbersHonourTheirKindAndRange() throws {
        let custom = try Self.schema(
            #"""
            {"attributes": {"email": {"type": "email", "required": true},
              "age": {"type": "integer", "minimum": 13, "maximum": 130},
              "score": {"type": "decimal", "minimum": 0}}}
            """#)
        func check(_ path: String, _ value: JSONValue) -> Int? {
            var record = EntityDocument(schema: custom, values: ["email": "a@b.co"], lastElementID: 0, asUser: true)
            do { try record.update(at: try EntityPath(parsing: path), with: value) } catch {
                if case .schemaViolation(let violation) = error { return violation.code }
                return -1
            }
            return nil
        }
        #expect(check("age", 30) == nil)
        #expect(check("age", .double(30)) == nil)
        #expect(check("age", .double(30.5)) == 341)
        #expect(check("age", 12) == 360)
        #expect(check("age", "30") == 341)
        #expect(check("score", .double(2.5)) == nil)
        #expect(check("score", .double(-1)) == 360)
    }

    @Test func textConstraintsLengthBytesPatternFormatAndControlCharacters() throws {
        #expect(try violation("givenName", .string(String(repeating: "x", count: 65)))?.code == 363)
        #expect(try violation("givenName", .string("a" + String(repeating: "\u{301}", count: 300)))?.code == 363)
        #expect(try violation("photos", [["value": "http://plain.test/a.png"]])?.code == 340)
        #expect(try violation("phone", "call me")?.code == 340)
        #expect(try violation("givenName", "tab\there")?.code == 340)
        let refused = try #require(try violation("primaryAddress.city", .string(String(repeating: "x", count: 65))))
        #expect(refused.path == "primaryAddress.city")
    }

    @Test func requiredAndReadOnlyAndServiceAttributes() throws {
        var record = document()
        #expect(throws: CaptureError.schemaViolation(SchemaViolation(.required, "email", "email is required"))) {
            try record.delete(at: EntityPath(parsing: "email"))
        }
        #expect(try violation("loyaltyPoints", 10)?.code == 360)
        #expect(try violation("loyaltyPoints", 10, asUser: false) == nil)
        #expect(try violation("uuid", "x")?.code == 360)
        #expect(try violation("created", "x")?.code == 360)
        #expect(try violation("shoeSize", 44)?.code == 223)
        #expect(try violation("primaryAddress.planet", "Mars")?.code == 223)
    }

    @Test func updateMergesObjectsAndAppendsPluralElementsWithNewIDs() throws {
        var record = document()
        try record.update(at: EntityPath(parsing: ""), with: ["primaryAddress": ["city": "Lyon", "zip": "69001"]])
        try record.update(at: EntityPath(parsing: "/primaryAddress"), with: ["city": "Paris"])
        #expect(record.values["primaryAddress"] == ["city": "Paris", "zip": "69001"])

        try record.update(
            at: EntityPath(parsing: "photos"), with: [["value": "https://x.test/1.png"], ["value": "https://x.test/2.png"]])
        try record.update(at: EntityPath(parsing: "photos"), with: [["value": "https://x.test/3.png", "type": "avatar"]])
        let ids = record.values["photos"]?.arrayElementIDs
        #expect(ids == [1, 2, 3])
        #expect(record.lastElementID == 3)
        // An element with an id replaces that element; one at a path merges into it.
        try record.update(at: EntityPath(parsing: "photos"), with: [["id": 2, "value": "https://x.test/2b.png"]])
        try record.update(at: EntityPath(parsing: "/photos#3"), with: ["value": "https://x.test/3b.png"])
        #expect(try record.value(at: EntityPath(parsing: "photos#2")) == ["id": 2, "value": "https://x.test/2b.png"])
        #expect(
            try record.value(at: EntityPath(parsing: "photos#3")) == [
                "id": 3, "type": "avatar", "value": "https://x.test/3b.png",
            ])
        #expect(throws: CaptureError.recordNotFound("plural element photos#9")) {
            try record.update(at: EntityPath(parsing: "photos#9"), with: ["value": "https://x.test/9.png"])
        }
    }

    @Test func replaceClearsWhatItLeavesOutAndDeleteRemovesElementsWithoutReusingIDs() throws {
        var record = document()
        try record.update(
            at: EntityPath(parsing: ""),
            with: [
                "givenName": "Zoë", "primaryAddress": ["city": "Lyon", "zip": "69001"],
                "photos": [["value": "https://x.test/1.png"], ["value": "https://x.test/2.png"]],
            ])
        try record.replace(at: EntityPath(parsing: "/primaryAddress"), with: ["city": "Paris"])
        #expect(record.values["primaryAddress"] == ["city": "Paris"])
        #expect(record.values["givenName"] == "Zoë", "a replace at a path leaves the rest of the record")

        try record.delete(at: EntityPath(parsing: "/photos#2"))
        #expect(record.values["photos"]?.arrayElementIDs == [1])
        try record.update(at: EntityPath(parsing: "photos"), with: [["value": "https://x.test/new.png"]])
        #expect(record.values["photos"]?.arrayElementIDs == [1, 3], "id 2 is not given again")

        try record.replace(at: EntityPath(parsing: "photos"), with: [["value": "https://x.test/only.png"]])
        #expect(record.values["photos"]?.arrayElementIDs == [4])

        // A replace of the whole record clears everything it leaves out; it must still hold the address.
        #expect(throws: CaptureError.self) { try record.replace(at: EntityPath(parsing: ""), with: ["givenName": "Z"]) }
        try record.replace(at: EntityPath(parsing: ""), with: ["email": "a@b.co", "familyName": "Ångström"])
        #expect(record.values == ["email": "a@b.co", "familyName": "Ångström"])
        #expect(throws: CaptureError.missingArgument("attribute_name")) {
            try EntityChangeRequest(.delete, parameters: ["attribute_name": "/"])
        }
    }

    @Test func theSchemaFileIsCheckedWhenItLoads() throws {
        let problems: [(String, String)] = [
            (#"{"attributes": {"displayName": {"type": "string"}}}"#, "attributes.email"),
            (#"{"attributes": {"email": {"type": "email", "required": true}, "uuid": {"type": "string"}}}"#, "attributes.uuid"),
            (#"{"attributes": {"email": {"type": "email", "required": true}, "a": {"type": "object"}}}"#, "attributes.a"),
            (
                #"{"attributes": {"email": {"type": "email", "required": true}, "a": {"type": "string", "pattern": "("}}}"#,
                "attributes.a"
            ),
            (
                #"{"attributes": {"email": {"type": "email", "required": true}, "p": {"type": "plural", "attributes": {"v": {"type": "string", "unique": true}}}}}"#,
                "attributes.p.attributes.v"
            ),
            (#"{"attributes": {"email": {"type": "email", "required": true}, "a": {"type": "colour"}}}"#, "attributes.a.type"),
        ]
        for (json, key) in problems {
            let error = #expect(throws: SettingsError.self, "\(json)") { try Self.schema(json) }
            #expect(error?.key == key, "\(json)")
        }
    }

    @Test func aFormFieldMustNameASingleValueOfTheSchema() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestWorld.settingsDirectory, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let formsURL = directory.appendingPathComponent("forms.json")
        let forms = try String(contentsOf: formsURL, encoding: .utf8)
        for (attribute, accepted) in [
            ("primaryAddress.city", true), ("primaryAddress", false), ("photos", false), ("shoeSize", false),
        ] {
            try forms.replacingOccurrences(of: #""attribute": "phone""#, with: #""attribute": "\#(attribute)""#)
                .write(to: formsURL, atomically: true, encoding: .utf8)
            if accepted {
                #expect(try FlowCatalog.load(directory: directory).fields["phone"]?.recordPath?.description == attribute)
            } else {
                let error = #expect(throws: SettingsError.self, "\(attribute)") { try FlowCatalog.load(directory: directory) }
                #expect(error?.key == "fields.phone.attribute")
            }
        }
    }

    static func schema(_ json: String) throws -> EntitySchema {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try EntitySchema.load(from: url)
    }
}

extension JSONValue {
    var arrayElementIDs: [Int64]? {
        guard case .array(let elements) = self else { return nil }
        return elements.compactMap { element in
            if case .object(let members) = element, case .int(let id) = members["id"] { return id }
            return nil
        }
    }
}
