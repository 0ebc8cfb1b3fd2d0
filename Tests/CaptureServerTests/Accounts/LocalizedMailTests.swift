import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

/// The messages a user asks for come in the language of the call's `locale`, how long the code lives included.
@Suite struct LocalizedMailTests {
    static func forgot(_ email: String, locale: String) -> [String: String] {
        TestWorld.flowParameters(form: "forgotPasswordForm").merging(["signInEmailAddress": email, "locale": locale]) { _, new in
            new
        }
    }

    static func mailed(_ world: TestWorld, to email: String) async throws -> OutboxEntry {
        try #require(try await world.service.admin.listMail().first { $0.recipient == email && $0.kind == .passwordReset })
    }

    @Test func aPasswordResetIsWrittenInTheCallsLanguage() async throws {
        try await withAPI { api, world in
            let cases: [(locale: String, subject: String, expires: String, lang: String)] = [
                ("de-DE", "Ihr Code zum Zurücksetzen des Passworts", "30 Minuten lang", "lang=\"de\""),
                ("fr-FR", "Votre code de réinitialisation du mot de passe", "valable 30 minutes", "lang=\"fr\""),
                ("ar-SA", "رمز إعادة تعيين كلمة المرور", "لمدة 30 دقيقة", "dir=\"rtl\""),
                ("he-IL", "Your password reset code", "for 30 minutes", "lang=\"en\""),
            ]
            for (index, item) in cases.enumerated() {
                let email = "reset\(index)@example.com"
                try await world.register(email, password: "the first passphrase")
                let reply = try await api.post("/oauth/forgot_password_native", Self.forgot(email, locale: item.locale))
                #expect(reply.stat == "ok", "\(reply.json)")
                let entry = try await Self.mailed(world, to: email)
                #expect(entry.subject == item.subject, "\(item.locale): \(entry.subject)")
                #expect(entry.text?.contains(item.expires) == true, "\(item.locale): \(entry.text ?? "")")
                #expect(entry.html?.contains(item.expires) == true, "\(item.locale): the HTML says the same")
                #expect(entry.html?.contains(item.lang) == true, "\(item.locale): \(item.lang)")
                #expect(entry.text?.contains("locale=\(item.locale)") == true, "the link reopens the page in the same language")
            }
        }
    }

    @Test func aVerificationCodeSaysItsHoursInTheLanguage() async throws {
        try await withAPI { api, world in
            var registration = TestWorld.registration(email: "verify@example.com")
            registration["locale"] = "ar"
            let reply = try await api.post("/oauth/register_native_traditional", registration)
            #expect(reply.stat == "ok", "\(reply.json)")
            let entry = try #require(try await world.service.admin.listMail().first { $0.kind == .emailVerification })
            #expect(entry.subject == "أكّد عنوان بريدك الإلكتروني")
            #expect(entry.text?.contains("لمدة 24 ساعة") == true, "\(entry.text ?? "")")
        }
    }
}
