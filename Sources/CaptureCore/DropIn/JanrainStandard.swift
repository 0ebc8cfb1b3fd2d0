/// What Janrain's standard experience names, which customers' pages refer to without a flow of their own: the
/// screens the widget looks for in a page, and the buttons and data tags its flows defined.
public enum JanrainStandard {
    /// The screens a page may hold (`<div id="signIn">`); the widget renders those the page has.
    public static let screens = [
        "signIn", "returnSocial", "returnTraditional", "traditionalRegistration", "socialRegistration",
        "forgotPassword", "forgotPasswordSuccess", "mergeAccounts", "traditionalAuthenticateMerge",
        "resendVerificationSuccess", "verifyEmail", "verifyEmailSuccess", "resetPassword", "resetPasswordRequestCode",
        "resetPasswordRequestCodeSuccess", "resetPasswordSuccess", "changePassword", "editProfile", "signedIn",
        "editProfileLanding", "linkedAccounts", "editAccountInfo", "editPersonalInfo", "editContactInfo",
        "editPassword", "newPasswordSuccess", "socialMobileRegistration", "registrationNewVerification",
        "emailVerificationNotification", "emailVerificationRequired", "editProfileModal",
    ]

    /// The first screen of a page that names none.
    public static let defaultScreen = "signIn"

    /// Data tags of Janrain's flows (`{* emailAddressData *}`) → the record attribute they show.
    public static let dataTags = ["emailAddressData": "email", "displayNameData": "displayName", "welcomeName": "displayName"]

    /// Submit buttons of Janrain's flows (`{* signInButton *}`, both generations) → the catalog text that labels them.
    public static let buttons = [
        "signInButton": "signIn.submit", "traditionalSignIn_signInButton": "signIn.submit",
        "createAccountButton": "traditionalRegistration.submit", "saveButton": "editProfile.submit",
        "sendButton": "forgotPassword.submit", "forgotPassword_sendButton": "forgotPassword.submit",
        "submitButton": "widget.submit", "changePasswordButton": "changePassword.submit",
    ]

    /// Buttons of Janrain's flows that open a screen → (the screen, the catalog text that labels them).
    public static let screenButtons = ["traditionalSignIn_createButton": ("traditionalRegistration", "signIn.createAccount")]

    /// Janrain's other field names → the service's field for the same thing, used where a form has only the
    /// service's name: the older generation's (`traditionalSignIn_*`, `traditionalRegistration_*`,
    /// `socialRegistration_*`, `newpassword`), and the web-view profile flow's `edit_*`.
    public static let fieldAliases: [String: String] = {
        var aliases = [
            "traditionalSignIn_emailAddress": "signInEmailAddress", "traditionalSignIn_password": "currentPassword",
            "newpassword": "newPassword", "newpasswordConfirm": "newPasswordConfirm", "oldpassword": "currentPassword",
            "traditionalRegistration_password": "newPassword",
            "traditionalRegistration_passwordConfirm": "newPasswordConfirm", "email": "emailAddress",
            "edit_email": "emailAddress", "mergePassword": "currentPassword",
        ]
        for field in ["emailAddress", "displayName", "firstName", "lastName"] {
            aliases["traditionalRegistration_\(field)"] = field
            aliases["socialRegistration_\(field)"] = field
        }
        for field in ["displayName", "firstName", "lastName", "phone", "birthdate"] { aliases["edit_\(field)"] = field }
        return aliases
    }()

    /// Screens for a signed-in person, in the order a page without the flow's own first one falls back to them.
    public static let sessionScreens = [
        "editProfile", "editProfileLanding", "signedIn", "editAccountInfo", "editPersonalInfo", "editContactInfo",
        "linkedAccounts", "editPassword", "changePassword",
    ]
}
