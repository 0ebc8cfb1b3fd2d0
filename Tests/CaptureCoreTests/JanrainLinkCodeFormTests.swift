import CaptureCore
import CaptureJSON
import CaptureTestSupport
import Foundation
import Testing

/// Janrain's older `newPasswordForm` in a customer's own flow (Tests/Fixtures/janrain-flow-ridgeline.json): the page is
/// told, from JanrainForm's table, that while it holds a mailed link's code the form sets the new password with it
/// (`withLinkCode`), and otherwise changes the signed-in person's. test_janrain_older_flow.py runs both on the page.
@Suite struct JanrainLinkCodeFormTests {
    static let fixture = TestWorld.repositoryRoot.appendingPathComponent("Tests/Fixtures/janrain-flow-ridgeline.json")

    let base = JanrainFlowImportTests()

    func imported() throws -> (FlowCatalog, FlowDefinition) {
        let flow = try JanrainFlowImport.flow(named: "ridgeline", from: Data(contentsOf: Self.fixture), schema: base.schema())
        let catalog = try base.catalog(with: flow)
        return (catalog, try #require(catalog.flow(named: "ridgeline")))
    }

    /// `widgetForms`' entry for `form`, as an object.
    func entry(_ form: String, in forms: [String: JSONValue]) -> [String: JSONValue]? {
        if case .object(let entry)? = forms[form] { return entry }
        return nil
    }

    @Test func theSettingsSayAFlowsOwnNewPasswordFormResetsWithALinksCode() throws {
        let (catalog, flow) = try imported()
        let forms = catalog.widgetForms(of: flow)
        let newPassword = try #require(entry("newPasswordForm", in: forms))
        // Signed in: the password change, through update_profile_native.
        #expect(newPassword["endpoint"]?.stringValue == "/oauth/update_profile_native")
        #expect(newPassword["as"]?.stringValue == "changePasswordForm")
        // With a link's code: the service's resetPasswordForm, at the call that takes the code.
        guard case .object(let linked)? = newPassword["withLinkCode"] else {
            Issue.record("newPasswordForm has no withLinkCode: \(newPassword)")
            return
        }
        #expect(linked == ["as": .string("resetPasswordForm"), "endpoint": .string("/oauth/reset_password_native")])
        // What the table says of the form, not a copy: the role's call is the one its meaning names.
        let table = try #require(JanrainForm.table["newPasswordForm"])
        #expect(linked["as"]?.stringValue == table.withLinkCode)
        #expect(JanrainForm.service(try #require(table.withLinkCode))?.endpoint == .resetPassword)
        // The older password fields keep their meaning: the one named old… is the current password.
        #expect(flow.imported?.fields["oldpassword"]?.attribute == "currentPassword")
        #expect(flow.imported?.fields["newpassword"]?.attribute == "password")
        // No other form of the flow is sent otherwise with a link's code.
        for (name, _) in forms where name != "newPasswordForm" {
            #expect(entry(name, in: forms)?["withLinkCode"] == nil, "\(name)")
        }
    }

    @Test func aFormWithoutThatMeaningCarriesNoLinkRole() throws {
        let (catalog, _) = try imported()
        // The built-in flow has no newPasswordForm of its own (its page's is sent as its forms, widget.json's sentAs).
        let standard = catalog.widgetForms(of: try #require(catalog.flow(named: "standard")))
        for (name, _) in standard { #expect(entry(name, in: standard)?["withLinkCode"] == nil, "\(name)") }
        // The service's own form names resolve to their calls; Janrain's resetPasswordForm is not the service's.
        #expect(JanrainForm.service("resetPasswordForm")?.endpoint == .resetPassword)
        #expect(JanrainForm.service("changePasswordForm")?.endpoint == .updateProfile)
        #expect(JanrainForm.service("newPasswordForm") == nil)
    }
}
