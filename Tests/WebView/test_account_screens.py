"""The account-lifecycle screens without mail (docs/contract.md §2): where people find them, what a message's link
does to the page, the field errors, and 375-px snapshots of each screen for a human to look at."""


from conftest import PASSWORD, SHOTS, new_email
from test_screenshots import LAYOUT_CHECK
from test_session import field_messages, visible_text


# The screens each page holds (webViewProfile offers sign-in and recovery while signed out).
PAGE_SCREENS = {
    "webViewSignIn": ["twoFactor", "forgotPassword", "forgotPasswordSuccess", "resetPassword", "resetPasswordSuccess",
                      "verifyEmail", "verifyEmailSuccess", "resendVerificationSuccess", "reactivateAccount"],
    "webViewProfile": ["twoFactor", "forgotPassword", "forgotPasswordSuccess", "resetPassword", "resetPasswordSuccess",
                       "verifyEmail", "verifyEmailSuccess", "resendVerificationSuccess",
                       "changePassword", "newPasswordSuccess", "confirmAccountDeactivation", "accountDeactivated",
                       "reactivateAccount"],
    "webViewDemo": ["twoFactor", "forgotPassword", "forgotPasswordSuccess", "resetPassword", "resetPasswordSuccess",
                    "verifyEmail", "verifyEmailSuccess", "resendVerificationSuccess",
                    "changePassword", "newPasswordSuccess", "confirmAccountDeactivation", "accountDeactivated",
                    "reactivateAccount"],
}

FORM_OF_SCREEN = {
    "forgotPassword": "forgotPasswordForm", "resetPassword": "resetPasswordForm",
    "changePassword": "changePasswordForm", "confirmAccountDeactivation": "deactivateAccountForm",
    "reactivateAccount": "signInForm",
}

CODE_INPUT = """(function(screen){
    var i = document.querySelector('#' + screen + ' input[name=verification_code]');
    var label = i && document.querySelector('label[for="' + i.id + '"]');
    var box = i && i.getBoundingClientRect();
    return i && {autocomplete: i.getAttribute('autocomplete'), autocapitalize: i.getAttribute('autocapitalize'),
                 inputmode: i.getAttribute('inputmode'), label: label && label.textContent,
                 height: Math.max(box.height, parseFloat(getComputedStyle(i).minHeight)),
                 form: i.form && i.form.getAttribute('data-capture-form'), value: i.value,
                 email: i.form && i.form.elements.email && i.form.elements.email.value};
})(%r)"""


def blur(host):
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")


def focused_heading(host):
    return host.run_js("document.activeElement && document.activeElement.id")


def test_every_page_holds_its_screens_with_spec_forms_and_named_fields(server, host):
    for page, names in PAGE_SCREENS.items():
        host.load(server.page(page))
        host.wait_for_event("onCaptureRenderComplete")
        for name in names:
            assert host.run_js("!!document.querySelector('section.capture_screen#%s h1[tabindex=\"-1\"]')" % name), (
                page, name)
        for screen, form in FORM_OF_SCREEN.items():
            if screen in names:
                assert host.run_js("document.querySelector('#%s form').getAttribute('name')" % screen) == form
        for screen in ("resetPassword", "verifyEmail"):
            code = host.run_js(CODE_INPUT % screen)
            assert code["autocomplete"] == "one-time-code" and code["autocapitalize"] == "characters", code
            assert code["label"] == "Code" and code["height"] >= 44, code
        assert host.run_js("document.querySelector('#verifyEmail form[name=resendVerificationForm] "
                           "[name=emailAddress]') !== null")
        if "changePassword" in names:
            labels = host.run_js("(function(){var f=document.forms.changePasswordForm, o=[];"
                                 "for (var i=0;i<f.elements.length;i++){var e=f.elements[i];"
                                 "if(e.name)o.push(document.querySelector('label[for=\"'+e.id+'\"]').textContent);}"
                                 "return o;})()")
            assert labels == ["Current password", "New password", "Confirm new password"], labels


def test_forgot_password_is_offered_on_sign_in_and_carries_the_address(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    email = new_email()
    host.run_js("(document.querySelector('#signIn [name=signInEmailAddress]').value = %r, true)" % email)
    queue_mark, message_mark = host.mark()
    host.click('#signIn [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    shown = host.wait_for_event("onCaptureScreenShow", after=queue_mark).result
    assert shown["screen"] == "forgotPassword" and shown["flow"] == "webViewSignIn"
    assert host.wait_for_event("onCaptureScreenShow", "message", after=message_mark).result["screen"] == "forgotPassword"
    assert host.run_js("document.querySelector('#forgotPassword [name=signInEmailAddress]').value") == email
    assert focused_heading(host) == "forgotPassword_title", "focus moves to the new screen's heading"

    # On returnTraditional too, with the remembered address.
    host.run_js("(localStorage.setItem('janrainLastEmail', %r), true)" % email)
    host.reload()
    host.wait_for_screen("returnTraditional")
    host.click('#returnTraditional [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    assert host.run_js("document.querySelector('#forgotPassword [name=signInEmailAddress]').value") == email
    host.click('#forgotPassword [data-capture-action="signIn"]')
    host.wait_for_screen("returnTraditional")


def test_a_wrong_password_and_an_address_in_use_lead_to_a_reset(server, host):
    email, _ = server.register()
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    queue_mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": "not it"})
    host.wait_for_event("onCaptureLoginFailed", after=queue_mark)
    message = host.wait_for(lambda: visible_text(host, "#signIn .capture_form_error"), 5, "the error")
    assert "Reset your password" in message
    assert host.run_js("document.querySelector('#signIn .capture_form_error').getAttribute('role')") == "alert"
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "signIn-wrong-password.png")
    host.click('#signIn .capture_form_error [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    assert host.run_js("document.querySelector('#forgotPassword [name=signInEmailAddress]').value") == email

    # Registration with an address in use: the field says so, and offers sign-in (where the reset is).
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.wait_for_screen("traditionalRegistration")
    queue_mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Again", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    host.wait_for_event("onCaptureRegistrationFailed", after=queue_mark)
    assert "in use" in field_messages(host, "traditionalRegistration")["emailAddress"]
    action = '#traditionalRegistration .capture_field_action [data-capture-screen="signIn"]'
    assert host.run_js("document.querySelector(%r).textContent" % action) == "Sign in or reset your password"
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "traditionalRegistration-in-use.png")
    host.click(action)
    host.wait_for_screen("signIn")
    assert host.run_js("document.querySelector('#signIn [name=signInEmailAddress]').value") == email
    # The way forward is not left behind for the next attempt.
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    assert host.run_js("document.querySelectorAll('#traditionalRegistration .capture_field_action').length") == 0


def test_a_link_opens_its_screen_filled_in_and_leaves_no_trace_in_the_url(server, host):
    for page in ("webViewSignIn", "webViewProfile", "webViewDemo"):
        email = "link+%s@example.com" % page.lower()
        url = server.page(page)
        start = len(host.queue_events)
        host.load(url + "#screen=resetPassword&code=K7QD-3MXP&email=" + email.replace("@", "%40").replace("+", "%2B"))
        host.wait_for_event("onCaptureRenderComplete")
        host.settle()
        assert host.visible_screen() == ["resetPassword"], page
        code = host.run_js(CODE_INPUT % "resetPassword")
        assert (code["value"], code["email"]) == ("K7QD-3MXP", email), (page, code)
        assert host.run_js("location.href") == url, "the fragment is gone: %s" % page
        assert "K7QD" not in host.run_js("location.hash + JSON.stringify(history.state)")
        shown = [e.result["screen"] for e in host.queue_events[start:] if e.name == "onCaptureScreenShow"]
        assert shown == ["resetPassword"], (page, shown)
        assert host.run_js("janrain.settings.capture.redirectUri") == url

    host.load(server.page("webViewSignIn") + "#screen=verifyEmail&code=ABCD-EFGH&email=v%40example.com")
    host.wait_for_screen("verifyEmail")
    code = host.run_js(CODE_INPUT % "verifyEmail")
    assert (code["value"], code["email"], code["form"]) == ("ABCD-EFGH", "v@example.com", "useVerificationCodeForm")
    assert host.run_js("document.querySelector('#verifyEmail [name=emailAddress]').value") == "v@example.com"

    # A link opened in the web view that already shows the page changes only the fragment: no reload.
    host.run_js("janrain.capture.ui.renderScreen('signIn')")
    host.run_js("(location.hash = 'screen=resetPassword&code=WXYZ-2345&email=h%40example.com', true)")
    host.wait_for_screen("resetPassword")
    assert host.run_js(CODE_INPUT % "resetPassword")["value"] == "WXYZ-2345"
    host.wait_for(lambda: host.run_js("location.hash") == "", 5, "the fragment to go")

    # Only the code screens can be named; anything else starts the page as usual.
    host.load(server.page("webViewDemo") + "#screen=signedIn&code=ABCD-EFGH")
    host.wait_for_screen("signIn")


def test_reset_with_a_wrong_code_shows_the_message_at_the_code(server, host):
    email, _ = server.register()
    host.load(server.page("webViewDemo") + "#screen=resetPassword&code=ZZZZ-ZZZZ&email=" + email)
    host.wait_for_screen("resetPassword")
    queue_mark, message_mark = host.mark()
    host.fill_and_submit("resetPassword", {"newPassword": "a new passphrase", "newPasswordConfirm": "a new passphrase"})
    failed = host.wait_for_event("onCaptureForgotPasswordCodeFailed", after=queue_mark).result
    assert failed["status"] == "error" and failed["code"] == 390 and failed["form"] == "resetPasswordForm"
    assert "verification_code" in failed["invalidFields"]
    assert host.wait_for_event("onCaptureValidationFailed", after=queue_mark).result["transactionId"] == failed["transactionId"]
    host.wait_for_event("onCaptureForgotPasswordCodeFailed", "message", after=message_mark)
    messages = field_messages(host, "resetPassword")
    assert list(messages) == ["verification_code"] and "code" in messages["verification_code"].lower()
    assert host.run_js("document.activeElement.name") == "verification_code", "focus goes to the field to fix"
    assert host.run_js("document.activeElement.getAttribute('aria-invalid')") == "true"
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "resetPassword-wrong-code.png")


def test_screens_at_phone_width(server, host):
    SHOTS.mkdir(exist_ok=True)
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "forgotPassword.png")

    queue_mark, _ = host.mark()
    host.fill_and_submit("forgotPassword", {"signInEmailAddress": new_email()})
    host.wait_for_event("onCaptureForgotPasswordCodeSuccess", after=queue_mark)
    host.wait_for_screen("forgotPasswordSuccess")
    assert focused_heading(host) == "forgotPasswordSuccess_title"
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "forgotPasswordSuccess.png")

    host.click('#forgotPasswordSuccess [data-capture-screen="resetPassword"]')
    host.wait_for_screen("resetPassword")
    queue_mark, _ = host.mark()
    host.fill_and_submit("resetPassword", {"verification_code": "ABCD-EFGH", "newPassword": "short",
                                           "newPasswordConfirm": "other"})
    host.wait_for_event("onCaptureValidationFailed", after=queue_mark)
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "resetPassword-errors.png")

    host.run_js("janrain.capture.ui.renderScreen('verifyEmail')")
    host.wait_for_screen("verifyEmail")
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "verifyEmail.png")

    _, reply = server.register(display_name="Changer")
    queue_mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % reply["access_token"])
    host.wait_for_event("onCaptureSessionFound", after=queue_mark)
    host.run_js("janrain.capture.ui.renderScreen('signedIn')")
    host.wait_for_screen("signedIn")
    assert visible_text(host, '#signedIn [data-capture-if="emailUnverified"]'), "registered, not yet confirmed"
    host.snapshot(SHOTS / "signedIn-unconfirmed.png")
    host.run_js("janrain.capture.ui.renderScreen('editProfile')")
    host.wait_for_screen("editProfile")
    host.click('#editProfile [data-capture-screen="changePassword"]')
    host.wait_for_screen("changePassword")
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "changePassword.png")

    for name in ("forgotPassword.png", "forgotPasswordSuccess.png", "resetPassword-errors.png", "verifyEmail.png",
                 "changePassword.png"):
        assert (SHOTS / name).stat().st_size > 3000, name
