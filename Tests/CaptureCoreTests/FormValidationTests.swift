import CaptureCore
import CaptureTestSupport
import Foundation
import Testing

@Suite struct FormValidationTests {
    let catalog: FlowCatalog
    let flow: FlowDefinition
    var english: Messages { catalog.localization.messages(for: "en") }

    init() throws {
        catalog = try FlowCatalog.load(directory: TestWorld.settingsDirectory)
        flow = try #require(catalog.flow(named: "webViewSignIn"))
    }

    func problems(_ form: String, _ values: [String: String]) -> [String: [String]] {
        do {
            _ = try catalog.validate(form: form, in: flow, values: values, messages: english)
            return [:]
        } catch let error {
            if case .invalidFormFields(let fields) = error { return fields }
            Issue.record("unexpected error \(error)")
            return [:]
        }
    }

    @Test func validRegistrationPassesAndIsTrimmed() throws {
        let values = try catalog.validate(
            form: "registrationForm", in: flow,
            values: [
                "emailAddress": "  a@example.com ", "displayName": "A", "newPassword": " spaced pass ",
                "newPasswordConfirm": " spaced pass ",
            ], messages: english)
        #expect(values["emailAddress"] == "a@example.com")
        #expect(values["newPassword"] == " spaced pass ", "passwords are never trimmed")
        #expect(values["firstName"] == "")
    }

    @Test func everyRuleReportsItsFieldWithTheSettingsMessage() {
        let found = problems(
            "registrationForm",
            ["emailAddress": "not-an-email", "displayName": "", "newPassword": "short", "newPasswordConfirm": "other"])
        #expect(found["emailAddress"] == ["Enter a valid email address, like name@example.com."])
        #expect(found["displayName"] == ["Choose a display name."])
        #expect(found["newPassword"] == ["Use at least 8 characters for your password."])
        #expect(found["newPasswordConfirm"] == ["The passwords do not match."])
        #expect(found["firstName"] == nil)
    }

    @Test func passwordsAreLimitedTo72Bytes() {
        let long = String(repeating: "é", count: 40)  // 40 characters, 80 bytes
        let found = problems(
            "registrationForm", ["emailAddress": "a@b.co", "displayName": "A", "newPassword": long, "newPasswordConfirm": long])
        #expect(found["newPassword"] != nil)
    }

    @Test func unknownFieldsAreRefusedNotIgnored() {
        #expect(throws: CaptureError.invalidArgument("isAdmin", "is not a field of form 'signInForm'")) {
            try catalog.validate(
                form: "signInForm", in: flow, values: ["signInEmailAddress": "a@b.co", "currentPassword": "x", "isAdmin": "1"],
                messages: english)
        }
    }

    @Test func aFormOutsideTheFlowIsRefused() {
        #expect(throws: CaptureError.invalidArgument("form", "'editProfileForm' is not a form of flow 'webViewSignIn'")) {
            try catalog.validate(form: "editProfileForm", in: flow, values: [:], messages: english)
        }
    }

    @Test func everyFieldInSettingsStatesAByteLimit() {
        for field in catalog.fields.values {
            #expect(field.maxBytes != nil, "\(field.name) in forms.json has no maxBytes")
        }
        #expect(catalog.fields["displayName"]?.byteLimit == 256)
        #expect(catalog.fields["emailAddress"]?.byteLimit == 254)
        #expect(catalog.fields["phone"]?.byteLimit == 64)
    }

    @Test func aFieldWithoutMaxBytesGetsFourBytesPerCharacter() throws {
        var field = try JSONDecoder().decode(FieldDefinition.self, from: Data(#"{"label":"Nickname","type":"text"}"#.utf8))
        #expect(field.byteLimit == FieldDefinition.defaultMaxBytes)
        field.maxLength = 10
        #expect(field.byteLimit == 40)
        field.name = "nickname"
        var customFlow = flow
        customFlow.name = "f"
        customFlow.forms = ["nicknameForm"]
        let custom = FlowCatalog(
            schema: catalog.schema, fields: ["nickname": field], forms: ["nicknameForm": ["nickname"]], flows: ["f": customFlow])
        // Ten characters, 50 bytes: one letter with 20 combining marks counts as one character.
        let bomb = "a" + String(repeating: "\u{301}", count: 20) + String(repeating: "b", count: 9)
        #expect(bomb.count == 10 && bomb.utf8.count == 50)
        #expect(throws: CaptureError.invalidFormFields(["nickname": ["Nickname is too long."]])) {
            try custom.validate(form: "nicknameForm", in: customFlow, values: ["nickname": bomb], messages: english)
        }
        #expect(
            try custom.validate(form: "nicknameForm", in: customFlow, values: ["nickname": "ten chars!"], messages: english)[
                "nickname"] == "ten chars!")
    }

    @Test func graphemeBombsAreRefusedByteLimitFirstOnEveryTextField() {
        let bomb = "a" + String(repeating: "\u{301}", count: 10_000)
        let found = problems(
            "registrationForm",
            [
                "emailAddress": "a@b.co", "displayName": bomb, "firstName": bomb, "lastName": bomb, "newPassword": bomb,
                "newPasswordConfirm": bomb,
            ])
        #expect(found["displayName"] == ["Display name is too long."])
        #expect(found["firstName"] == ["First name is too long."])
        #expect(found["lastName"] == ["Last name is too long."])
        #expect(found["newPassword"] == ["Use at most 64 characters (72 bytes) for your password."])
        // The API writes through the schema, which bounds bytes the same way.
        for attribute in ["displayName", "givenName", "familyName", "phone", "email", "primaryAddress.city", "aboutMe"] {
            var document = EntityDocument(schema: catalog.schema, values: ["email": "a@b.co"], lastElementID: 0, asUser: true)
            #expect(throws: CaptureError.self, "\(attribute)") {
                try document.update(at: EntityPath(parsing: attribute), with: .string(bomb))
            }
        }
    }
}

/// Issue 27: one address syntax everywhere, a plain `local@domain` (EmailAddress).
@Suite struct EmailAddressTests {
    @Test func plainAddressesPass() {
        for address in [
            "ada@example.com", "Ada.Lovelace+capture@Example.COM", "o'brien@example.ie", "a@b.co", "x@xn--mnchen-3ya.de",
            "user_name-1@sub.domain-2.example", "{t}~|!#$%&'*/=?^`@example.com",
        ] {
            #expect(EmailAddress.isPlain(address), "\(address)")
        }
    }

    @Test func anythingButAPlainMailboxIsRefused() {
        for address in [
            "x<mallory@attacker.example>", "Mallory <mallory@attacker.example>", "<a@example.com>",
            "a@example.com (comment)", "(c)a@example.com", #""quoted"@example.com"#, "a b@example.com", "a@b@example.com",
            "@example.com", "a@", "a@localhost", "a@example..com", "a@.example.com", "a@example.com.", "a.@example.com",
            ".a@example.com", "a..b@example.com", "zoë@example.com", "a@münchen.de", "a@-x.com", "a@x-.com", "a@ex_ample.com",
            "a\n@example.com", "a@example.com\r\nBcc: b@example.com", String(repeating: "a", count: 65) + "@example.com",
            "a@" + String(repeating: "b", count: 64) + ".com", "a@" + String(repeating: "b.", count: 130) + "com",
        ] {
            #expect(!EmailAddress.isPlain(address), "\(address)")
        }
    }

    /// Issue 49: a hidden field carries its flow's value; sent empty it is that value, never a cleared attribute.
    @Test func aHiddenFieldSentEmptyIsItsFlowsValue() throws {
        let field = try JSONDecoder().decode(
            FieldDefinition.self,
            from: Data(#"{"label":"","type":"hidden","options":[{"value":"orchard-web","label":""}]}"#.utf8))
        #expect(field.cleaned("") == "orchard-web" && field.cleaned("  ") == "orchard-web")
        #expect(field.cleaned("cider-app") == "cider-app", "another value is the options check's to refuse")
    }

}
