import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

@testable import CaptureCore

/// `/entity` writes the record from the profile's stored text (`EntityEncoder.write`), copying its values where the text
/// is as `JSONWriter` wrote it (`StoredJSONText`); that must be, byte for byte, what the built record
/// (`EntityEncoder.record`) encodes to, whatever the profile holds.
@Suite struct EntityJSONTests {
    let schema: EntitySchema

    init() throws {
        schema = try FlowCatalog.load(directory: TestWorld.settingsDirectory).schema
    }

    /// What `/entity` writes for `user` from its profile's stored text, and what the built record encodes to. The
    /// text must be copied (not parsed) unless it holds a fraction (`copied: false`), and the copy must give the
    /// built record's bytes.
    func written(
        _ user: User, profiles: [LinkedIdentity] = [], schema: EntitySchema? = nil, copied copies: Bool = true
    )
        -> (String, String)
    {
        let encoder = EntityEncoder(schema: schema ?? self.schema)
        let built = String(decoding: encoder.record(user, profiles: profiles).encodedBytes(), as: UTF8.self)
        let text = StoredJSON.text(user.profile)
        var unparsed = user
        unparsed.profile = [:]
        var copied: [UInt8] = []
        #expect(
            Self.copies(unparsed, schema: encoder.schema, profiles: profiles, text: text, to: &copied) == copies, "\(text)")
        if copies { #expect(String(decoding: copied, as: UTF8.self) == built, "copied from the stored text \(text)") }
        var output: [UInt8] = []
        encoder.write(unparsed, storedProfile: text, profiles: profiles, to: &output)
        return (String(decoding: output, as: UTF8.self), built)
    }

    /// Whether the encoder copies from `text` (true) or refuses it (`write` then parses it and builds the record).
    static func copies(
        _ user: User, schema: EntitySchema, profiles: [LinkedIdentity] = [], text: String, to output: inout [UInt8]
    ) -> Bool {
        var text = text
        let encoder = EntityEncoder(schema: schema)
        return text.withUTF8 { encoder.copy(user, from: StoredJSONText($0), profiles: profiles, to: &output) }
    }

    /// `/entity` from a stored text through the public entry (copied or parsed), and the record built from the
    /// parsed text.
    func fromStoredText(_ text: String) -> (String, String) {
        let user = Self.user([:])
        let encoder = EntityEncoder(schema: schema)
        var output: [UInt8] = []
        encoder.write(user, storedProfile: text, profiles: [], to: &output)
        var parsed = user
        parsed.profile = StoredJSON.object(text) ?? [:]
        let built = encoder.record(parsed, profiles: []).encodedBytes()
        return (String(decoding: output, as: UTF8.self), String(decoding: built, as: UTF8.self))
    }

    static func user(_ profile: [String: JSONValue]) -> User {
        var user = User(
            id: "7e1c-uuid", email: "ada@example.com", passwordHash: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
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
            LinkedIdentity(
                provider: "oidc", subject: "s1", userID: user.id, email: "a@idp.example",
                linkedAt: Date(timeIntervalSince1970: 1_700_000_300)),
            LinkedIdentity(
                provider: "other", subject: "s2", userID: user.id, email: nil,
                linkedAt: Date(timeIntervalSince1970: 1_700_000_400)),
        ]
        let full = written(user, profiles: linked)
        #expect(full.0 == full.1)
        #expect(full.0.contains(#""givenName":"Ada""#) && !full.0.contains("notInTheSchema"))
    }

    /// Values of the wrong shape (an object where a string belongs, a plural that is no list, elements without
    /// ids) render as the built record renders them.
    @Test func oddShapesAreWrittenAsBuilt() {
        let odd = written(
            Self.user([
                "givenName": ["nested": true], "primaryAddress": "not an object", "photos": ["type": "not a list"],
                "statuses": [["status": "no id"], "not an object", ["id": "text id", "status": "x"]],
                "optIn": ["status": ["deep": [1, .double(2.5), .null]]],
            ]), copied: false)
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

    /// Text other software wrote (SQLite's `json_group_object` in migration v5 keeps its own order), or that is not
    /// as `JSONWriter` writes it, is parsed, never copied: the reply is the one for the parsed profile.
    @Test func storedTextNotAsJSONWriterWritesItIsParsed() {
        let texts = [
            #"{"givenName":"Ada","familyName":"Lovelace","birthday":"1815-12-10"}"#,  // not in ascending order
            #"{"familyName": "Lovelace"}"#, #"{ "givenName":"Ada"}"#, #"{"givenName":"Ada"} "#,  // spaces
            #"{"aboutMe":1.0}"#, #"{"aboutMe":-0}"#, #"{"aboutMe":1e3}"#, #"{"aboutMe":12345678901234567890}"#,
            #"{"aboutMe":"\u00e9"}"#, #"{"aboutMe":"\/"}"#, #"{"aboutMe":"\b"}"#, #"{"aboutMe":"\u000a"}"#,
            #"{"aboutMe":"\u001F"}"#, #"{"gender":"x","gender":"y"}"#, #"{"g\u0065nder":"x"}"#, #"{"née":"x"}"#,
            #"{"photos":[{"value":"a","id":1}]}"#, #"{"primaryAddress":{"zip":"1","city":"c"}}"#,
            "not JSON", "[]", "", "{", #"{"aboutMe":tru}"#, #"{"aboutMe":"unterminated}"#,
            "{\"a\":" + String(repeating: "[", count: 20) + String(repeating: "]", count: 20) + "}",
        ]
        for text in texts {
            var ignored: [UInt8] = []
            #expect(!Self.copies(Self.user([:]), schema: schema, text: text, to: &ignored), "copied \(text)")
            let (written, built) = fromStoredText(text)
            #expect(written == built, "\(text)")
        }
    }

    /// Text as `JSONWriter` writes it is copied as it is, escapes and all.
    @Test func storedTextAsJSONWriterWritesItIsCopied() {
        let texts = [
            "{}", #"{"aboutMe":"a \"quoted\" \\ back\nslash\r\t\u0001\u001f é 🙂 "# + "\u{7F}\"}",
            #"{"aboutMe":-9223372036,"gender":null,"optIn":{"status":false},"photos":[],"statuses":[{"id":7}]}"#,
            #"{"aboutMe":[1,[true,{"deep":{}}],"x"],"zzz":{"not":"in the schema"}}"#,
        ]
        for text in texts {
            var copied: [UInt8] = []
            #expect(Self.copies(Self.user([:]), schema: schema, text: text, to: &copied), "parsed \(text)")
            let (written, built) = fromStoredText(text)
            #expect(written == built, "\(text)")
            #expect(String(decoding: copied, as: UTF8.self) == built, "\(text)")
        }
    }

    /// Random profiles, shaped after the schema and not: stored through `JSONWriter` and written from that text,
    /// they give the built record's bytes.
    @Test func randomProfilesWrittenFromTheirStoredTextAreAsBuilt() {
        var random = SplitMix64(seed: 12)
        let names = schema.attributes.keys.sorted() + ["id", "zzz", "Aa", "a b"]
        let alphabet = ["a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "🙂", "/", "\u{08}"]
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        func value(_ depth: Int) -> JSONValue {
            switch pick(depth > 2 ? 6 : 8) {
            case 0: return .null
            case 1: return .bool(pick(2) == 0)
            case 2: return .int(Int64(bitPattern: random.next()) >> pick(64))
            case 3: return pick(4) == 0 ? .double(Double(pick(1000)) / 8) : .int(Int64(pick(100)))
            case 4, 5: return .string((0..<pick(12)).map { _ in alphabet[pick(alphabet.count)] }.joined())
            case 6:
                return .array(
                    (0..<pick(4)).map { _ in pick(3) == 0 ? value(depth + 1) : .object(object(depth + 1, id: pick(2) == 0)) })
            default: return .object(object(depth + 1, id: false))
            }
        }
        func object(_ depth: Int, id: Bool) -> [String: JSONValue] {
            var members: [String: JSONValue] = [:]
            for _ in 0..<pick(6) { members[names[pick(names.count)]] = value(depth) }
            if id { members["id"] = .int(Int64(pick(50))) }
            return members
        }
        var copiedCount = 0
        let encoder = EntityEncoder(schema: schema)
        for _ in 0..<400 {
            let user = Self.user(object(0, id: false))
            let text = StoredJSON.text(user.profile)
            var unparsed = user
            unparsed.profile = [:]
            var output: [UInt8] = []
            encoder.write(unparsed, storedProfile: text, profiles: [], to: &output)
            let built = String(decoding: encoder.record(user, profiles: []).encodedBytes(), as: UTF8.self)
            #expect(String(decoding: output, as: UTF8.self) == built, "\(text)")
            var copied: [UInt8] = []
            if Self.copies(unparsed, schema: schema, text: text, to: &copied) {
                copiedCount += 1
                #expect(String(decoding: copied, as: UTF8.self) == built, "\(text)")
            }
        }
        // Fractions and integers of more than 18 digits are parsed; the rest is copied.
        #expect(copiedCount > 100, "\(copiedCount) of 400 copied")
    }
}

/// SplitMix64: the same "random" profiles on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
