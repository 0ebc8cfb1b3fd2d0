import CaptureCore
import CaptureTestSupport
import Foundation
import GRDB
import Testing

/// `/entity`, `/entity.update`, `/entity.replace` and `/entity.delete` with objects and plurals, sent exactly as
/// jump.ios (`attributes`, `include_record=true`, `attribute_name` as `/path`) and jump.android (`value`,
/// `attribute_name`) send them, and read back as they parse the reply (`stat`, `result`).
@Suite struct EntityAPITests {
    /// jump.ios JRCaptureApidInterface: updateObject / replaceObject / replaceArray.
    static func ios(_ token: String, _ json: String, at path: String? = nil) -> [String: String] {
        var fields = ["attributes": json, "access_token": token, "include_record": "true"]
        if let path { fields["attribute_name"] = path }
        return fields
    }

    /// jump.android ApidUpdate / ApidReplace / ApidDelete: `value` and `attribute_name`, plus the token.
    static func android(_ token: String, _ json: String?, at path: String) -> [String: String] {
        var fields = ["access_token": token, "attribute_name": path]
        if let json { fields["value"] = json }
        return fields
    }

    static func result(_ reply: Reply) -> [String: Any] { reply["result"] as? [String: Any] ?? [:] }

    @Test func theRecordHasJanrainsShapeWithEveryAttributeOfTheSchema() async throws {
        try await withAPI { api, world in
            let token = try await world.register("shape@example.com").grant!.accessToken
            let record = Self.result(try await api.post("/entity", ["access_token": token]))
            #expect(record["id"] is Int && record["uuid"] is String)
            for key in ["created", "lastUpdated", "lastLogin"] { #expect(record[key] is String, "\(key)") }
            #expect(record["emailVerified"] is NSNull)
            #expect(record["email"] as? String == "shape@example.com" && record["givenName"] as? String == "Tess")
            let address = try #require(record["primaryAddress"] as? [String: Any])
            #expect(address["city"] is NSNull && address["zip"] is NSNull, "objects come with their members, null when empty")
            #expect((record["photos"] as? [Any])?.isEmpty == true)
            #expect(record["aboutMe"] is NSNull)
            #expect(record["password"] == nil && record["profile"] == nil)
        }
    }

    @Test func iosUpdatesObjectsAndReplacesPluralsAtTheirPaths() async throws {
        try await withAPI { api, world in
            let token = try await world.register("ios-entity@example.com").grant!.accessToken
            let address = try await api.post(
                "/entity.update", Self.ios(token, #"{"city":"Lyon","zip":"69001","country":"FR"}"#, at: "/primaryAddress"))
            #expect(address.stat == "ok")
            #expect((Self.result(address)["primaryAddress"] as? [String: Any])?["city"] as? String == "Lyon")

            let photos = try await api.post(
                "/entity.replace",
                Self.ios(
                    token, #"[{"type":"avatar","value":"https://img.test/a.png"},{"value":"https://img.test/b.png"}]"#,
                    at: "/photos"))
            let list = try #require(Self.result(photos)["photos"] as? [[String: Any]])
            #expect(list.count == 2 && list.allSatisfy { $0["id"] is Int })
            let id = try #require(list.first?["id"] as? Int)

            // getCaptureObjectAtPath, then updateObject on the element's own path.
            let element = try await api.post("/entity", ["access_token": token, "attribute_name": "/photos#\(id)"])
            #expect((element["result"] as? [String: Any])?["value"] as? String == "https://img.test/a.png")
            let changed = try await api.post("/entity.update", Self.ios(token, #"{"type":"profile"}"#, at: "/photos#\(id)"))
            let first = (Self.result(changed)["photos"] as? [[String: Any]])?.first { $0["id"] as? Int == id }
            #expect(first?["type"] as? String == "profile" && first?["value"] as? String == "https://img.test/a.png")

            let city = try await api.post("/entity", ["access_token": token, "attribute_name": "primaryAddress.city"])
            #expect(city["result"] as? String == "Lyon")
        }
    }

    @Test func androidReplacesAndDeletesByPath() async throws {
        try await withAPI { api, world in
            let token = try await world.register("android-entity@example.com").grant!.accessToken
            let replaced = try await api.post(
                "/entity.replace", Self.android(token, #"{"city":"Oslo"}"#, at: "/primaryAddress"))
            #expect((Self.result(replaced)["primaryAddress"] as? [String: Any])?["city"] as? String == "Oslo")
            _ = try await api.post(
                "/entity.update",
                Self.android(token, #"{"statuses":[{"status":"hello","statusCreated":"2026-01-02T03:04:05Z"}]}"#, at: "/"))
            let record = Self.result(try await api.post("/entity", ["access_token": token]))
            let status = try #require((record["statuses"] as? [[String: Any]])?.first)
            #expect(status["statusCreated"] as? String == "2026-01-02 03:04:05.000000 +0000")
            let id = try #require(status["id"] as? Int)

            let deleted = try await api.post("/entity.delete", Self.android(token, nil, at: "/statuses#\(id)"))
            #expect(deleted.stat == "ok")
            #expect((Self.result(deleted)["statuses"] as? [Any])?.isEmpty == true)
            let city = try await api.post("/entity.delete", Self.android(token, nil, at: "/primaryAddress/city"))
            #expect((Self.result(city)["primaryAddress"] as? [String: Any])?["city"] is NSNull)
            let gone = try await api.post("/entity.delete", Self.android(token, nil, at: "/statuses#\(id)"))
            #expect(gone.code == 310)
        }
    }

    @Test func refusalsCarryJanrainsCodesAndChangeNothing() async throws {
        try await withAPI { api, world in
            let token = try await world.register("refused-entity@example.com").grant!.accessToken
            let before = Self.result(try await api.post("/entity", ["access_token": token]))
            let cases: [([String: String], Int, String)] = [
                (Self.ios(token, #"{"shoeSize":44}"#), 223, "shoeSize"),
                (Self.ios(token, #"{"displayName":7}"#), 341, "displayName"),
                (Self.ios(token, #"{"birthday":"1990-13-01"}"#), 342, "birthday"),
                (Self.ios(token, #"{"loyaltyPoints":1000}"#), 360, "loyaltyPoints"),
                (Self.ios(token, #"{"givenName":"x","email":null}"#), 362, "email"),
                (Self.ios(token, #"{"photos":[{"value":"javascript:alert(1)"}]}"#), 340, "photos.value"),
                (Self.android(token, #""Oslo""#, at: "/primaryAddress/planet"), 223, "primaryAddress.planet"),
                (Self.android(token, nil, at: "/uuid"), 360, "uuid"),
            ]
            for (fields, code, path) in cases {
                let endpoint = fields["value"] == nil && fields["attributes"] == nil ? "/entity.delete" : "/entity.update"
                let reply = try await api.post(endpoint, fields)
                #expect(reply.status == .ok && reply.stat == "error", "\(fields)")
                #expect(reply.code == code, "\(fields)")
                #expect(reply["attribute_name"] as? String == path, "\(fields)")
            }
            let malformed = try await api.post("/entity.replace", Self.ios(token, "{"))
            #expect(malformed.status == .badRequest && malformed["argument"] as? String == "attributes")
            let noPath = try await api.post("/entity.delete", ["access_token": token])
            #expect(noPath.code == 100 && noPath["argument"] as? String == "attribute_name")
            let anonymous = try await api.post("/entity.replace", Self.ios("not-a-token", #"{"givenName":"x"}"#, at: "/"))
            #expect(anonymous.code == 200 && anonymous["error"] as? String == "invalid_access_token")
            var after = Self.result(try await api.post("/entity", ["access_token": token]))
            after["lastUpdated"] = before["lastUpdated"]
            #expect(NSDictionary(dictionary: after).isEqual(to: before), "nothing changed")
        }
    }

    @Test func replacingTheWholeRecordKeepsTheServicesAttributesAndClearsTheRest() async throws {
        try await withAPI { api, world in
            let token = try await world.register("replace-all@example.com").grant!.accessToken
            let before = Self.result(try await api.post("/entity", ["access_token": token]))
            let reply = try await api.post(
                "/entity.replace", Self.ios(token, #"{"email":"replace-all@example.com","givenName":"Only"}"#))
            let after = Self.result(reply)
            #expect(after["givenName"] as? String == "Only" && after["familyName"] is NSNull && after["displayName"] is NSNull)
            #expect(after["uuid"] as? String == before["uuid"] as? String && after["id"] as? Int == before["id"] as? Int)
            #expect(after["created"] as? String == before["created"] as? String)
        }
    }

    @Test func aUniqueAttributeIsHeldByOneRecordAtATime() async throws {
        // A schema where displayName is unique, as many Janrain applications had it.
        let settings = try TestWorld.settingsCopy(
            replacingInSchema: #""displayName": { "type": "string", "length": 64 }"#,
            with: #""displayName": { "type": "string", "length": 64, "unique": true }"#)
        defer { try? FileManager.default.removeItem(at: settings) }
        let world = try await TestWorld.make(backend: .sqlite, settingsDirectory: settings)
        #expect(world.service.catalog.schema.uniquePaths.map(\.description) == ["displayName"])

        let first = try await world.register("unique-1@example.com").grant!.accessToken
        // Registration through the form: the clash is reported on the form's field (390).
        var second = TestWorld.registration(email: "unique-2@example.com")
        second["displayName"] = "TESTER"
        await #expect(throws: CaptureError.invalidFormFields(["displayName": ["Display name is already taken."]])) {
            try await world.service.signIn.register(FlowRequest(parameters: second))
        }
        second["displayName"] = "Other"
        let other = try await world.service.signIn.register(FlowRequest(parameters: second)).grant!.accessToken
        // Through the API: Janrain's 361.
        await #expect(
            throws: CaptureError.schemaViolation(SchemaViolation(.unique, "displayName", "this displayName is already taken"))
        ) {
            try await world.service.profile.changeEntity(
                .update, accessToken: other, parameters: ["attributes": #"{"displayName":"tester"}"#])
        }
        // Once the first record lets go of the name, it is free.
        _ = try await world.service.profile.changeEntity(
            .update, accessToken: first, parameters: ["attributes": #"{"displayName":"Renamed"}"#])
        let taken = try await world.service.profile.changeEntity(
            .update, accessToken: other, parameters: ["attributes": #"{"displayName":"Tester"}"#])
        #expect(taken.displayName == "Tester")
        let rows = try await world.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT attribute, value FROM user_unique ORDER BY value")
        }
        #expect(rows.map { $0["value"] as String } == ["renamed", "tester"])
    }
}
