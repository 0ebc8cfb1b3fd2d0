import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// Janrain's server API as a customer's backend calls it: the three ways a client proves itself, the features that
/// decide what it may call, a user's token kept to its own record, and the record, issuing and creation calls.
@Suite struct ServerAPITests {
    @Test func aClientProvesItselfByBasicParametersOrSignatureAndNothingElse() async throws {
        try await withAPI { api, world in
            let backend = try await ServerAPIClients.add(world, "crm-backend", [.directAccess])
            let user = try await world.register("basic@example.com").user
            let select = ["uuid": user.id, "type_name": "user"]
            for credentials in [backend.basic, backend.parameters, backend.signed("/entity", select, world)] {
                let reply = try await api.post(
                    "/entity", select.merging(credentials.fields) { _, new in new }, headers: credentials.headers)
                #expect(reply.stat == "ok", "\(reply.text)")
                #expect((reply["result"] as? [String: Any])?["email"] as? String == "basic@example.com")
            }
            var wrong = backend
            wrong.secret = "not-the-secret"
            for credentials in [wrong.basic, wrong.parameters, wrong.signed("/entity", select, world)] {
                let reply = try await api.post(
                    "/entity", select.merging(credentials.fields) { _, new in new }, headers: credentials.headers)
                #expect(reply.status == .ok && reply.stat == "error" && reply.code == 402, "\(reply.text)")
                #expect(reply["result"] == nil)
            }
            // A signature over other parameters than those sent, and one made too long ago.
            let tampered = backend.signed("/entity", ["uuid": "someone-else", "type_name": "user"], world)
            #expect(try await api.post("/entity", select, headers: tampered.headers).code == 402)
            let stale = backend.signed("/entity", select, world, at: world.time.now().addingTimeInterval(-301))
            let staleReply = try await api.post("/entity", select, headers: stale.headers)
            #expect(staleReply.code == 403 && staleReply.text.contains("Date"), "\(staleReply.text)")
            let otherCall = backend.signed("/entity.delete", select, world)
            #expect(try await api.post("/entity", select, headers: otherCall.headers).code == 402)
        }
    }

    @Test func featuresDecideWhatAClientMayCall() async throws {
        try await withAPI { api, world in
            let reader = try await ServerAPIClients.add(world, "reporting", [.directReadAccess])
            let login = try await ServerAPIClients.add(world, "app-login", [.loginClient])
            let user = try await world.register("features@example.com").user
            let read = ["uuid": user.id].merging(reader.basic.fields) { _, new in new }
            #expect(try await api.post("/entity", read, headers: reader.basic.headers).stat == "ok")
            let write = read.merging(["attributes": #"{"givenName":"Changed"}"#]) { _, new in new }
            #expect(try await api.post("/entity.update", write, headers: reader.basic.headers).code == 403)
            #expect(try await api.post("/entity", ["uuid": user.id], headers: login.basic.headers).code == 403)
            // The demo app's public client has no secret: whatever it presents, it is refused.
            let publicClient = ["uuid": user.id, "client_id": "demo-mobile-app", "client_secret": "x"]
            #expect(try await api.post("/entity", publicClient).code == 402)
            let whitelisted = try await ServerAPIClients.add(world, "office-only", [.owner], whitelist: ["10.1.0.0/16"])
            #expect(try await api.post("/entity", ["uuid": user.id], headers: whitelisted.basic.headers).code == 403)
        }
    }

    @Test func aUsersTokenReachesOnlyItsOwnRecordWhateverItNames() async throws {
        try await withAPI { api, world in
            let own = try await world.register("own@example.com")
            let other = try await world.register("other@example.com").user
            let token = own.grant!.accessToken
            let read = try await api.post("/entity", ["access_token": token, "uuid": other.id])
            #expect((read["result"] as? [String: Any])?["email"] as? String == "own@example.com")
            let write = try await api.post(
                "/entity.update", ["uuid": other.id, "attributes": #"{"givenName":"Mallory"}"#],
                headers: [.authorization: "OAuth \(token)"])
            #expect(write.stat == "ok", "\(write.text)")
            #expect(try await world.service.store.users.find(id: other.id)?.givenName == "Tess")
            #expect(try await world.service.store.users.find(id: own.user.id)?.givenName == "Mallory")
            #expect(try await api.post("/entity.create", ["access_token": token, "attributes": "{}"]).code == 403)
        }
    }

    @Test func recordsAreCreatedInBulkUpdatedReplacedAndDeleted() async throws {
        try await withAPI { api, world in
            let backend = try await ServerAPIClients.add(world, "crm-writer", [.directAccess])
            let auth = backend.basic.headers
            let created = try await api.post(
                "/entity.create",
                [
                    "type_name": "user",
                    "attributes":
                        #"{"email":"New@Example.com","password":"a long passphrase","givenName":"Ada","primaryAddress":{"city":"Paris"}}"#,
                ],
                headers: auth)
            #expect(created.stat == "ok" && created["id"] is Int && created["uuid"] is String, "\(created.text)")
            let uuid = try #require(created["uuid"] as? String)
            let stored = try #require(try await world.service.store.users.find(id: uuid))
            #expect(stored.email == "new@example.com" && stored.passwordHash?.hasPrefix("$2") == true)
            let signIn = try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: "new@example.com", password: "a long passphrase")))
            #expect(signIn.user.id == uuid)

            let bulk = try await api.post(
                "/entity.bulkCreate",
                [
                    "all_attributes":
                        #"[{"email":"b1@example.com"},{"email":"new@example.com"},{"email":"b3@example.com","uuid":"x"}, {"email":"b4@example.com"}]"#
                ],
                headers: auth)
            let uuids = try #require(bulk["uuid_results"] as? [Any])
            #expect(uuids.count == 4 && uuids[0] is String && uuids[3] is String, "\(bulk.text)")
            #expect((uuids[1] as? [String: Any])?["code"] as? Int == 361, "a taken address is a unique value taken")
            #expect((uuids[2] as? [String: Any])?["code"] as? Int == 200, "the service's uuid is not written")

            let updated = try await api.post(
                "/entity.update", ["uuid": uuid, "attributes": #"{"familyName":"Lovelace"}"#], headers: auth)
            let record = try #require(updated["result"] as? [String: Any])
            #expect(record["givenName"] as? String == "Ada" && record["familyName"] as? String == "Lovelace")
            let replaced = try await api.post(
                "/entity.replace",
                ["id": "\(created["id"] as! Int)", "attributes": #"{"email":"new@example.com","givenName":"Augusta"}"#],
                headers: auth)
            let after = try #require(replaced["result"] as? [String: Any])
            #expect(after["givenName"] as? String == "Augusta" && after["familyName"] is NSNull)
            #expect((after["primaryAddress"] as? [String: Any])?["city"] is NSNull)

            let byKey = try await api.post(
                "/entity", ["key_attribute": "email", "key_value": #""NEW@example.com""#, "attributes": #"["givenName"]"#],
                headers: auth)
            #expect((byKey["result"] as? [String: Any]).map { $0.count == 1 && $0["givenName"] as? String == "Augusta" } == true)

            #expect(try await api.post("/entity.delete", ["uuid": uuid], headers: auth).stat == "ok")
            #expect(try await api.post("/entity", ["uuid": uuid], headers: auth).code == 310)
            let log = try await world.service.audit.auditLog(AuditFilter(page: Page(limit: 50)))
            #expect(log.contains { $0.actor == "client:crm-writer" && $0.action == "user.create" })
        }
    }

    @Test func issuedTokensReadTheRecordAndACreationTokenCreatesOnce() async throws {
        try await withAPI { api, world in
            let issuer = try await ServerAPIClients.add(world, "token-issuer", [.accessIssuer])
            let user = try await world.register("issued@example.com").user
            let issued = try await api.post(
                "/access/getAccessToken", ["uuid": user.id, "type_name": "user"], headers: issuer.basic.headers)
            let token = try #require(issued["accessToken"] as? String, "\(issued.text)")
            let read = try await api.post("/entity", [:], headers: [.authorization: "OAuth \(token)"])
            #expect((read["result"] as? [String: Any])?["uuid"] as? String == user.id)
            #expect(try await api.post("/entity", ["uuid": user.id], headers: issuer.basic.headers).code == 403)

            let made = try await api.post(
                "/access/getCreationToken", ["for_client_id": "demo-mobile-app", "lifetime": "60"], headers: issuer.basic.headers)
            let creation = try #require(made["creation_token"] as? String, "\(made.text)")
            let fields = [
                "client_id": "demo-mobile-app", "creation_token": creation, "attributes": #"{"email":"self@example.com"}"#,
            ]
            #expect(try await api.post("/entity.create", fields).stat == "ok")
            let again = fields.merging(["attributes": #"{"email":"twice@example.com"}"#]) { _, new in new }
            #expect(try await api.post("/entity.create", again).code == 200, "a creation token works once")
        }
    }

    @Test func failedClientAuthenticationsAreThrottledLikePasswords() async throws {
        try await withAPI(configure: { $0.signInMaxFailures = 3 }) { api, world in
            var backend = try await ServerAPIClients.add(world, "guessed", [.directAccess])
            backend.secret = "guess"
            var codes: [Int] = []
            for _ in 0..<5 {
                codes.append(try await api.post("/entity", ["uuid": "x"], headers: backend.basic.headers).code ?? 0)
            }
            #expect(codes == [402, 402, 402, 510, 510])
        }
    }

    @Test func recordsAreFoundCountedAndExportedByIDPages() async throws {
        try await withAPI { api, world in
            let reader = try await ServerAPIClients.add(world, "exporter", [.directReadAccess])
            let auth = reader.basic.headers
            for index in 0..<7 { try await world.register("export\(index)@example.com") }
            let count = try await api.post("/entity.count", ["filter": "email != 'export3@example.com'"], headers: auth)
            #expect(count["total_count"] as? Int == 6, "\(count.text)")
            let one = try await api.post(
                "/entity.find", ["filter": "email = 'export5@example.com'", "attributes": #"["email","uuid"]"#], headers: auth)
            let found = try #require(one["results"] as? [[String: Any]], "\(one.text)")
            #expect(found.count == 1 && found[0].count == 2 && one["result_count"] as? Int == 1)

            // Janrain's export loop: sorted by id, each page after the last id seen.
            var last = 0, seen: [Int] = []
            while true {
                let page = try await api.post(
                    "/entity.find",
                    ["filter": "id > \(last)", "sort_on": #"["id"]"#, "max_results": "3", "attributes": #"["id"]"#],
                    headers: auth)
                let ids = (page["results"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                seen += ids
                guard ids.count == 3, let next = ids.last else { break }
                last = next
            }
            #expect(seen.count == 7 && seen == seen.sorted())
            let total = try await api.post("/entity.find", ["show_total_count": "true", "max_results": "2"], headers: auth)
            #expect(total["total_count"] as? Int == 7 && (total["results"] as? [Any])?.count == 2)
            for hostile in ["email = 'x' or 1=1 --", "email = '", "((((((((((", "email contains 'a'"] {
                let refused = try await api.post("/entity.find", ["filter": hostile], headers: auth)
                #expect(refused.status == .ok && refused.stat == "error" && refused.results == nil, "\(hostile)")
            }
        }
    }

    @Test func anOwnerManagesClientsAndSettingsAndOthersOnlyTheirOwnSettings() async throws {
        try await withAPI { api, world in
            let owner = try await ServerAPIClients.add(world, "app-owner", [.owner])
            let reader = try await ServerAPIClients.add(world, "settings-reader", [.directReadAccess])
            let added = try await api.post(
                "/clients/add", ["description": "CRM", "features": #"["direct_access"]"#], headers: owner.basic.headers)
            let id = try #require(added["client_id"] as? String, "\(added.text)")
            let secret = try #require(added["client_secret"] as? String)
            let crm = ServerAPIClient(id: id, secret: secret)
            let list = try await api.post("/clients/list", ["has_features": #"["direct_access"]"#], headers: owner.basic.headers)
            #expect((list.results as? [[String: Any]])?.map { $0["client_id"] as? String } == [id])
            // The new client signs its calls at once: its secret was sealed when it was made.
            let count = crm.signed("/entity.count", [:], world)
            #expect(try await api.post("/entity.count", [:], headers: count.headers).stat == "ok")

            #expect(try await api.post("/clients/list", [:], headers: reader.basic.headers).code == 403)
            let own = try await api.post(
                "/settings/set", ["key": "site_name", "value": "Reports"], headers: reader.basic.headers)
            #expect(own.stat == "ok", "\(own.text)")
            let other = ["key": "site_name", "value": "Hijacked", "for_client_id": id]
            #expect(try await api.post("/settings/set", other, headers: reader.basic.headers).code == 403)
            #expect(
                try await api.post("/settings/set_default", ["key": "site_name", "value": "App"], headers: reader.basic.headers)
                    .code == 403)
            #expect(
                try await api.post("/settings/set_default", ["key": "site_name", "value": "App"], headers: owner.basic.headers)
                    .stat == "ok")
            let items = try await api.post("/settings/items", ["for_client_id": id], headers: owner.basic.headers)
            #expect((items["result"] as? [String: Any])?["site_name"] as? String == "App", "\(items.text)")
            let reset = try await api.post("/clients/reset_secret", ["for_client_id": id], headers: owner.basic.headers)
            #expect(reset["new_secret"] is String)
            #expect(try await api.post("/entity.count", [:], headers: crm.basic.headers).code == 402, "the old secret ended")
        }
    }

    @Test func aResetSecretKeepsTheOldOneForItsHoursToLiveEverywhereThenEndsIt() async throws {
        try await withAPI { api, world in
            let owner = try await ServerAPIClients.add(world, "rotation-owner", [.owner])
            let old = try await ServerAPIClients.add(world, "rotation-crm", [.directReadAccess])
            let over = try await api.post(
                "/clients/reset_secret", ["for_client_id": old.id, "hours_to_live": "169"], headers: owner.basic.headers)
            #expect(over.code == 200 && over.json["argument_name"] as? String == "hours_to_live", "\(over.text)")
            let reset = try await api.post(
                "/clients/reset_secret", ["for_client_id": old.id, "hours_to_live": "2"], headers: owner.basic.headers)
            let new = ServerAPIClient(id: old.id, secret: try #require(reset["new_secret"] as? String, "\(reset.text)"))

            // Both secrets work for two hours: in Basic, signed, and where OAuth's endpoints check a client.
            func works(_ client: ServerAPIClient) async throws -> [Bool] {
                let basic = try await api.post("/entity.count", [:], headers: client.basic.headers)
                let signed = try await api.post("/entity.count", [:], headers: client.signed("/entity.count", [:], world).headers)
                let introspect = try await api.post("/oauth/introspect", ["token": "made-up"], headers: client.basic.headers)
                return [basic.stat == "ok", signed.stat == "ok", introspect.status == .ok]
            }
            #expect(try await works(old) == [true, true, true])
            #expect(try await works(new) == [true, true, true])
            world.time.advance(by: 2 * 3600)
            #expect(try await works(old) == [false, false, false], "the old secret ended when its hours did")
            #expect(try await works(new) == [true, true, true])

            // Without hours_to_live the secret ends at once, and so does one still retiring from an earlier reset.
            let kept = try await api.post(
                "/clients/reset_secret", ["for_client_id": old.id, "hours_to_live": "1"], headers: owner.basic.headers)
            let newer = ServerAPIClient(id: old.id, secret: try #require(kept["new_secret"] as? String))
            let ended = try await api.post("/clients/reset_secret", ["for_client_id": old.id], headers: owner.basic.headers)
            #expect(ended["new_secret"] is String)
            #expect(try await works(new) == [false, false, false])
            #expect(try await works(newer) == [false, false, false])
        }
    }

    @Test func theSchemaIsReadInJanrainsShapeAndChangedOnlyInItsFile() async throws {
        try await withAPI { api, world in
            let reader = try await ServerAPIClients.add(world, "schema-reader", [.directReadAccess])
            let owner = try await ServerAPIClients.add(world, "schema-owner", [.owner])
            let schema = try await api.post("/entityType", ["type_name": "user"], headers: reader.basic.headers)
            let definitions = try #require((schema["schema"] as? [String: Any])?["attr_defs"] as? [[String: Any]])
            let address = definitions.first { $0["name"] as? String == "primaryAddress" }
            #expect((address?["attr_defs"] as? [Any])?.isEmpty == false && address?["type"] as? String == "object")
            #expect(definitions.contains { $0["name"] as? String == "uuid" && $0["type"] as? String == "uuid" })
            #expect(try await api.post("/entityType", ["type_name": "pets"], headers: reader.basic.headers).code == 200)
            #expect(try await api.post("/entityType.list", [:], headers: reader.basic.headers).code == 403)
            #expect(try await api.post("/entityType.list", [:], headers: owner.basic.headers).results?.count == 1)
            let change = try await api.post("/entityType.addAttribute", ["type_name": "user"], headers: owner.basic.headers)
            #expect(change.code == 403 && change.text.contains("Settings/schema.json"))
        }
    }

    @Test func aRecordShowsItsLinkedAccountsWhetherReadByUUIDOrFound() async throws {
        try await withAPI { api, world in
            let reader = try await ServerAPIClients.add(world, "links-reader", [.directReadAccess])
            let user = try await world.register("linked@example.com").user
            try await world.register("plain@example.com")
            try await world.service.store.identities.link(
                LinkedIdentity(provider: "example", subject: "42", userID: user.id, email: "l@id.example", linkedAt: Date()))
            let read = try await api.post("/entity", ["uuid": user.id], headers: reader.basic.headers)
            let profiles = (read["result"] as? [String: Any])?["profiles"] as? [[String: Any]]
            #expect(profiles?.count == 1 && (read["result"] as? [String: Any])?["givenName"] as? String == "Tess", "\(read.text)")
            let found = try await api.post(
                "/entity.find",
                ["filter": "email = 'linked@example.com' or email = 'plain@example.com'", "sort_on": #"["email"]"#],
                headers: reader.basic.headers)
            let records = try #require(found.results as? [[String: Any]], "\(found.text)")
            #expect(records.map { ($0["profiles"] as? [Any])?.count } == [1, 0])
            #expect(records.map { $0["email"] as? String } == ["linked@example.com", "plain@example.com"])
            // Found by its key alone (read like a record by selector), it shows its accounts too.
            let alone = try await api.post(
                "/entity.find", ["filter": "email = 'linked@example.com'"], headers: reader.basic.headers)
            #expect((alone.results?.first as? [String: Any]).flatMap { $0["profiles"] as? [Any] }?.count == 1, "\(alone.text)")
        }
    }
}

extension Reply {
    var results: [Any]? { json["results"] as? [Any] }
}
