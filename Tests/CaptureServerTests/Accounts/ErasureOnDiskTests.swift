import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// Issue 48, item 2 (SPEC §18): after an erasure nothing of the person is readable in any file of the SQLite
/// database (the file, its `-wal` and `-shm`), while the service runs and after it stops: the bytes of every file are
/// searched for the address, the names, the about-me text, the uuid and the password hash.
@Suite struct ErasureOnDiskTests {
    static let email = "zebulon.quist@erase.example"
    static let password = "correct horse battery"

    /// A person who left traces everywhere: a record with names and an about-me text, updated since, a reset mail
    /// (its body names them) and a verification mail, tokens, an audit trail.
    static func person(_ api: API, _ world: TestWorld) async throws -> (user: User, token: String, needles: [String]) {
        var fields = TestWorld.registration(email: email, password: password)
        fields.merge(["displayName": "Zebulon Quist", "firstName": "Zebulonia", "lastName": "Quistgaard"]) { $1 }
        let registered = try await api.post("/oauth/register_native_traditional", fields)
        let token = try #require(registered["access_token"] as? String, "\(registered.json)")
        let updated = try await api.post(
            "/entity.update", ["access_token": token, "attributes": #"{"aboutMe": "Collector of rare xylophones"}"#])
        #expect(updated.stat == "ok", "\(updated.json)")
        _ = try await api.post(
            "/oauth/forgot_password_native", AccountRecoveryTests.flow("forgotPasswordForm", ["signInEmailAddress": email]))
        let user = try #require(try await world.service.store.users.find(email: email))
        let hash = try #require(user.passwordHash)
        #expect(try await world.service.admin.listMail().contains { $0.text?.contains("Zebulon Quist") == true })
        return (user, token, [email, "Zebulon Quist", "Zebulonia", "Quistgaard", "xylophones", user.id, hash])
    }

    /// Every file of the database's directory whose bytes contain one of `needles`, with the needle.
    static func traces(of needles: [String], in world: TestWorld) throws -> [String] {
        let directory = URL(fileURLWithPath: world.database).deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("capture.sqlite") }
        #expect(files.contains("capture.sqlite"))
        var found: [String] = []
        for file in files.sorted() {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            for needle in needles where bytes.range(of: Data(needle.utf8)) != nil { found.append("\(file): \(needle)") }
        }
        return found
    }

    static func checkGone(_ needles: [String], _ world: TestWorld, after how: String) async throws {
        #expect(try Self.traces(of: needles, in: world).isEmpty, "\(how), while the service runs")
        try await world.storage.close()
        #expect(try Self.traces(of: needles, in: world).isEmpty, "\(how), after a clean shutdown")
        let wal = URL(fileURLWithPath: world.database + "-wal")
        let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(size == 0, "the log is empty after a clean shutdown (\(size) bytes)")
    }

    @Test func anOperatorsErasureLeavesNothingInAnyFile() async throws {
        try await withAPI(backend: .sqlite) { api, world in
            let (_, _, needles) = try await Self.person(api, world)
            #expect(!(try Self.traces(of: needles, in: world)).isEmpty, "the search finds a person who is there")
            _ = try await world.service.admin.deleteUser(Self.email)
            try await Self.checkGone(needles, world, after: "capturectl user delete")
        }
    }

    @Test func anOwnersDeletionWithNoGraceLeavesOnlyTheNoticeToTheAddress() async throws {
        try await withAPI(backend: .sqlite, configure: { $0.erasureGraceDays = 0 }) { api, world in
            let (user, token, needles) = try await Self.person(api, world)
            let deleted = try await api.post(
                "/oauth/deactivate_account", AccountDeletionTests.deletion(token, password: Self.password))
            #expect(deleted.stat == "ok", "\(deleted.json)")
            // The deletion notice waits for delivery with the address alone: no name, nothing of the profile.
            let mail = try await world.service.admin.listMail()
            #expect(mail.map(\.kind) == [.accountDeleted] && mail[0].recipient == Self.email, "\(mail.map(\.kind))")
            #expect(mail[0].userID == nil && mail[0].text?.contains("Zebulon") == false)
            #expect(mail[0].html?.contains("Zebulon") == false)
            try await Self.checkGone(needles.filter { $0 != Self.email }, world, after: "the owner's deletion")
            _ = user
        }
    }

    @Test func thePurgeOfAnExpiredGracePeriodLeavesNothingInAnyFile() async throws {
        try await withAPI(backend: .sqlite) { api, world in
            let (_, token, needles) = try await Self.person(api, world)
            #expect(
                try await api.post("/oauth/deactivate_account", AccountDeletionTests.deletion(token, password: Self.password))
                    .stat == "ok")
            // The deletion notice was delivered long before the erasure (its body and address forgotten then).
            var notice = try #require(try await world.service.admin.listMail().first { $0.kind == .accountDeleted })
            notice.status = .sent
            notice.forgetBody()
            try await world.service.store.outbox.update(notice)
            world.time.advance(by: 30 * 86400 + 1)
            #expect(try await world.service.housekeeping.purgeExpired()["accounts_erased"] == 1)
            try await Self.checkGone(needles, world, after: "the purge after the grace period")
        }
    }

    /// A delivered notice that outlives its account keeps no recipient; any other message keeps its own.
    @Test func aDeliveredDeletionNoticeForgetsItsRecipient() {
        var notice = OutboxEntry(
            messageID: "m@x", kind: .accountDeleted, recipient: Self.email, userID: nil, subject: "s", text: "t", html: "h",
            status: .sent, createdAt: Date(), bodyExpiresAt: Date())
        notice.forgetBody()
        #expect(notice.recipient == OutboxEntry.forgottenRecipient && notice.text == nil && notice.html == nil)
        var reset = OutboxEntry(
            messageID: "m@x", kind: .passwordReset, recipient: Self.email, userID: "u", subject: "s", text: "t", html: "h",
            status: .sent, createdAt: Date(), bodyExpiresAt: Date())
        reset.forgetBody()
        #expect(reset.recipient == Self.email && reset.text == nil)
    }
}
