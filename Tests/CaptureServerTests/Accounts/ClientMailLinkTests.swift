import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 49, item 3: Janrain's `password_recover_url` and `verify_email_url` (and `site_name`) are settable for every
/// client, not only those pinned in service.json: a site registered at run time (admin API or capturectl) gets its
/// reset and verification links on its own pages, and only on an origin its registration names.
@Suite struct ClientMailLinkTests {
    static let shop = #"""
        {"client_id": "shop-web", "allowed_origins": ["https://shop.example"],
         "site_name": "Orchard Shop", "verify_email_url": "https://shop.example/verify",
         "password_recover_url": "https://shop.example/account?lang=en"}
        """#

    /// The newest message to `email`: its text.
    static func newest(_ world: TestWorld, to email: String) async throws -> String {
        try #require(try await world.service.admin.listMail().first { $0.recipient == email }?.text)
    }

    @Test func aClientAddedAtRunTimeHasItsMailLinksOnItsOwnPages() async throws {
        try await AdminAPITests.withAdmin { admin, api, world in
            let added = try await admin.send(.post, "/clients", json: Self.shop)
            #expect(added.status == .created, "\(added.json)")
            #expect(added["password_recover_url"] as? String == "https://shop.example/account?lang=en")
            #expect(added["site_name"] as? String == "Orchard Shop")

            var registration = TestWorld.registration(email: "pip@shop.example")
            registration["client_id"] = "shop-web"
            #expect(try await api.post("/oauth/register_native_traditional", registration).stat == "ok")
            let verification = try await Self.newest(world, to: "pip@shop.example")
            #expect(verification.contains("https://shop.example/verify?screenToRender=verifyEmail#"), "\(verification)")
            #expect(verification.contains("Orchard Shop"))

            var forgot = AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "pip@shop.example"])
            forgot["client_id"] = "shop-web"
            #expect(try await api.post("/oauth/forgot_password_native", forgot).stat == "ok")
            let reset = try await Self.newest(world, to: "pip@shop.example")
            #expect(
                reset.contains("https://shop.example/account?lang=en&screenToRender=resetPasswordRequestCode#"), "\(reset)")
            #expect(reset.contains("Open this link to choose a new password"), "the text fits a page that takes the link's code")

            // Cleared, the link opens the service's own page again.
            let cleared = try await admin.send(.patch, "/clients/shop-web", json: #"{"password_recover_url": ""}"#)
            #expect(cleared.status == .ok && cleared["password_recover_url"] is NSNull, "\(cleared.json)")
            #expect(try await api.post("/oauth/forgot_password_native", forgot).stat == "ok")
            let own = try await Self.newest(world, to: "pip@shop.example")
            #expect(own.contains("/flows/webViewSignIn?client_id=shop-web"), "\(own)")
        }
    }

    @Test func aPageOffTheClientsOriginsOrNotAURLIsRefused() async throws {
        try await AdminAPITests.withAdmin { admin, _, world in
            #expect(try await admin.send(.post, "/clients", json: Self.shop).status == .created)
            for (key, value) in [
                ("password_recover_url", "https://attacker.example/account"), ("verify_email_url", "javascript:alert(1)"),
                ("verify_email_url", "https://shop.example/verify#x"), ("site_name", " "),
            ] {
                let refused = try await admin.send(.patch, "/clients/shop-web", json: #"{"\#(key)": "\#(value)"}"#)
                #expect(refused.status == .badRequest, "\(key) \(value): \(refused.json)")
            }
            let stored = try await world.service.clientAdmin.ownPages(of: "shop-web")
            #expect(stored.passwordRecoverURL == "https://shop.example/account?lang=en" && stored.siteName == "Orchard Shop")
        }
    }

    /// Issue 51: settings stored through Janrain's `settings/*` (the client's own over the app's defaults) reach the
    /// mail of a client registered at run time, on the very next message.
    @Test func settingsFromTheServerAPIAndTheDefaultsReachTheMail() async throws {
        try await AdminAPITests.withAdmin { admin, api, world in
            let plum = #"{"client_id": "plum-web", "allowed_origins": ["https://plum.example"]}"#
            #expect(try await admin.send(.post, "/clients", json: plum).status == .created)
            let caller = try #require(try await world.service.store.clients.find(id: "plum-web"))
            let settings = world.service.clientSettings
            _ = try await settings.setDefault(by: caller, key: "site_name", value: "Plum Group")
            _ = try await settings.setMulti(
                by: caller, items: #"{"password_recover_url": "https://plum.example/reset"}"#, forClientID: "plum-web")

            var registration = TestWorld.registration(email: "ada@plum.example")
            registration["client_id"] = "plum-web"
            #expect(try await api.post("/oauth/register_native_traditional", registration).stat == "ok")
            #expect(try await Self.newest(world, to: "ada@plum.example").contains("Plum Group"))

            _ = try await settings.set(by: caller, key: "site_name", value: "Plum Shop", forClientID: nil)
            var forgot = AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": "ada@plum.example"])
            forgot["client_id"] = "plum-web"
            #expect(try await api.post("/oauth/forgot_password_native", forgot).stat == "ok")
            let reset = try await Self.newest(world, to: "ada@plum.example")
            #expect(reset.contains("https://plum.example/reset?screenToRender=resetPasswordRequestCode#"), "\(reset)")
            #expect(reset.contains("Plum Shop") && !reset.contains("Plum Group"), "\(reset)")
        }
    }
}
