import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// Janrain's form names mean what they meant on Janrain (JanrainForm), in an imported flow that defines Janrain's reset
/// forms itself (Tests/Fixtures/janrain-flow-trailhead.json) as in the built-in one; a form lacking what its call
/// needs is refused at import; and a Janrain document exported after its import is the document imported.
@Suite struct JanrainFormTableTests {
    static let fixture = TestWorld.repositoryRoot.appendingPathComponent("Tests/Fixtures/janrain-flow-trailhead.json")

    /// The import tests' Settings: the schema, and a copy of the shipped Settings with a flow added.
    let base = JanrainFlowImportTests()

    func schema() throws -> EntitySchema { try base.schema() }

    func catalog(with flow: FlowDefinition) throws -> FlowCatalog { try base.catalog(with: flow) }

    func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any])
    }

    func imported() throws -> (FlowCatalog, FlowDefinition) {
        let flow = try JanrainFlowImport.flow(named: "trailhead", from: Data(contentsOf: Self.fixture), schema: schema())
        let catalog = try catalog(with: flow)
        return (catalog, try #require(catalog.flow(named: "trailhead")))
    }

    /// `widgetForms`' entry for `form`: (endpoint, as).
    func call(_ form: String, in forms: [String: JSONValue]) -> (String?, String?) {
        guard case .object(let entry)? = forms[form] else { return (nil, nil) }
        return (entry["endpoint"]?.stringValue, entry["as"]?.stringValue)
    }

    @Test func anImportedFlowsResetFormsGoToTheCallsJanrainsMeaningNeeds() throws {
        let (catalog, flow) = try imported()
        let forms = catalog.widgetForms(of: flow)
        #expect(call("changePasswordFormNoAuth", in: forms) == ("/oauth/reset_password_native", "resetPasswordForm"))
        #expect(call("resetPasswordForm", in: forms) == ("/oauth/forgot_password_native", "forgotPasswordForm"))
        #expect(call("forgotPasswordForm", in: forms) == ("/oauth/forgot_password_native", nil))
        #expect(call("deactivateAccountForm", in: forms) == ("/oauth/deactivate_account", nil))
        #expect(call("checkResetCodeForm", in: forms) == ("/access/checkResetCode", nil))
        // The deletion's password is the one typed to prove who one is, whatever the flow calls it.
        #expect(flow.imported?.fields["password_deactivateAccount"]?.attribute == "currentPassword")
        #expect(flow.imported?.fields["newPassword_resetPassword"]?.attribute == "password")

        // widget.json: the flow's own forms stand under their names; the request form's success is Janrain's screen.
        guard case .object(let page) = catalog.widgetFlow(flow, messages: catalog.localization.messages(for: "en-US")),
            case .object(let entries)? = page["forms"],
            case .object(let request)? = entries["resetPasswordForm"],
            case .object(let setPassword)? = entries["changePasswordFormNoAuth"]
        else { Issue.record("widget.json has no reset forms"); return }
        #expect(request["sentAs"] == nil && request["done"]?.stringValue == "resetPasswordRequestCodeSuccess")
        #expect(request["fields"] == ["emailAddress_requestCode"].map(JSONValue.string).asArray)
        #expect(setPassword["sentAs"] == nil)
        // Janrain's older resetPasswordRequestForm, which the flow lacks, is sent as its form of that meaning.
        guard case .object(let older)? = entries["resetPasswordRequestForm"] else {
            Issue.record("no resetPasswordRequestForm")
            return
        }
        #expect(older["sentAs"]?.stringValue == "forgotPasswordForm")
    }

    @Test func theBuiltInFlowKeepsTheServicesResetFormAndSendsJanrainsNamesAsIts() throws {
        let (catalog, _) = try imported()
        let standard = try #require(catalog.flow(named: "standard"))
        let forms = catalog.widgetForms(of: standard)
        // SPEC §2: the service's resetPasswordForm (new password) serves jump.ios, jump.android and its own pages.
        #expect(call("resetPasswordForm", in: forms) == ("/oauth/reset_password_native", nil))
        #expect(call("changePasswordForm", in: forms) == ("/oauth/update_profile_native", nil))
        guard case .object(let page) = catalog.widgetFlow(standard, messages: catalog.localization.messages(for: "en-US")),
            case .object(let entries)? = page["forms"]
        else { Issue.record("no widget.json"); return }
        func sentAs(_ form: String) -> String? {
            if case .object(let entry)? = entries[form] { return entry["sentAs"]?.stringValue }
            return nil
        }
        #expect(sentAs("resetPasswordForm") == "forgotPasswordForm")
        #expect(sentAs("changePasswordFormNoAuth") == "resetPasswordForm")
        #expect(sentAs("tradAuthenticateMergeForm") == "signInForm")
        #expect(sentAs("editPersonalForm") == "editProfileForm")
    }

    @Test func theMeaningOfResetPasswordFormFollowsWhatItAsks() throws {
        let (_, flow) = try imported()
        let address = try #require(flow.imported?.fields["emailAddress_requestCode"])
        let password = try #require(flow.imported?.fields["newPassword_resetPassword"])
        #expect(JanrainForm.meaning(of: "resetPasswordForm", fields: [password])?.endpoint == .resetPassword)
        #expect(JanrainForm.meaning(of: "resetPasswordForm", fields: [address])?.endpoint == .forgotPassword)
        #expect(JanrainForm.meaning(of: "resetPasswordForm", fields: [password])?.janrainName == "changePasswordFormNoAuth")
        #expect(JanrainForm.meaning(of: "changePasswordFormNoAuth", fields: [address])?.unmet(by: [address]) == [.newPassword])
        #expect(JanrainForm.meaning(of: "somethingElse", fields: []) == nil)
    }

    /// The fixture with `form`'s fields replaced by `fields`, imported: the problems named.
    func problems(_ form: String, fields: [String]) throws -> [String] {
        var document = try document()
        var forms = try #require(document["forms"] as? [String: Any])
        forms[form] = ["fields": fields]
        document["forms"] = forms
        do {
            _ = try JanrainFlowImport.flow(
                named: "trailhead", from: JSONSerialization.data(withJSONObject: document), schema: schema())
            return []
        } catch let refused as JanrainFlowImport.Refused {
            return refused.problems.map(\.description)
        }
    }

    @Test func aFormLackingWhatItsCallNeedsIsRefusedByFormAndField() throws {
        #expect(
            try problems("deactivateAccountForm", fields: []) == [
                "forms.deactivateAccountForm: lacks a current password field (a password field named current… or old…), "
                    + "which /oauth/deactivate_account needs to serve it"
            ])
        #expect(
            try problems("changePasswordFormNoAuth", fields: ["emailAddress_requestCode"]) == [
                "forms.changePasswordFormNoAuth: lacks a new password field, which /oauth/reset_password_native needs to serve it"
            ])
        #expect(
            try problems("resetPasswordForm", fields: ["trailheadSendButton"]) == [
                "forms.resetPasswordForm: lacks an email address field (schemaId 'email'), "
                    + "which /oauth/forgot_password_native needs to serve it"
            ])
        #expect(try problems("forgotPasswordForm", fields: ["signInEmailAddress"]).isEmpty)
    }

    /// The reason of an invalid-argument refusal, else "".
    func refusal(_ error: any Error) -> String {
        if case .invalidArgument(_, let reason)? = error as? CaptureError { return reason }
        return ""
    }

    @Test func theCaptureAPISaysWhichCallServesAFormSentToAnother() async throws {
        let flow = try JanrainFlowImport.flow(named: "trailhead", from: Data(contentsOf: Self.fixture), schema: schema())
        let world = try await TestWorld.make(settingsDirectory: try base.settings(with: flow))
        let email = "reset-\(UUID().uuidString.prefix(8))@example.com"
        try await world.register(email)
        func request(_ form: String, _ fields: [String: String]) -> FlowRequest {
            FlowRequest(
                parameters: TestWorld.flowParameters(form: form, flow: "trailhead").merging(fields) { _, new in new })
        }
        // The flow's resetPasswordForm asks for the address: it mails a new link, and the reset call refuses it
        // saying where it goes.
        try await world.service.recovery.requestPasswordReset(request("resetPasswordForm", ["emailAddress_requestCode": email]))
        await #expect {
            _ = try await world.service.recovery.resetPassword(
                request("resetPasswordForm", ["emailAddress_requestCode": email]), code: "K7QD-3MXP", email: email)
        } throws: { error in
            refusal(error).hasSuffix("is not a reset form (flow 'trailhead' sends it to /oauth/forgot_password_native)")
        }
        // changePasswordFormNoAuth at the call that mails a link: refused, naming its own call.
        await #expect {
            try await world.service.recovery.requestPasswordReset(
                request(
                    "changePasswordFormNoAuth",
                    [
                        "newPassword_resetPassword": "ten chars or more", "newPasswordConfirm_resetPassword": "ten chars or more",
                    ]))
        } throws: { error in
            refusal(error).hasSuffix("has no email address field (flow 'trailhead' sends it to /oauth/reset_password_native)")
        }
    }

    @Test func aFlowsDeactivationFormWithItsOwnPasswordFieldDeletesTheAccount() async throws {
        let flow = try JanrainFlowImport.flow(named: "trailhead", from: Data(contentsOf: Self.fixture), schema: schema())
        let world = try await TestWorld.make(settingsDirectory: try base.settings(with: flow))
        let email = "delete-\(UUID().uuidString.prefix(8))@example.com"
        let token = try #require(try await world.register(email).grant?.accessToken)
        func deletion(_ password: String) -> FlowRequest {
            FlowRequest(
                parameters: TestWorld.flowParameters(form: "deactivateAccountForm", flow: "trailhead").merging([
                    "access_token": token, "password_deactivateAccount": password,
                ]) { _, new in new })
        }
        // The flow calls its current password password_deactivateAccount: it is checked as the current password.
        await #expect(throws: CaptureError.self) {
            _ = try await world.service.privacy.deactivateAccount(deletion("not it at all"))
        }
        _ = try await world.service.privacy.deactivateAccount(deletion("correct horse battery"))
        #expect(try await world.service.store.users.find(email: email)?.deleteRequestedAt != nil)
    }

    /// `document` with every text key replaced by its text in each locale (a locale lacking one has the flow's first
    /// locale's), and what the import does not read left out, so two documents saying the same compare equal.
    func resolved(_ document: JSONValue) throws -> JSONValue {
        guard case .object(let top) = document, case .object(let translations)? = top["translations"] else {
            Issue.record("not a document")
            return document
        }
        let tables = translations.mapValues { value -> [String: String] in
            guard case .object(let table) = value else { return [:] }
            return table.compactMapValues(\.stringValue)
        }
        let locales = tables.keys.sorted()
        func text(_ key: JSONValue?) -> JSONValue? {
            guard let key = key?.stringValue else { return key }
            return .object(
                Dictionary(
                    uniqueKeysWithValues: locales.map { ($0, JSONValue.string(tables[$0]?[key] ?? tables["en-US"]?[key] ?? key)) }
                ))
        }
        var fields: [String: JSONValue] = [:]
        if case .object(let all)? = top["fields"] {
            for (name, value) in all {
                guard case .object(var field) = value else { continue }
                for key in ["label", "placeholder", "tip"] where field[key] != nil { field[key] = text(field[key]) }
                if case .array(let rules)? = field["validation"] {
                    field["validation"] = .array(
                        rules.map {
                            guard case .object(var rule) = $0 else { return $0 }
                            rule["message"] = text(rule["message"])
                            return .object(rule)
                        })
                }
                if case .array(let options)? = field["options"] {
                    field["options"] = .array(
                        options.map {
                            guard case .object(var option) = $0 else { return $0 }
                            option["text"] = text(option["text"])
                            return .object(option)
                        })
                }
                fields[name] = .object(field)
            }
        }
        var result = top
        result["fields"] = .object(fields)
        result["translations"] = .array(locales.map(JSONValue.string))
        return .object(result)
    }

    @Test func aJanrainDocumentExportedAfterItsImportIsTheDocumentImported() throws {
        let (catalog, flow) = try imported()
        let original = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: Self.fixture))
        let exported = JanrainFlowExport.document(of: flow, catalog: catalog)
        #expect(try resolved(exported) == resolved(original))
        // The texts that are no field's (the page's text tags) come back under their own keys.
        guard case .object(let top) = exported, case .object(let translations)? = top["translations"],
            case .object(let french)? = translations["fr-CA"]
        else { Issue.record("no translations"); return }
        #expect(french["textTrailheadWelcome"]?.stringValue == "Bon retour chez Trailhead Outfitters")
        // A button's label in each locale, on the page as in the document.
        let messages = catalog.localization.messages(for: "fr-CA").overlaid(with: flow.imported?.texts(for: "fr-CA") ?? [:])
        guard case .object(let page) = catalog.widgetFlow(flow, messages: messages),
            case .object(let pageFields)? = page["fields"], case .object(let button)? = pageFields["trailheadSignInButton"]
        else { Issue.record("no button on the page"); return }
        #expect(button["label"]?.stringValue == "Connexion")
        // And the export imports back as the same flow.
        let again = try JanrainFlowImport.flow(named: "trailhead", from: exported.encoded(), schema: schema())
        #expect(again.forms == flow.forms && again.imported?.fields == flow.imported?.fields)
    }

    /// What the service does not read of a Janrain document (its `i18nStrings`, `mails`, a form's `action`) comes back
    /// in the export as it was, so a document makes the round trip whole.
    @Test func whatTheServiceDoesNotReadComesBackAsItWas() throws {
        var document = try document()
        document["i18nStrings"] = ["en-US": ["welcomeBack": "Welcome back, {name}"]]
        document["mails"] = ["resetPassword": ["subject": "resetSubject", "template": "reset.html"]]
        var forms = try #require(document["forms"] as? [String: Any])
        var signIn = try #require(forms["signInForm"] as? [String: Any])
        signIn["action"] = "traditionalSignin"
        forms["signInForm"] = signIn
        document["forms"] = forms
        let data = try JSONSerialization.data(withJSONObject: document)
        let flow = try JanrainFlowImport.flow(named: "trailhead", from: data, schema: schema())
        let catalog = try catalog(with: flow)
        let exported = JanrainFlowExport.document(of: try #require(catalog.flow(named: "trailhead")), catalog: catalog)
        let original = try JSONDecoder().decode(JSONValue.self, from: data)
        guard case .object(let top) = exported, case .object(let before) = original else {
            Issue.record("no document")
            return
        }
        #expect(top["i18nStrings"] == before["i18nStrings"] && top["mails"] == before["mails"])
        guard case .object(let exportedForms)? = top["forms"], case .object(let form)? = exportedForms["signInForm"] else {
            Issue.record("no signInForm")
            return
        }
        #expect(form["action"] == .string("traditionalSignin"))
        #expect(try resolved(exported) == resolved(original))
    }

    @Test func theBuiltInFlowExportsUnderJanrainsNames() throws {
        let (catalog, _) = try imported()
        let exported = JanrainFlowExport.document(of: try #require(catalog.flow(named: "standard")), catalog: catalog)
        guard case .object(let top) = exported, case .object(let forms)? = top["forms"] else {
            Issue.record("no forms")
            return
        }
        func fields(_ form: String) -> JSONValue? {
            if case .object(let entry)? = forms[form] { return entry["fields"] }
            return nil
        }
        // The service's resetPasswordForm sets the password: Janrain's changePasswordFormNoAuth. Janrain's
        // resetPasswordForm asks for the address, which the built-in flow serves with forgotPasswordForm.
        #expect(fields("changePasswordFormNoAuth") == ["newPassword", "newPasswordConfirm"].map(JSONValue.string).asArray)
        #expect(fields("resetPasswordForm") == fields("forgotPasswordForm") && fields("resetPasswordForm") != nil)
        let back = try JanrainFlowImport.flow(named: "standardCopy", from: exported.encoded(), schema: schema())
        let copy = try self.catalog(with: back)
        let forms2 = copy.widgetForms(of: try #require(copy.flow(named: "standardCopy")))
        #expect(call("changePasswordFormNoAuth", in: forms2).0 == "/oauth/reset_password_native")
        #expect(call("resetPasswordForm", in: forms2).0 == "/oauth/forgot_password_native")
    }
}

extension Array where Element == JSONValue {
    fileprivate var asArray: JSONValue { .array(self) }
}
