import CaptureCore
import CaptureTestSupport
import Foundation
import Hummingbird
import Testing

/// Issue 48: a stranger's wrong guesses at someone's reset, verification or restore code must not end it for its
/// owner. Over real sockets behind a trusted proxy, so each request names its client address (`X-Forwarded-For`).
@Suite struct CodeBurningTests {
    static let owner = "198.51.100.7"
    static let stranger = "203.0.113.9"

    static func behindAProxy(_ settings: inout ServiceSettings) {
        settings.trustedProxies = ["127.0.0.1"]
    }

    static func reset(_ api: API, _ email: String, code: String, from address: String) async throws -> Reply {
        try await api.post(
            "/oauth/reset_password_native", AccountRecoveryTests.resetFields(email, code: code),
            headers: [.init("X-Forwarded-For")!: address])
    }

    /// A new account at `email` whose owner asked for a reset: the mailed code and its link's code.
    static func resetAsked(_ api: API, _ world: TestWorld, _ email: String) async throws -> (code: String, link: String) {
        try await world.register(email, password: AccountRecoveryTests.password)
        let ask = AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": email])
        #expect(
            try await api.post("/oauth/forgot_password_native", ask, headers: [.init("X-Forwarded-For")!: owner]).stat
                == "ok")
        let (_, mailed) = try await AccountRecoveryTests.mailed(world, to: email)
        return (try #require(mailed), try #require(try await AccountRecoveryTests.linkCode(world, to: email)))
    }

    /// A wrong typed guess: eight characters of the alphabet, never the mailed code.
    static func guess(_ index: Int, not code: String) -> String {
        let alphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
        let made = String((0..<8).map { alphabet[($0 * 7 + index * 13 + 3) % 32] })
        return made == CodeFormat.normalize(code) ? guess(index + 1, not: code) : made
    }

    @Test func aStrangersWrongGuessesFromOneAddressOrSeveralLeaveTheOwnersCodeWorking() async throws {
        try await withLiveAPI(configure: Self.behindAProxy) { api, world in
            let (code, _) = try await Self.resetAsked(api, world, "target@example.com")
            // One address: five wrong entries, then it is refused unread, the right code too (a cap that let the
            // right code through would still say which guess was right).
            for index in 0..<CodeGuessing.typedPerRequester {
                let wrong = try await Self.reset(
                    api, "target@example.com", code: Self.guess(index, not: code), from: Self.stranger)
                #expect(wrong.code == 390, "\(wrong.json)")
            }
            #expect(
                try await Self.reset(api, "target@example.com", code: Self.guess(9, not: code), from: Self.stranger).code == 510)
            #expect(try await Self.reset(api, "target@example.com", code: code, from: Self.stranger).code == 510)
            // Several addresses: each has its own five.
            for host in 10..<14 {
                for index in 0..<CodeGuessing.typedPerRequester {
                    let wrong = try await Self.reset(
                        api, "target@example.com", code: Self.guess(host * 5 + index, not: code), from: "203.0.113.\(host)")
                    #expect(wrong.code == 390)
                }
            }
            // An address without an account is charged alike, so the limit tells nothing about who has one.
            for index in 0..<CodeGuessing.typedPerRequester {
                #expect(
                    try await Self.reset(api, "nobody@example.com", code: Self.guess(index, not: code), from: Self.stranger).code
                        == 390)
            }
            #expect(
                try await Self.reset(api, "nobody@example.com", code: Self.guess(7, not: code), from: Self.stranger).code == 510)
            // Twenty-five wrong guesses later, the owner's typed code still resets the password.
            let owned = try await Self.reset(api, "target@example.com", code: code, from: Self.owner)
            #expect(owned.stat == "ok", "\(owned.json)")
        }
    }

    @Test func aLinksCodeIsNeverChargedAndAForgedOrGarbledOneIsRefusedWithoutCounting() async throws {
        try await withLiveAPI(configure: Self.behindAProxy) { api, world in
            let (_, link) = try await Self.resetAsked(api, world, "linked@example.com")
            let short = String(link.prefix(9))
            // Forged tags on the right short code, and a garbled real one: refused as wrong, never charged.
            var forged = Array(link)
            forged[forged.count - 1] = forged.last == "Z" ? "Y" : "Z"
            for attempt in [String(forged), short + "-" + String(repeating: "A", count: CodeGuessing.tagLength)]
                + (0..<20).map({ Self.guess($0, not: short) + String(repeating: "Q", count: CodeGuessing.tagLength) })
            {
                #expect(try await Self.reset(api, "linked@example.com", code: attempt, from: Self.stranger).code == 390)
            }
            // The stranger still has all five typed entries: the forgeries cost nothing and counted nothing.
            for index in 0..<CodeGuessing.typedPerRequester {
                #expect(
                    try await Self.reset(api, "linked@example.com", code: Self.guess(index, not: short), from: Self.stranger).code
                        == 390)
            }
            #expect(try await Self.reset(api, "linked@example.com", code: short, from: Self.stranger).code == 510)
            // The owner behind the same address (one carrier NAT) taps the link: taken, whatever the typed limit says.
            let owned = try await Self.reset(api, "linked@example.com", code: link.lowercased(), from: Self.stranger)
            #expect(owned.stat == "ok", "\(owned.json)")
            #expect(try await Self.reset(api, "linked@example.com", code: link, from: Self.owner).code == 390, "spent")
        }
    }

    /// The bound on many addresses: past `typedCeiling` wrong typed entries a code is taken only from its link.
    @Test func afterTheCeilingOfWrongTypedEntriesOnlyTheLinkTakesTheCode() async throws {
        try await withLiveAPI(configure: Self.behindAProxy) { api, world in
            let (code, link) = try await Self.resetAsked(api, world, "swarm@example.com")
            let hosts = CodeGuessing.typedCeiling / CodeGuessing.typedPerRequester
            for host in 0..<hosts {
                for index in 0..<CodeGuessing.typedPerRequester {
                    _ = try await Self.reset(
                        api, "swarm@example.com", code: Self.guess(host * 5 + index, not: code), from: "10.0.\(host).1")
                }
            }
            #expect(try await Self.reset(api, "swarm@example.com", code: code, from: Self.owner).code == 390)
            #expect(try await Self.reset(api, "swarm@example.com", code: link, from: Self.owner).stat == "ok")
        }
    }

    @Test func verificationAndRestoreCodesKeepWorkingForTheirOwnerToo() async throws {
        try await withLiveAPI(configure: Self.behindAProxy) { api, world in
            let registered = try await world.register("verify@example.com", password: AccountRecoveryTests.password)
            let (_, mailed) = try await AccountRecoveryTests.mailed(world, to: "verify@example.com")
            let code = try #require(mailed)
            func verify(_ typed: String, from address: String) async throws -> Reply {
                try await api.post(
                    "/access/useVerificationCode", ["verification_code": typed, "email": "verify@example.com"],
                    headers: [.init("X-Forwarded-For")!: address])
            }
            for index in 0..<CodeGuessing.typedPerRequester {
                #expect(try await verify(Self.guess(index, not: code), from: Self.stranger).code == 390)
            }
            #expect(try await verify(code, from: Self.stranger).code == 510)
            #expect(try await verify(code, from: Self.owner).stat == "ok")

            // The restore code an address change mails to the old address.
            let token = try #require(registered.grant?.accessToken)
            let moved = try await api.post(
                "/oauth/update_profile_native", AddressChangeTests.profile(token, email: "elsewhere@example.com"),
                headers: [.init("X-Forwarded-For")!: Self.owner])
            #expect(moved.stat == "ok", "\(moved.json)")
            let restore = try #require(try await AddressChangeTests.restoreCode(world, to: "verify@example.com"))
            for index in 0..<CodeGuessing.typedPerRequester {
                #expect(
                    try await Self.reset(api, "verify@example.com", code: Self.guess(index, not: restore), from: Self.stranger)
                        .code == 390)
            }
            #expect(try await Self.reset(api, "verify@example.com", code: restore, from: Self.stranger).code == 510)
            let restored = try await Self.reset(api, "verify@example.com", code: restore, from: Self.owner)
            #expect(restored.stat == "ok", "\(restored.json)")
            #expect(try await world.service.store.users.find(email: "verify@example.com") != nil, "back at the old address")
        }
    }
}
