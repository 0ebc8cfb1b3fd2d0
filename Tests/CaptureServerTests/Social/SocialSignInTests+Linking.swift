import CaptureCore
import CaptureJSON
import CaptureOutbound
import CaptureServer
import CaptureTestSupport
import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import Testing

/// Social sign-in meeting accounts that already exist: linking after the password, merges, the profile's links.
extension SocialSignInTests {
    @Test func anAddressOfAnExistingAccountAsksForThePasswordThenLinks() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await world.register("ada@example.com", password: "correct horse battery")
            try await Self.provide(issuer, subject: "ada-at-mock", claims: ["email": "ada@example.com", "email_verified": true])
            let token = try #require(try await Self.roundTrip(api, subject: "ada-at-mock").fragment["capture_social_token"])
            let merge = try await Self.authNative(api, token: token)
            #expect(merge.code == 380 && merge["existing_provider"] as? String == "capture")
            // The address (the provider's own claim) comes back so the merge screen can fill it in.
            #expect(merge["existing_email"] as? String == "ada@example.com")
            #expect(try await service.store.users.find(email: "ada@example.com")?.passwordHash != nil, "nothing signed in")

            var wrong = TestWorld.signIn(email: "ada@example.com", password: "not the password")
            wrong["merge_token"] = token
            wrong["code_verifier"] = Self.verifier
            #expect(try await api.post("/oauth/auth_native_traditional", wrong).code == 210)
            var right = TestWorld.signIn(email: "ada@example.com", password: "correct horse battery")
            right["merge_token"] = token
            right["code_verifier"] = Self.verifier
            let merged = try await api.post("/oauth/auth_native_traditional", right)
            #expect(merged.stat == "ok")

            // From now on the provider account signs in to Ada's account.
            let next = try #require(try await Self.roundTrip(api, subject: "ada-at-mock").fragment["capture_social_token"])
            let signedIn = try await Self.authNative(api, token: next)
            #expect(signedIn.stat == "ok" && signedIn["is_new"] as? Bool == false)
            #expect((signedIn["capture_user"] as? [String: Any])?["email"] as? String == "ada@example.com")
        }
    }

    /// A merge token rides a sign-in with a provider account that belongs to no account: refused, nothing made.
    @Test func aMergeThroughAProviderAccountOfNoAccountIsRefusedAndMakesNoAccount() async throws {
        try await Self.withProvider { issuer, api, world, _ in
            try await Self.provide(issuer, subject: "first", claims: ["email": "first@example.com"])
            try await Self.provide(issuer, subject: "stranger", claims: ["email": "stranger@example.com"])
            let first = try #require(try await Self.roundTrip(api, subject: "first").fragment["capture_social_token"])
            let other = try #require(try await Self.roundTrip(api, subject: "stranger").fragment["capture_social_token"])
            var fields = TestWorld.flowParameters(form: "")
            fields["form"] = nil
            fields.merge([
                "token": other, "merge_token": first, "thin_registration": "true", "redirect_uri": Self.page,
                "code_verifier": Self.verifier,
            ]) { $1 }
            let refused = try await api.post("/oauth/auth_native", fields)
            #expect(refused.code == 200 && refused["argument"] as? String == "merge_token")
            #expect(try await world.service.store.users.list(search: nil, page: Page()).isEmpty)
        }
    }

    @Test func aSignedInUserLinksAndUnlinksProviderAccountsAndTheRecordListsThem() async throws {
        try await Self.withProvider { issuer, api, world, service in
            let access = try #require(try await world.registerProven("lin@example.com").grant?.accessToken)
            try await Self.provide(issuer, subject: "lin-elsewhere", claims: ["email": "lin@elsewhere.example"])
            let token = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            // As jump.android sends it (Capture.performLinkAccount).
            var link = TestWorld.flowParameters(form: "")
            link["form"] = nil
            link.merge([
                "access_token": access, "token": token, "redirect_uri": Self.page, "flow_version": "20261122",
                "code_verifier": Self.verifier,
            ]) { $1 }
            let linked = try await api.post("/oauth/link_account_native", link)
            #expect(linked.stat == "ok")
            let record = try await api.post("/entity", ["access_token": access])
            let profiles = try #require((record["result"] as? [String: Any])?["profiles"] as? [[String: Any]])
            #expect(profiles.count == 1 && profiles[0]["domain"] as? String == "mock")
            #expect(
                profiles[0]["identifier"] as? String == "mock:lin-elsewhere"
                    && profiles[0]["email"] as? String == "lin@elsewhere.example")

            // The provider account now signs in to Lin's account.
            let next = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            let signedIn = try await Self.authNative(api, token: next)
            #expect((signedIn["capture_user"] as? [String: Any])?["email"] as? String == "lin@example.com")

            // Someone else cannot take it over.
            let other = try #require(try await world.registerProven("other@example.com").grant?.accessToken)
            let again = try #require(try await Self.roundTrip(api, subject: "lin-elsewhere").fragment["capture_social_token"])
            link["access_token"] = other
            link["token"] = again
            let stolen = try await api.post("/oauth/link_account_native", link)
            #expect(stolen.code == 403)

            // Unlink as jump.android sends it (Capture.performUnlinkAccount).
            let unlink: [String: String] = [
                "client_id": "demo-mobile-app", "locale": "en-US", "identifier_to_remove": "mock:lin-elsewhere",
                "access_token": access, "flow": "webViewSignIn", "flow_version": "20261122",
            ]
            let unlinked = try await api.post("/oauth/unlink_account_native", unlink)
            #expect(unlinked.stat == "ok")
            #expect(((unlinked["capture_user"] as? [String: Any])?["profiles"] as? [Any])?.isEmpty == true)
            #expect(try await api.post("/oauth/unlink_account_native", unlink).code == 310)
        }
    }

    @Test func anAccountMadeByAProviderKeepsItsOnlyWayIn() async throws {
        try await Self.withProvider { issuer, api, world, service in
            try await Self.provide(issuer, subject: "solo", claims: ["email": "solo@example.com", "email_verified": true])
            let token = try #require(try await Self.roundTrip(api, subject: "solo").fragment["capture_social_token"])
            let access = try #require(try await Self.authNative(api, token: token)["access_token"] as? String)
            let refused = try await api.post(
                "/oauth/unlink_account_native",
                ["client_id": "demo-mobile-app", "identifier_to_remove": "mock:solo", "access_token": access])
            #expect(refused.code == 403 && (refused["error_description"] as? String)?.contains("set a password") == true)
            let user = try #require(try await service.store.users.find(email: "solo@example.com"))
            #expect(try await service.providerLinks.linkedAccounts(of: user).map(\.identifier) == ["mock:solo"])
        }
    }
}
