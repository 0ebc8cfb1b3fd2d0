import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite("capturectl mail")
struct MailCommandTests {
    static func code(in text: String?) -> String? {
        text?.firstMatch(of: /[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}/).map { String($0.output) }
    }

    @Test("mail list and show never print a code unless --body asks; the body names it")
    func listAndShowHideCodesUnlessAsked() async throws {
        let world = try await TestWorld.current()
        try await world.register("mail@example.com")
        let entry = try #require(try await world.service.listMail().first)
        let code = try #require(Self.code(in: entry.text))

        let list = try await CLI.run(["mail", "list"], in: world)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("emailVerification") && list.stdout.contains("mail@example.com"))
        #expect(list.stdout.contains("pending"))
        let json = try await CLI.run(["mail", "list", "--json"], in: world)
        #expect(!json.stdout.contains(code))
        #expect((try json.json() as? [[String: Any]])?.first?["bodyKept"] as? Bool == true)

        let show = try await CLI.run(["mail", "show", "\(entry.id!)"], in: world)
        #expect(show.status == 0 && show.stdout.contains("Confirm your email address") && !show.stdout.contains(code))
        let body = try await CLI.run(["mail", "show", "\(entry.id!)", "--body"], in: world)
        #expect(body.stdout.contains(code))
    }

    @Test("mail retry makes a message due again; sent, suppressed, unknown and malformed ids are refused")
    func retry() async throws {
        let world = try await TestWorld.current()
        try await world.register("mail@example.com")
        _ = try await world.service.requestPasswordReset(
            FlowRequest(parameters: TestWorld.flowParameters(form: "forgotPasswordForm").merging(
                ["signInEmailAddress": "ghost@example.com"]) { _, new in new }))
        let entries = try await world.service.listMail()
        let pending = try #require(entries.first { $0.status == .pending })
        let suppressed = try #require(entries.first { $0.status == .suppressed })

        let due = try await CLI.run(["mail", "retry", "\(pending.id!)"], in: world)
        #expect(due.status == 0, "\(due.stderr)")
        let refused = try await CLI.run(["mail", "retry", "\(suppressed.id!)"], in: world)
        #expect(refused.status == 1 && refused.stderr.contains("suppressed"))
        #expect(try await CLI.run(["mail", "show", "999999"], in: world).status == 1)
        #expect(try await CLI.run(["mail", "show", "nine"], in: world).status == 2)
    }
}
