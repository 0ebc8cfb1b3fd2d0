import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// Stored text is limited in bytes as well as characters, on every path that writes it: one base letter with
/// thousands of combining marks is one "character" but tens of kilobytes, and every `/entity` would return it.
@Suite struct FieldByteLimitTests {
    /// "a" + 10 000 × U+0301: one grapheme cluster, 20 001 UTF-8 bytes.
    static let graphemeBomb = "a" + String(repeating: "\u{301}", count: 10_000)
    /// "a" + 1 000 × U+0301: one grapheme, 2 001 bytes; small enough for the JSON parser, too big for any field.
    static let smallGraphemeBomb = "a" + String(repeating: "\u{301}", count: 1_000)

    @Test func aGraphemeBombDisplayNameIsRefusedAtRegistrationAndNoUserIsStored() async throws {
        try await withAPI { api, world in
            #expect(Self.graphemeBomb.count == 1)
            var fields = TestWorld.registration(email: "bomb@example.com")
            fields["displayName"] = Self.graphemeBomb
            let reply = try await api.post("/oauth/register_native_traditional", fields)
            #expect(reply.status == .ok)
            #expect(reply.code == 390 && reply["error"] as? String == "invalid_form_fields")
            let invalid = try #require(reply["invalid_fields"] as? [String: [String]])
            #expect(invalid["displayName"] == ["Display name is too long."])
            #expect(try await world.service.admin.listUsers().isEmpty)
        }
    }

    @Test func aGraphemeBombIsRefusedByUpdateProfileNativeAndNothingChanges() async throws {
        try await withAPI { api, world in
            let token = try await world.register("profile-bomb@example.com").grant!.accessToken
            for name in ["displayName", "firstName", "lastName"] {
                var fields = TestWorld.flowParameters(form: "editProfileForm", flow: "webViewProfile")
                fields.merge([
                    "access_token": token, "displayName": "Pro", "firstName": "P", "lastName": "F",
                    "emailAddress": "profile-bomb@example.com",
                ]) { _, new in new }
                fields[name] = Self.graphemeBomb
                let reply = try await api.post("/oauth/update_profile_native", fields)
                #expect(reply.code == 390, "\(name)")
                #expect((reply["invalid_fields"] as? [String: [String]])?[name] != nil, "\(name)")
            }
            let user = try await world.service.profile.entity(accessToken: token)
            #expect(user.displayName == "Tester" && user.givenName == "Tess" && user.familyName == "Ter")
        }
    }

    @Test func aGraphemeBombIsRefusedByEntityUpdateAndNothingChanges() async throws {
        try await withAPI { api, world in
            let token = try await world.register("entity-bomb@example.com").grant!.accessToken
            // Within the parser's string limit: refused by the schema's byte limit (363, length_violation).
            for attribute in ["displayName", "givenName", "familyName"] {
                let json = String(
                    decoding: JSONValue.object([attribute: .string(Self.smallGraphemeBomb)]).encoded(), as: UTF8.self)
                let reply = try await api.post("/entity.update", ["access_token": token, "attributes": json])
                #expect(reply.code == 363, "\(attribute)")
                #expect(reply["attribute_name"] as? String == attribute)
            }
            let one = try await api.post(
                "/entity.update",
                ["access_token": token, "attribute_name": "/displayName", "value": "\"\(Self.smallGraphemeBomb)\""])
            #expect(one.code == 363)
            // Beyond the parser's string limit: refused before any field is looked at.
            let big = String(decoding: JSONValue.object(["displayName": .string(Self.graphemeBomb)]).encoded(), as: UTF8.self)
            let refused = try await api.post("/entity.update", ["access_token": token, "attributes": big])
            #expect(refused.status == .badRequest && refused["argument"] as? String == "attributes")
            #expect((refused["error_description"] as? String)?.contains("string is longer than 4096 bytes") == true)

            let user = try await world.service.profile.entity(accessToken: token)
            #expect(user.displayName == "Tester" && user.givenName == "Tess" && user.familyName == "Ter")
        }
    }

    @Test func aNameWithinTheByteLimitIsStillAccepted() async throws {
        try await withAPI { api, world in
            let token = try await world.register("accents@example.com").grant!.accessToken
            // 64 characters of two bytes each (128 bytes): within both limits.
            let name = String(repeating: "é", count: 64)
            let json = String(decoding: JSONValue.object(["displayName": .string(name)]).encoded(), as: UTF8.self)
            let reply = try await api.post("/entity.update", ["access_token": token, "attributes": json])
            #expect(reply.stat == "ok")
            #expect(try await world.service.profile.entity(accessToken: token).displayName == name)
        }
    }
}
