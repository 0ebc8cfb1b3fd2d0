import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// A Janrain flow document made a flow of this service (JanrainFlowImport), validated against with its own rules
/// and texts, refused where it asks for what the service cannot do, and exported back (JanrainFlowExport).
@Suite struct JanrainFlowImportTests {
    static let fixture = TestWorld.repositoryRoot.appendingPathComponent("Tests/Fixtures/janrain-flow-fernway.json")

    func schema() throws -> EntitySchema {
        try EntitySchema.load(from: TestWorld.settingsDirectory.appendingPathComponent("schema.json"))
    }

    func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any])
    }

    /// A copy of the shipped Settings with `flow` written to flows/<name>.json.
    func settings(with flow: FlowDefinition) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestWorld.settingsDirectory, to: directory)
        try JSONEncoder().encode(flow).write(to: directory.appendingPathComponent("flows/\(flow.name).json"))
        return directory
    }

    /// `settings(with:)`, loaded.
    func catalog(with flow: FlowDefinition) throws -> FlowCatalog {
        try FlowCatalog.load(directory: settings(with: flow))
    }

    @Test func theDocumentsFieldsFormsButtonsAndTextsBecomeTheFlows() throws {
        let flow = try JanrainFlowImport.flow(named: "fernway", from: Data(contentsOf: Self.fixture), schema: schema())
        let imported = try #require(flow.imported)
        #expect(flow.page.isEmpty && flow.locale == "en-US" && flow.flowVersion == "20240105093000000000")
        #expect(flow.forms == ["editProfileForm", "forgotPasswordForm", "registrationForm", "signInForm"])
        #expect(imported.forms["signInForm"] == ["signInEmailAddress", "currentPassword"], "buttons are not values")
        let email = try #require(imported.fields["signInEmailAddress"])
        #expect(email.label == "Your e-mail" && email.placeholder == "you@example.com" && email.format == .email)
        #expect(email.messages?["required"] == "We need your e-mail to sign you in.")
        #expect(imported.fields["currentPassword"]?.attribute == "currentPassword", "the sign-in form's password")
        #expect(imported.fields["newPassword"]?.attribute == "password" && imported.fields["newPassword"]?.minLength == 10)
        #expect(imported.fields["newPasswordConfirm"]?.matches == "newPassword")
        let trail = try #require(imported.fields["favouriteTrail"])
        #expect(trail.element == "select" && trail.options?.map(\.value) == ["", "ridge", "valley"])
        #expect(trail.options?[1].label == "Ridge walk")
        let birthday = try #require(imported.fields["birthdate"], "Janrain's date select: a date")
        #expect(birthday.type == "date" && birthday.format == .date && birthday.attribute == "birthday")
        let gender = try #require(imported.fields["gender"])
        #expect(gender.element == "radio" && gender.options?.map(\.value) == ["female", "male", "other"])
        let country = try #require(imported.fields["siteCountry"], "a hidden input: its one value")
        #expect(country.type == "hidden" && country.options?.map(\.value) == ["NZ"])
        #expect(country.attribute == "primaryAddress.country")
        #expect(imported.buttons == ["signInButton": "Let me in", "joinButton": "Join the club"])
        #expect(imported.texts["de-DE"]?["field.displayName.label"] == "Wandername")
        #expect(imported.texts["de-DE"]?["field.newPassword.minLength"] == "Mindestens 10 Zeichen, bitte.")
        #expect(imported.texts["de-DE"]?["field.signInEmailAddress.placeholder"] == "du@beispiel.de")
        #expect(imported.texts["de-DE"]?["field.favouriteTrail.option.1"] == "Gratwanderung")
        #expect(imported.texts["en-US"]?["field.displayName.tip"] == "How other hikers see you.")
        #expect(imported.translations(for: "de", fallback: "en-US")["textWelcomeHeading"] == "Willkommen im Wanderclub Fernway")
        #expect(imported.screens.contains("editProfile") && imported.defaultScreen == "signIn")
        // The screen after registration, as the page follows it (the service's own steps left out).
        #expect(
            imported.next?["registrationForm"] == [
                "if": ["compare": "emailVerified", "to": .null, "withOperator": "=="],
                "then": ["render": ["screen": "registrationNewVerification"]],
            ])
    }

    @Test func aNextRuleIsFollowedAsFarAsAPageCanAndTheRestIsRefusedByForm() throws {
        var document = try document()
        var forms = try #require(document["forms"] as? [String: Any])
        var registration = try #require(forms["registrationForm"] as? [String: Any])
        registration["next"] = [
            "if": ["compare": "birthday", "to": NSNull(), "withOperator": ">="],
            "then": ["render": ["screen": "x"]], "else": ["error": ["message": "no"]],
        ]
        forms["registrationForm"] = registration
        var signIn = try #require(forms["signInForm"] as? [String: Any])
        signIn["next"] = ["render": ["screen": "welcomeBack"], "sendMail": ["mail": "x"], "type": "server"]
        forms["signInForm"] = signIn
        document["forms"] = forms
        let refused = #expect(throws: JanrainFlowImport.Refused.self) {
            try JanrainFlowImport.flow(named: "fernway", from: JSONSerialization.data(withJSONObject: document), schema: schema())
        }
        #expect(
            refused?.problems.map(\.description) == [
                "forms.registrationForm.next: 'error' is not a step a page can follow (render, if/then/else)",
                "forms.registrationForm.next: the operator '>=' is not one a page follows (== or !=)",
            ])
        registration["next"] = nil
        forms["registrationForm"] = registration
        document["forms"] = forms
        let flow = try JanrainFlowImport.flow(
            named: "fernway", from: JSONSerialization.data(withJSONObject: document), schema: schema())
        #expect(flow.imported?.next == ["signInForm": ["render": ["screen": "welcomeBack"]]], "the service sends its own mail")
        let catalog = try catalog(with: flow)
        let widget = catalog.widgetFlow(
            try #require(catalog.flow(named: "fernway")), messages: catalog.localization.messages(for: "en-US"))
        guard case .object(let entries) = widget, case .object(let widgetForms)? = entries["forms"],
            case .object(let signInEntry)? = widgetForms["signInForm"]
        else { Issue.record("no signInForm in widget.json"); return }
        #expect(signInEntry["next"] == ["render": ["screen": "welcomeBack"]])
    }

    @Test func anImportedFlowIsValidatedWithItsOwnRulesAndTextsBesideTheBuiltInOnes() throws {
        let catalog = try catalog(
            with: JanrainFlowImport.flow(named: "fernway", from: Data(contentsOf: Self.fixture), schema: schema()))
        let flow = try #require(catalog.flow(named: "fernway"))
        let key = catalog.formKey("registrationForm", in: flow)
        #expect(key == "fernway/registrationForm" && catalog.isForm(key, of: flow))
        let german = catalog.localization.messages(for: "de-DE").overlaid(with: flow.imported!.texts(for: "de-DE"))
        let values = [
            "emailAddress": "hiker@example.com", "displayName": "Ridge Runner", "favouriteTrail": "cliff",
            "newPassword": "only9char", "newPasswordConfirm": "only9char",
        ]
        #expect(
            throws: CaptureError.invalidFormFields([
                "newPassword": ["Mindestens 10 Zeichen, bitte."],
                "favouriteTrail": [
                    catalog.localization.messages(for: "de-DE").text("rule.format", ["label": "Lieblingsweg"])
                ],
            ])
        ) {
            try catalog.validate(form: key, in: flow, values: values, messages: german)
        }
        var good = values
        good["favouriteTrail"] = "ridge"
        good["newPassword"] = "ten chars!"
        good["newPasswordConfirm"] = "ten chars!"
        #expect(try catalog.validate(form: key, in: flow, values: good, messages: german)["favouriteTrail"] == "ridge")
        // The built-in flows keep their own forms and rules.
        let builtIn = try #require(catalog.flow(named: "webViewDemo"))
        #expect(
            catalog.fields(ofForm: catalog.formKey("registrationForm", in: builtIn)).first { $0.name == "newPassword" }?.minLength
                == 8)
        #expect(!catalog.pageFlows.isEmpty && catalog.pageFlows.allSatisfy { !$0.isImported })
        #expect(catalog.pageFlow(for: flow).name == "webViewDemo")
    }

    @Test func whatTheServiceCannotHonourIsRefusedByFieldAndReason() throws {
        var document = try document()
        var fields = try #require(document["fields"] as? [String: Any])
        fields["birthdate"] = [
            "element": "capture", "type": "dateselect", "label": "x", "schemaId": "birthday",
            "validation": [["rule": "minYears", "value": 13, "message": "x"]],
        ]
        fields["shoeSize"] = ["element": "input", "type": "text", "label": "x", "schemaId": "shoe.size"]
        document["fields"] = fields
        var forms = try #require(document["forms"] as? [String: Any])
        forms["surveyForm"] = ["fields": ["shoeSize"]]
        document["forms"] = forms
        let data = try JSONSerialization.data(withJSONObject: document)
        let refused = #expect(throws: JanrainFlowImport.Refused.self) {
            try JanrainFlowImport.flow(named: "fernway", from: data, schema: schema())
        }
        let keys = Set(refused?.problems.map(\.key) ?? [])
        #expect(keys == ["fields.birthdate", "fields.shoeSize", "forms.surveyForm"], "\(refused?.problems ?? [])")
        #expect(refused?.description.contains("'minYears' (13)") == true)
        #expect(refused?.description.contains("schemaId 'shoe.size'") == true)
        #expect(throws: JanrainFlowImport.Refused.self) {
            try JanrainFlowImport.flow(named: "x", from: Data("[1, 2]".utf8), schema: schema())
        }
    }

    @Test func anExportedFlowImportsBackAsTheSameFlow() throws {
        let first = try JanrainFlowImport.flow(named: "fernway", from: Data(contentsOf: Self.fixture), schema: schema())
        let catalog = try catalog(with: first)
        let exported = JanrainFlowExport.document(of: try #require(catalog.flow(named: "fernway")), catalog: catalog)
        let again = try JanrainFlowImport.flow(named: "fernway", from: exported.encoded(), schema: schema())
        #expect(again.forms == first.forms && again.imported?.forms == first.imported?.forms)
        #expect(again.imported?.fields == first.imported?.fields)
        #expect(again.imported?.buttons == first.imported?.buttons)
        #expect(again.imported?.texts(for: "de-DE")["field.displayName.label"] == "Wandername")
        // A built-in flow exports too: Janrain's document for the standard experience, every locale's texts.
        let standard = JanrainFlowExport.document(of: try #require(catalog.flow(named: "standard")), catalog: catalog)
        let builtIn = try JanrainFlowImport.flow(named: "standardCopy", from: standard.encoded(), schema: schema())
        #expect(builtIn.imported?.forms["signInForm"] == ["signInEmailAddress", "currentPassword"])
        #expect(builtIn.imported?.fields["newPassword"]?.minLength == 8)
    }
}
