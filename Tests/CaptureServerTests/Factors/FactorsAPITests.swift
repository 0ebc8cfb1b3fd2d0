import CaptureCore
import CaptureTestSupport
import Foundation
import HTTPTypes
import Testing

/// The factors' rules that need no authenticator: associated-domain files from settings, a second factor that a
/// password reset leaves in place, a client that requires one, and what an SDK-era app is told. (Passkey ceremonies
/// and app codes are driven by real libraries in Tests/Interop and Tests/WebView.)
@Suite struct FactorsAPITests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    static func withApps(_ settings: inout ServiceSettings) {
        settings.publicOrigin = "https://id.example.com"
        var app = ClientSettings(clientId: "fern-app")
        app.iosAppIds = ["ABCDE12345.com.example.fern"]
        app.androidApps = [AndroidAppSettings(package: "com.example.fern", sha256CertFingerprints: [fingerprint])]
        var other = ClientSettings(clientId: "fern-other")
        other.iosAppIds = ["ABCDE12345.com.example.other", "ABCDE12345.com.example.fern"]
        settings.clients = [app, other]
    }

    @Test func associatedDomainFilesListTheClientsAppsAndTheirOriginsArePasskeyOrigins() async throws {
        try await withAPI(configure: Self.withApps) { api, world in
            let apple = try await api.get("/.well-known/apple-app-site-association")
            #expect(apple.status == .ok && apple.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(apple.headers[.cacheControl] == "public, max-age=3600")
            // Issue 48: a cacheable public reply says so once; `Pragma: no-cache` beside it contradicted it.
            #expect(apple.headers[HTTPField.Name("Pragma")!] == nil)
            let apps = (apple.json["webcredentials"] as? [String: Any])?["apps"] as? [String]
            #expect(apps == ["ABCDE12345.com.example.fern", "ABCDE12345.com.example.other"])
            let android = try await api.get("/.well-known/assetlinks.json")
            #expect(android.headers[.cacheControl] == "public, max-age=3600" && android.headers[HTTPField.Name("Pragma")!] == nil)
            // Token replies keep both.
            let options = try await api.post("/passkey/sign_in_options", ["client_id": "fern-app"])
            #expect(options.headers[.cacheControl] == "no-store" && options.headers[HTTPField.Name("Pragma")!] == "no-cache")
            let statements = try #require(try JSONSerialization.jsonObject(with: Data(android.text.utf8)) as? [[String: Any]])
            #expect(statements.count == 1)
            #expect(statements[0]["relation"] as? [String] == ["delegate_permission/common.get_login_creds"])
            let target = try #require(statements[0]["target"] as? [String: Any])
            #expect(target["namespace"] as? String == "android_app" && target["package_name"] as? String == "com.example.fern")
            #expect(target["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint])
            // The relying party: the public host, the public origin and the app's signing key as an origin.
            let party = world.service.factors.relyingParty
            #expect(party.id == "id.example.com")
            let keyHash = Data((0..<32).map { UInt8($0 * 7 % 256) }).base64URLEncoded()
            #expect(party.origins == ["https://id.example.com", "android:apk-key-hash:" + keyHash])
        }
    }

    @Test func appSettingsAreCheckedWhenTheyAreRead() throws {
        for (change, key) in [
            ({ (c: inout ClientSettings) in c.iosAppIds = ["com.example.fern"] }, "iosAppIds"),
            (
                { (c: inout ClientSettings) in
                    c.androidApps = [AndroidAppSettings(package: "fern", sha256CertFingerprints: [Self.fingerprint])]
                }, "androidApps"
            ),
            (
                { (c: inout ClientSettings) in
                    c.androidApps = [AndroidAppSettings(package: "com.example.fern", sha256CertFingerprints: ["AB:CD"])]
                }, "androidApps"
            ),
        ] {
            var settings = ServiceSettings()
            var client = ClientSettings(clientId: "fern-app")
            change(&client)
            settings.clients = [client]
            #expect(throws: SettingsError.self, "\(key)") { try settings.validate(file: "service.json") }
        }
        var settings = ServiceSettings()
        settings.publicOrigin = "https://id.example.com"
        settings.passkeyRelyingPartyID = "example.com"
        try settings.validate(file: "service.json")
        settings.passkeyRelyingPartyID = "other.com"
        #expect(throws: SettingsError.self) { try settings.validate(file: "service.json") }
    }

    /// Issue 30: recovery keeps its meaning. A reset password proves the mailbox, not the second factor; the
    /// account's passkey stays too.
    @Test func aPasswordResetLeavesTheSecondFactorAndPasskeysInPlace() async throws {
        try await withAPI { api, world in
            let registered = try await world.register("kept@example.com")
            let grant = try #require(registered.grant)
            // A passkey as a finished ceremony stores it.
            try await world.service.store.passkeys.insert(
                Passkey(
                    credentialID: "cred-kept", userID: registered.user.id, name: "Phone", publicKey: [1, 2, 3],
                    signCount: 0, backupEligible: true, backedUp: true, transports: ["internal"],
                    createdAt: world.time.now()))
            #expect(try await world.service.store.passkeys.list(userID: registered.user.id).map(\.credentialID) == ["cred-kept"])
            let setup = try await api.post("/second_factor/setup", ["access_token": grant.accessToken])
            let secret = try #require(Self.secret(setup.json["secret"] as? String))
            let code = TOTP(secret: secret).code(step: TOTP.step(at: world.service.time.now()))
            let confirmed = try await api.post(
                "/second_factor/confirm",
                ["access_token": grant.accessToken, "setup_ticket": setup.json["setup_ticket"] as! String, "code": code])
            #expect(confirmed.stat == "ok", "\(confirmed.json)")
            _ = try await api.post(
                "/oauth/forgot_password_native",
                AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "kept@example.com"]))
            let (_, mailed) = try await AccountRecoveryTests.mailed(world, to: "kept@example.com")
            let reset = try await api.post(
                "/oauth/reset_password_native", AccountRecoveryTests.resetFields("kept@example.com", code: try #require(mailed)))
            #expect(reset.stat == "ok", "\(reset.json)")
            let signIn = try await api.post(
                "/oauth/auth_native_traditional",
                TestWorld.signIn(email: "kept@example.com", password: AccountRecoveryTests.newPassword))
            #expect(signIn.code == 270 && signIn.json["error"] as? String == "second_factor_required")
            #expect((signIn.json["second_factor_ticket"] as? String)?.count == 43)
            #expect(
                signIn.json["error_description"] as? String == "enter the code from your authenticator app, or a recovery code")
            #expect(try await world.service.store.passkeys.list(userID: registered.user.id).map(\.credentialID) == ["cred-kept"])
        }
    }

    /// Issue 48: a name over the limit is refused on `name` (not cut to something the person never typed), before
    /// the ceremony's challenge is looked at, so fixing the name costs no new ceremony; a name at the limit passes on
    /// to the credential's own checks.
    @Test func aPasskeyNameOverTheLimitIsRefusedNotCut() async throws {
        try await withAPI { api, world in
            let grant = try #require(try await world.register("named@example.com").grant)
            // Parses as a credential; its challenge is nobody's.
            let credential = #"{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{"clientDataJSON":"e30"}}"#
            func register(_ name: String) async throws -> Reply {
                try await api.post(
                    "/passkey/register", ["access_token": grant.accessToken, "credential": credential, "name": name])
            }
            let long = try await register(String(repeating: "é", count: Passkey.maxNameLength + 1))
            #expect(long.code == 200 && long.json["argument"] as? String == "name", "\(long.json)")
            #expect((long.json["error_description"] as? String)?.contains("at most 64 characters") == true)
            let atLimit = try await register("  " + String(repeating: "é", count: Passkey.maxNameLength) + "  ")
            #expect(atLimit.code == 200 && atLimit.json["argument"] as? String == "credential", "\(atLimit.json)")
            #expect(try Passkey.name(" Laptop ", at: Date()) == "Laptop")
            #expect(try Passkey.name(nil, at: Date(timeIntervalSince1970: 0)) == "Passkey 1970-01-01")
        }
    }

    /// Issue 48: address-first sign-in options have one shape for every address. An account's passkeys (stored here
    /// with what clients once reported, `x` among it) are listed with their transports cut to the shapes a made-up
    /// list draws; an address without an account, and an account without passkeys, get a made-up list that is the
    /// same on every ask, of one to three ids as long as real ones, and differs between addresses.
    @Test func addressFirstOptionsLookTheSameWhetherOrNotTheAddressHasPasskeys() async throws {
        try await withAPI { api, world in
            let owner = try await world.register("keys@example.com").user
            _ = try await world.register("nokeys@example.com")
            for (bytes, transports) in [(20, ["internal", "x"]), (64, ["usb"]), (32, ["ble"])] {
                try await world.service.store.passkeys.insert(
                    Passkey(
                        credentialID: Data((0..<bytes).map { UInt8($0 * 13 % 251) }).base64URLEncoded(), userID: owner.id,
                        name: "k", publicKey: [1], signCount: 0, backupEligible: true, backedUp: true,
                        transports: transports, createdAt: world.time.now()))
            }
            func listed(_ email: String) async throws -> [(bytes: Int, transports: [String])] {
                let reply = try await api.post("/passkey/sign_in_options", ["client_id": "demo-mobile-app", "email": email])
                let options = try #require(reply.json["options"] as? [String: Any], "\(reply.json)")
                let allowed = try #require(options["allowCredentials"] as? [[String: Any]])
                return try allowed.map { entry in
                    let text = try #require(entry["id"] as? String)
                    let id = try #require(Data(base64URLEncoded: text))
                    return (id.count, entry["transports"] as? [String] ?? [])
                }
            }
            let shapes: Set<[String]> = [["hybrid", "internal"], ["nfc", "usb"], []]
            let real = try await listed("Keys@Example.com").sorted { $0.bytes < $1.bytes }
            #expect(real.map(\.bytes) == [20, 32, 64])
            #expect(real.map(\.transports) == [["hybrid", "internal"], [], ["nfc", "usb"]], "nothing a made-up list lacks")
            var counts: [Int: Int] = [:], lengths: [Int: Int] = [:], hints: [[String]: Int] = [:]
            var seen = Set<String>()
            for email in ["nokeys@example.com"] + (0..<150).map({ "nobody\($0)@example.com" }) {
                let made = try await listed(email)
                #expect((1...3).contains(made.count))
                #expect(made.allSatisfy { [16, 20, 32, 64].contains($0.bytes) && shapes.contains($0.transports) })
                let again = try await listed(email.uppercased())
                #expect(again.map(\.bytes) == made.map(\.bytes) && again.map(\.transports) == made.map(\.transports))
                counts[made.count, default: 0] += 1
                for entry in made {
                    lengths[entry.bytes, default: 0] += 1
                    hints[entry.transports, default: 0] += 1
                }
                seen.insert("\(made.map(\.bytes))\(made.map(\.transports))")
            }
            // Every count, length and transport shape a real account may show turns up among made-up lists too.
            #expect(counts.keys.sorted() == [1, 2, 3] && lengths.keys.sorted() == [16, 20, 32, 64])
            #expect(Set(hints.keys) == shapes && seen.count > 10)
        }
    }

    @Test func aClientThatRequiresASecondFactorRefusesAPasswordAlone() async throws {
        try await withAPI(configure: { settings in
            var strict = ClientSettings(clientId: "strict-app")
            strict.requireSecondFactor = true
            strict.responseTypes = ["token"]
            settings.clients.append(strict)
        }) { api, world in
            _ = try await world.register("plain@example.com")
            var fields = TestWorld.signIn(email: "plain@example.com", password: "correct horse battery")
            fields["client_id"] = "strict-app"
            let reply = try await api.post("/oauth/auth_native_traditional", fields)
            #expect(reply.code == 271 && reply.json["access_token"] == nil)
            fields["client_id"] = "demo-mobile-app"
            #expect(try await api.post("/oauth/auth_native_traditional", fields).stat == "ok")
        }
    }

    /// The account's factors over the Capture API, each reply held to its documented shape on the way
    /// (Support/OpenAPIReplyCheck.swift): the list, the options a passkey ceremony starts from, a passkey's removal,
    /// and an app code from set-up to removal with a current code. (The ceremonies themselves need an authenticator:
    /// Tests/Interop.)
    @Test func theFactorCallsAnswerAndTheListFollowsThem() async throws {
        try await withAPI { api, world in
            let auth = try await world.register("factors@example.com")
            let grant = try #require(auth.grant)
            let token = ["access_token": grant.accessToken]
            func secondFactor() async throws -> [String: Any]? {
                try await api.post("/factors", token)["second_factor"] as? [String: Any]
            }
            let before = try await api.post("/factors", token)
            #expect(before.stat == "ok" && before["password"] as? Bool == true, "\(before.json)")
            #expect((before["passkeys"] as? [Any])?.isEmpty == true)
            #expect(try await secondFactor()?["enabled"] as? Bool == false)

            let creation = try await api.post("/passkey/registration_options", token)
            #expect(((creation["options"] as? [String: Any])?["challenge"] as? String)?.isEmpty == false, "\(creation.json)")
            let request = try await api.post(
                "/passkey/sign_in_options", ["client_id": "demo-mobile-app", "email": "factors@example.com"])
            #expect(((request["options"] as? [String: Any])?["challenge"] as? String)?.isEmpty == false, "\(request.json)")

            // A passkey as a finished ceremony stores it: listed by name, removed by its id, then unknown.
            try await world.service.store.passkeys.insert(
                Passkey(
                    credentialID: "cred-factors", userID: auth.user.id, name: "Phone", publicKey: [1, 2, 3], signCount: 0,
                    backupEligible: true, backedUp: true, transports: ["internal"], createdAt: world.time.now()))
            let listed = try await api.post("/factors", token)["passkeys"] as? [[String: Any]]
            #expect(listed?.map { $0["name"] as? String } == ["Phone"], "\(String(describing: listed))")
            let removal = ["access_token": grant.accessToken, "passkey_id": "cred-factors"]
            #expect(try await api.post("/passkey/remove", removal).stat == "ok")
            #expect(try await api.post("/passkey/remove", removal).code == 310)

            let setup = try await api.post("/second_factor/setup", token)
            let secret = try #require(Self.secret(setup["secret"] as? String))
            func code() -> String { TOTP(secret: secret).code(step: TOTP.step(at: world.service.time.now())) }
            let confirmed = try await api.post(
                "/second_factor/confirm",
                [
                    "access_token": grant.accessToken, "setup_ticket": try #require(setup["setup_ticket"] as? String),
                    "code": code(),
                ])
            let recoveryCodes = try #require(confirmed["recovery_codes"] as? [String], "\(confirmed.json)")
            #expect(try await secondFactor()?["enabled"] as? Bool == true)
            #expect(try await secondFactor()?["recovery_codes_left"] as? Int == recoveryCodes.count)
            // A code counts once: the next step's turns the factor off.
            world.time.advance(by: 30)
            let disabled = try await api.post("/second_factor/disable", ["access_token": grant.accessToken, "code": code()])
            #expect(disabled.stat == "ok", "\(disabled.json)")
            #expect(try await secondFactor()?["enabled"] as? Bool == false)
        }
    }

    static func secret(_ grouped: String?) -> [UInt8]? {
        guard let grouped else { return nil }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, buffer = 0
        var bytes: [UInt8] = []
        for character in grouped where character != " " {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | value
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8(buffer >> (bits - 8) & 0xFF))
                bits -= 8
            }
        }
        return bytes
    }
}
