import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite struct SignInTests {
    @Test func signInReturnsANewTokenPair() async throws {
        let world = try await TestWorld.make()
        let registered = try await world.register("sign@example.com", password: "pass word 1")
        let result = try await world.service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "SIGN@example.com", password: "pass word 1")))
        #expect(!result.isNew)
        #expect(result.user.id == registered.user.id)
        #expect(result.grant!.accessToken != registered.grant!.accessToken)
    }

    @Test func unknownAddressAndWrongPasswordFailAlike() async throws {
        let world = try await TestWorld.make()
        try await world.register("known@example.com")
        for email in ["known@example.com", "unknown@example.com"] {
            await #expect(throws: CaptureError.invalidCredentials) {
                try await world.service.signIn.signIn(
                    FlowRequest(parameters: TestWorld.signIn(email: email, password: "wrong password")))
            }
        }
    }

    @Test func repeatedFailuresAreThrottled() async throws {
        let world = try await TestWorld.make { $0.signInMaxFailures = 3 }
        try await world.register("throttle@example.com", password: "right password")
        for _ in 0..<3 {
            await #expect(throws: CaptureError.invalidCredentials) {
                try await world.service.signIn.signIn(
                    FlowRequest(parameters: TestWorld.signIn(email: "throttle@example.com", password: "wrong password")))
            }
        }
        await #expect(throws: CaptureError.rateLimited) {
            try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: "throttle@example.com", password: "right password")))
        }
        world.time.advance(by: world.service.settings.signInWindowSeconds + 1)
        _ = try await world.service.signIn.signIn(
            FlowRequest(parameters: TestWorld.signIn(email: "throttle@example.com", password: "right password")))
    }

    @Test func aDisabledAccountCannotSignInAndLosesItsTokens() async throws {
        let world = try await TestWorld.make()
        let grant = try await world.register("off@example.com", password: "right password").grant!
        _ = try await world.service.admin.setDisabled("off@example.com", disabled: true)
        await #expect(throws: CaptureError.invalidAccessToken) {
            try await world.service.profile.entity(accessToken: grant.accessToken)
        }
        await #expect(throws: CaptureError.accountDeactivated) {
            try await world.service.signIn.signIn(
                FlowRequest(parameters: TestWorld.signIn(email: "off@example.com", password: "right password")))
        }
    }

    @Test func unknownClientAndFlowAreRefusedBeforeAnyWork() async throws {
        let world = try await TestWorld.make()
        var parameters = TestWorld.signIn(email: "a@b.co", password: "x")
        parameters["client_id"] = "nobody"
        await #expect(throws: CaptureError.invalidClient) {
            try await world.service.signIn.signIn(FlowRequest(parameters: parameters))
        }
        parameters["client_id"] = "demo-mobile-app"
        parameters["flow"] = "nope"
        await #expect(throws: CaptureError.invalidArgument("flow", "unknown flow 'nope'")) {
            try await world.service.signIn.signIn(FlowRequest(parameters: parameters))
        }
    }

    @Test func profileUpdatesValidateAndKeepAddressesUnique() async throws {
        let world = try await TestWorld.make()
        try await world.register("taken@example.com")
        let grant = try await world.register("me@example.com").grant!
        func update(_ json: String) async throws -> User {
            try await world.service.profile.changeEntity(
                .update, accessToken: grant.accessToken, parameters: ["attributes": json])
        }
        let updated = try await update(#"{"givenName":"New","phone":"+44 20 7946 0000"}"#)
        #expect(updated.givenName == "New")
        await #expect(throws: CaptureError.emailAddressInUse(field: "email")) {
            try await update(#"{"email":"TAKEN@example.com"}"#)
        }
        await #expect(throws: CaptureError.schemaViolation(SchemaViolation(.constraint, "uuid", "uuid is kept by the service"))) {
            try await update(#"{"uuid":"x"}"#)
        }
        let unchanged = try await world.service.profile.entity(accessToken: grant.accessToken)
        #expect(unchanged.email == "me@example.com")
    }
}
