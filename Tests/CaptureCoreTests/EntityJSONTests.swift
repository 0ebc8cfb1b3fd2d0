import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// `/entity` writes the record straight from the stored profile (`User.writeEntity`); it must be, byte for byte,
/// what the built record (`User.entity`) encodes to, whatever the profile holds.
@Suite struct EntityJSONTests {
    let schema: EntitySchema

    init() throws {
        schema = try FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
    }

    func written(_ user: User, profiles: [LinkedIdentity] = [], schema: EntitySchema? = nil) -> (String, String) {
        let schema = schema ?? self.schema
        var output: [UInt8] = []
        user.writeEntity(schema: schema, profiles: profiles, to: &output)
        return (String(decoding: output, as: UTF8.self), String(decoding: user.entity(schema: schema, profiles: profiles).encodedBytes(), as: UTF8.self))
    }

    static func user(_ profile: [String: JSONValue]) -> User {
        var user = User(id: "7e1c-uuid", email: "ada@example.com", passwordHash: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        user.profile = profile
        return user
    }

    @Test func anEmptyProfileAndAFullOneAreWrittenAsBuilt() {
        let empty = written(Self.user([:]))
        #expect(empty.0 == empty.1)
        var user = Self.user([
            "givenName": "Ada", "familyName": "Lovelace \"Byron\"\n", "loyaltyPoints": 42, "birthday": "1815-12-10",
            "primaryAddress": ["city": "Londres", "zip": "W1", "country": .null],
            "optIn": ["status": true, "updated": "2026-11-24 12:00:00.000000 +0000"],
            "photos": [["id": 3, "type": "large", "value": "https://p.example/a.png"], ["id": 9, "value": "é"]],
            "statuses": [["id": 1, "status": "on", "statusCreated": .null]],
            "notInTheSchema": "dropped",
        ])
        user.number = 1234
        user.emailVerifiedAt = Date(timeIntervalSince1970: 1_700_000_100)
        user.lastLoginAt = Date(timeIntervalSince1970: 1_700_000_200)
        let linked = [
            LinkedIdentity(provider: "oidc", subject: "s1", userID: user.id, email: "a@idp.example", linkedAt: Date(timeIntervalSince1970: 1_700_000_300)),
            LinkedIdentity(provider: "other", subject: "s2", userID: user.id, email: nil, linkedAt: Date(timeIntervalSince1970: 1_700_000_400)),
        ]
        let full = written(user, profiles: linked)
        #expect(full.0 == full.1)
        #expect(full.0.contains(#""givenName":"Ada""#) && !full.0.contains("notInTheSchema"))
    }

    /// Values of the wrong shape (an object where a string belongs, a plural that is no list, elements without
    /// ids) render as the built record renders them.
    @Test func oddShapesAreWrittenAsBuilt() {
        let odd = written(Self.user([
            "givenName": ["nested": true], "primaryAddress": "not an object", "photos": ["type": "not a list"],
            "statuses": [["status": "no id"], "not an object", ["id": "text id", "status": "x"]],
            "optIn": ["status": ["deep": [1, .double(2.5), .null]]],
        ]))
        #expect(odd.0 == odd.1)
    }

    /// Element ids sort among the element's attributes wherever `id` falls (before, between, after them).
    @Test func elementIdsTakeTheirSortedPlace() throws {
        for names in [["alpha", "beta"], ["alpha", "zulu"], ["jay", "kilo"], ["a"]] {
            let element = AttributeDefinition(
                name: "items", type: .plural,
                attributes: Dictionary(uniqueKeysWithValues: names.map { ($0, AttributeDefinition(name: $0, type: .string)) }))
            var email = AttributeDefinition(name: "email", type: .email)
            email.required = true
            let schema = EntitySchema(attributes: ["email": email, "items": element])
            let user = Self.user(["items": [["id": 5, names[0]: "v"], ["id": 6], [names[0]: "no id"]]])
            let result = written(user, schema: schema)
            #expect(result.0 == result.1, "\(names)")
        }
    }
}
