/// What one of Janrain's forms means: the call that serves it, the service's form whose handling the page gives it,
/// and what the call needs of its fields. `JanrainForm.table` is the one place a form name gets its meaning: the
/// page's settings (`widgetForms`), `widget.json` (`widgetFlow`), the import (`JanrainFlowImport`) and the export
/// (`JanrainFlowExport`) all read it, so a form cannot mean one thing to the page and another to the service.
public struct JanrainForm: Sendable, Equatable {
    /// A record attribute a form's call cannot do without: a field of the form must hold it.
    public enum Need: String, Sendable, CaseIterable {
        case address = "email"
        case newPassword = "password"
        case currentPassword = "currentPassword"

        /// How an import refusal names the missing field.
        public var described: String {
            switch self {
            case .address: "an email address field (schemaId 'email')"
            case .newPassword: "a new password field"
            case .currentPassword: "a current password field (a password field named current… or old…)"
            }
        }
    }

    /// Janrain's name of the form.
    public let name: String
    public let endpoint: FormEndpoint
    /// The service's form (of Settings/forms.json) this one is handled as on a page: its events, what its success
    /// shows (capture-forms.js's BEHAVIOUR is keyed by it), and the form a built-in flow sends in its place.
    public let role: String
    public let needs: [Need]
    /// The screen its success opens when not the role's own (Janrain's `resetPasswordRequestCodeSuccess`).
    public let done: String?
    /// The role it is sent as while the page holds a mailed link's code (Janrain's older `newPasswordForm`).
    public let withLinkCode: String?

    init(
        _ name: String, _ endpoint: FormEndpoint, role: String? = nil, needs: [Need] = [], done: String? = nil,
        withLinkCode: String? = nil
    ) {
        self.name = name
        self.endpoint = endpoint
        self.role = role ?? name
        self.needs = needs
        self.done = done
        self.withLinkCode = withLinkCode
    }

    /// Janrain's forms as Janrain's flows defined them (JANRAIN-WIDGET.md). `changePasswordForm` goes through
    /// `update_profile_native` as the SDK samples do. `resetPasswordForm` (on `resetPasswordRequestCode`) asks for the
    /// address again, to mail a new link when a link's code was refused; `changePasswordFormNoAuth` (on
    /// `resetPassword`) sets the new password with the code the link carried. `useVerificationCodeForm` and
    /// `checkResetCodeForm` are the page's own forms for a link's code, not a flow's.
    public static let table: [String: JanrainForm] = Dictionary(
        uniqueKeysWithValues: [
            JanrainForm("signInForm", .signIn),
            // Janrain's older sign-in form (`traditionalSignIn_emailAddress`, `traditionalSignIn_password`).
            JanrainForm("userInformationForm", .signIn),
            // The password sign-in that finishes a merge.
            JanrainForm("tradAuthenticateMergeForm", .signIn, role: "signInForm"),
            JanrainForm("registrationForm", .register),
            JanrainForm("socialRegistrationForm", .registerWithProvider),
            JanrainForm("editProfileForm", .updateProfile),
            // Parts of the profile.
            JanrainForm("editPersonalForm", .updateProfile, role: "editProfileForm"),
            JanrainForm("editContactForm", .updateProfile, role: "editProfileForm"),
            JanrainForm("changePasswordForm", .updateProfile, needs: [.newPassword]),
            // Janrain's older form: the signed-in person's new password, or on a link's page the reset.
            JanrainForm(
                "newPasswordForm", .updateProfile, role: "changePasswordForm", needs: [.newPassword],
                withLinkCode: "resetPasswordForm"),
            // The older generation's password change on the profile page.
            JanrainForm("newPasswordFormProfile", .updateProfile, role: "changePasswordForm", needs: [.newPassword]),
            JanrainForm("forgotPasswordForm", .forgotPassword, needs: [.address]),
            JanrainForm(
                "resetPasswordForm", .forgotPassword, role: "forgotPasswordForm", needs: [.address],
                done: "resetPasswordRequestCodeSuccess"),
            JanrainForm("resetPasswordRequestForm", .forgotPassword, role: "forgotPasswordForm", needs: [.address]),
            JanrainForm("changePasswordFormNoAuth", .resetPassword, role: "resetPasswordForm", needs: [.newPassword]),
            JanrainForm("resendVerificationForm", .requestVerification, needs: [.address]),
            JanrainForm("deactivateAccountForm", .deactivateAccount, needs: [.currentPassword]),
            JanrainForm("useVerificationCodeForm", .useVerificationCode),
            JanrainForm("checkResetCodeForm", .checkResetCode),
        ].map { ($0.name, $0) })

    /// The service's own `resetPasswordForm` (SPEC §2, Settings/forms.json, jump.ios and jump.android): the new
    /// password with a mailed code. Janrain calls that form `changePasswordFormNoAuth`, which is what an export
    /// writes.
    public static let serviceResetPassword = JanrainForm(
        "resetPasswordForm", .resetPassword, needs: [.newPassword])

    /// The service's own form `role` (what a form is handled as: its `role` or `withLinkCode`), for the call that
    /// serves it: `resetPasswordForm` is the service's (the new password with a mailed code), not Janrain's.
    public static func service(_ role: String) -> JanrainForm? {
        role == serviceResetPassword.name ? serviceResetPassword : table[role].flatMap { $0.role == role ? $0 : nil }
    }

    /// The pages' own forms (not a flow's), sent with every flow's settings.
    static let pageForms = ["useVerificationCodeForm", "checkResetCodeForm"]

    /// What the form `name` means in a flow whose form of that name has `fields`. The one name both meanings share
    /// is told apart by what it asks: a `resetPasswordForm` with a new password and no address is the service's
    /// (set the password), any other is Janrain's (mail a new link).
    public static func meaning(of name: String, fields: [FieldDefinition]) -> JanrainForm? {
        if name == serviceResetPassword.name, fields.contains(where: { $0.attribute == Need.newPassword.rawValue }),
            !fields.contains(where: { $0.attribute == Need.address.rawValue })
        {
            return serviceResetPassword
        }
        return table[name]
    }

    /// Janrain's name for this meaning (what an export writes).
    public var janrainName: String { self == Self.serviceResetPassword ? "changePasswordFormNoAuth" : name }

    /// The needs of this form that `fields` leave unmet.
    public func unmet(by fields: [FieldDefinition]) -> [Need] {
        needs.filter { need in !fields.contains { $0.attribute == need.rawValue } }
    }
}
