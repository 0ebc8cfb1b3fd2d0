import CaptureJSON

/// The Capture API call each of the widget's forms is sent to. The routes are registered at these paths and the
/// pages are told them (`janrain.settings.capture.forms`, docs/contract.md §2), so a path is written once.
public enum FormEndpoint: String, Sendable, CaseIterable {
    case signIn = "/oauth/auth_native_traditional"
    case register = "/oauth/register_native_traditional"
    case updateProfile = "/oauth/update_profile_native"
    /// A first social sign-in whose provider profile was not enough (310): the form, with the one-time token.
    case registerWithProvider = "/oauth/register_native"
    case forgotPassword = "/oauth/forgot_password_native"
    case resetPassword = "/oauth/reset_password_native"
    case requestVerification = "/oauth/verify_email_native"
    case useVerificationCode = "/access/useVerificationCode"
    /// Whether a reset link's code is still good, checked when its screen shows (not spent).
    case checkResetCode = "/access/checkResetCode"
    /// The signed-in person deletes their account (deactivated now, erased after the grace period).
    case deactivateAccount = "/oauth/deactivate_account"

    public var path: String { rawValue }

    /// Set when the call takes only these parameters (no flow context, no form fields): anything else is refused.
    public var parameters: [String]? {
        self == .useVerificationCode || self == .checkResetCode
            ? ["verification_code", "email", "client_id", "locale", "flow"] : nil
    }
}

extension FlowCatalog {
    /// What `form` of `flow` means (JanrainForm): the call that serves it and what that call needs.
    public func meaning(ofForm form: String, in flow: FlowDefinition) -> JanrainForm? {
        JanrainForm.meaning(of: form, fields: fields(ofForm: formKey(form, in: flow)))
    }

    /// What the widget needs of each form `flow` may submit (and of the page's own code forms): the call it posts
    /// to (JanrainForm: what the form means), the service's form it is handled as when not its own name (`as`), what
    /// it is handled as and sent to while the page holds a mailed link's code (`withLinkCode`), and
    /// the record attribute behind each field (field name → schema path, for fields that read and write one). Forms
    /// without a call are left out.
    public func widgetForms(of flow: FlowDefinition) -> [String: JSONValue] {
        var forms: [String: JSONValue] = [:]
        for form in flow.forms + JanrainForm.pageForms {
            guard let meaning = self.meaning(ofForm: form, in: flow) else { continue }
            var attributes: [String: JSONValue] = [:]
            for field in fields(ofForm: formKey(form, in: flow)) {
                if let path = field.recordPath { attributes[field.name] = .string(path.description) }
            }
            var entry: [String: JSONValue] = [
                "endpoint": .string(meaning.endpoint.path), "attributes": .object(attributes),
            ]
            if meaning.role != form { entry["as"] = .string(meaning.role) }
            // A form sent otherwise while the page holds a mailed link's code (an imported flow's own newPasswordForm
            // sets the new password with it): the role and the call then, so the page needs no table of its own.
            if let linked = meaning.withLinkCode, let service = JanrainForm.service(linked) {
                entry["withLinkCode"] = ["as": .string(linked), "endpoint": .string(service.endpoint.path)]
            }
            if let parameters = meaning.endpoint.parameters { entry["parameters"] = .array(parameters.map(JSONValue.string)) }
            forms[form] = .object(entry)
        }
        return forms
    }
}
