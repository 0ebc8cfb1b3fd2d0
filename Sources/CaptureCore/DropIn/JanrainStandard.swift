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

    /// Forms a Janrain page holds that the service knows under another name → the service's form they are sent as,
    /// and the screen their success opens when it is not that form's own. Janrain's `resetPasswordForm` (on
    /// `resetPasswordRequestCode`) asks for a new reset mail, where the service's sets the new password; Janrain's
    /// `changePasswordFormNoAuth` and its older `newPasswordForm` set the new password a mailed link allows.
    public static let pageForms: [String: (sentAs: String, done: String?)] = [
        "resetPasswordForm": ("forgotPasswordForm", "resetPasswordRequestCodeSuccess"),
        "changePasswordFormNoAuth": ("resetPasswordForm", nil),
        "newPasswordForm": ("resetPasswordForm", nil),
    ]

    /// Janrain's older field names → the service's field for the same thing, used where a form has only the
    /// service's name (the older generation's forgot-password form asks for `traditionalSignIn_emailAddress`).
    public static let fieldAliases = [
        "traditionalSignIn_emailAddress": "signInEmailAddress", "traditionalSignIn_password": "currentPassword",
        "newpassword": "newPassword", "newpasswordConfirm": "newPasswordConfirm", "oldpassword": "currentPassword",
    ]
}
