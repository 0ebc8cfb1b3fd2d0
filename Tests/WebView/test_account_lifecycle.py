"""Forgot/reset password, email verification and change password end to end (issue 7): the page asks, the
service mails a code to a real SMTP server (aiosmtpd), and the person types the code, or opens the message's
link, in the web view. Every screen shown reaches the host over the queue and the message-handler transport."""

from conftest import CLIENT_ID, PASSWORD, VERIFY_FIRST_CLIENT_ID, new_email
from test_lockout import api_sign_in
from test_session import field_messages, visible_text

NEW_PASSWORD = "a brand new passphrase"
RESET_SUBJECT = "password reset"
VERIFY_SUBJECT = "confirm your email"


def screens_shown(host, marks):
    """The onCaptureScreenShow screens since `marks` on each transport; both must agree."""
    host.settle()
    queue = [e.result["screen"] for e in host.queue_events[marks[0]:] if e.name == "onCaptureScreenShow"]
    messages = [e.result["screen"] for e in host.message_events[marks[1]:] if e.name == "onCaptureScreenShow"]
    assert queue == messages, "the transports disagree: %s vs %s" % (queue, messages)
    return queue


def event(host, name, after):
    """The event on both transports (same result on each)."""
    queued = host.wait_for_event(name, after=after[0])
    posted = host.wait_for_event(name, "message", after=after[1])
    assert queued.result == posted.result
    return queued.result


def entity(server, token):
    return server.post("/entity", {"access_token": token})[1]


def register(server, mailbox, **options):
    """Registers through the API and waits for the verification message registration sends, so that later
    waits for a message to the same address cannot pick that one up by arriving late."""
    mark = mailbox.count()
    email, reply = server.register(**options)
    mailbox.wait_for(email, after=mark, subject=VERIFY_SUBJECT)
    return email, reply


def test_forgot_password_by_code_then_only_the_new_password_works(server, host, mailbox):
    email, registered = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    marks = host.mark()
    host.run_js("(document.querySelector('#signIn [name=signInEmailAddress]').value = %r, true)" % email)
    host.click('#signIn [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    inbox_mark = mailbox.count()
    host.fill_and_submit("forgotPassword", {})  # the address came along from sign-in
    sent = event(host, "onCaptureEmailSent", marks)
    code_sent = event(host, "onCaptureForgotPasswordCodeSuccess", marks)
    assert sent["status"] == code_sent["status"] == "success"
    assert sent["transactionId"] == code_sent["transactionId"] and code_sent["form"] == "forgotPasswordForm"
    assert code_sent["screen"] == "forgotPassword" and code_sent["flow"] == "webViewSignIn"
    host.wait_for_screen("forgotPasswordSuccess")
    assert email in host.run_js("document.getElementById('forgotPasswordSuccess').textContent")

    message = mailbox.wait_for(email, host, after=inbox_mark, subject=RESET_SUBJECT)
    assert message.code and message.code in message.html, "text and HTML parts, decoded, carry the code"
    assert email in str(message.message["To"]) and message.message["Message-ID"]
    assert message.code not in message.link.split("#")[0], "the code travels only in the fragment"
    assert message.link.startswith(server.base + "/flows/webViewSignIn?")

    host.click('#forgotPasswordSuccess [data-capture-screen="resetPassword"]')
    host.wait_for_screen("resetPassword")
    assert host.run_js("document.querySelector('#resetPassword [name=email]').value") == email
    host.fill_and_submit("resetPassword", {"verification_code": message.code.lower(),
                                           "newPassword": NEW_PASSWORD, "newPasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess")
    assert host.run_js("document.querySelector('#resetPassword [name=verification_code]').value") == ""
    assert entity(server, registered["access_token"])["stat"] == "error", "a reset ends every session"

    host.click('#resetPasswordSuccess [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    assert host.run_js("document.querySelector('#signIn [name=signInEmailAddress]').value") == email
    failed_mark = host.mark()
    host.fill_and_submit("signIn", {"currentPassword": PASSWORD})
    assert event(host, "onCaptureLoginFailed", failed_mark)["code"] == 210, "the old password is refused"
    success_mark = host.mark()
    host.fill_and_submit("signIn", {"currentPassword": NEW_PASSWORD})
    success = event(host, "onCaptureLoginSuccess", success_mark)
    assert success["userData"]["email"] == email
    assert entity(server, success["accessToken"])["result"]["emailVerified"], "the code proved the mailbox"
    assert screens_shown(host, marks) == ["forgotPassword", "forgotPasswordSuccess", "resetPassword",
                                          "resetPasswordSuccess", "signIn", "signedIn"]


def test_forgot_password_through_the_messages_link(server, host, mailbox):
    # The page still holds a session of the account (say, on a phone the person is signed in on).
    email, registered = server.register()
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % registered["access_token"])
    host.wait_for_screen("signedIn")
    inbox_mark = mailbox.count()
    assert server.post("/oauth/forgot_password_native", {
        "client_id": CLIENT_ID, "flow": "webViewDemo", "form": "forgotPasswordForm", "locale": "en-US",
        "signInEmailAddress": email})[1]["stat"] == "ok"
    message = mailbox.wait_for(email, host, after=inbox_mark, subject=RESET_SUBJECT)
    assert message.link.startswith(server.page("webViewDemo").split("?")[0] + "?"), message.link

    # The person taps the link: the app opens it in its web view, which shows the link's screen.
    marks = host.mark()
    host.load(message.link)
    host.wait_for_screen("resetPassword")
    assert host.run_js("location.hash") == "" and "#" not in host.run_js("location.href")
    # The link's code: the typed one and its tag (issue 48), filled in whole however long the typed field allows.
    filled = host.run_js("document.querySelector('#resetPassword [name=verification_code]').value")
    assert filled.startswith(message.code + "-") and len(filled) == 36, filled
    assert host.run_js("document.querySelector('#resetPassword [name=email]').value") == email
    host.fill_and_submit("resetPassword", {"newPassword": NEW_PASSWORD, "newPasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess")
    ended = event(host, "onCaptureSessionEnded", marks)
    assert ended["status"] == "success", "the host learns that its token is dead"
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert entity(server, registered["access_token"])["stat"] == "error"
    assert screens_shown(host, marks) == ["resetPassword", "resetPasswordSuccess"]

    # The same link again (after the app showed another page): the code is spent.
    host.load(server.page("webViewSignIn"))
    host.load(message.link)
    host.wait_for_screen("resetPassword")
    again = host.mark()
    host.fill_and_submit("resetPassword", {"newPassword": NEW_PASSWORD, "newPasswordConfirm": NEW_PASSWORD})
    assert "verification_code" in event(host, "onCaptureForgotPasswordCodeFailed", again)["invalidFields"]
    assert "verification_code" in field_messages(host, "resetPassword")
    assert api_sign_in(server, email, NEW_PASSWORD)["stat"] == "ok"
    assert api_sign_in(server, email, PASSWORD)["code"] == 210


def test_verify_email_by_code_with_a_resend_and_by_link(server, host, mailbox):
    # Registered in the page: the service mails a code, and the signed-in screen asks for it.
    email = new_email()
    inbox_mark = mailbox.count()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    marks = host.mark()
    host.fill_and_submit("traditionalRegistration", {"emailAddress": email, "displayName": "Verifier",
                                                     "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    token = event(host, "onCaptureLoginSuccess", marks)["accessToken"]
    host.wait_for_screen("signedIn")
    first = mailbox.wait_for(email, host, after=inbox_mark, subject=VERIFY_SUBJECT)
    assert first.code and "#screen=verifyEmail&" in first.link
    reminder = '#signedIn [data-capture-if="emailUnverified"]'
    assert visible_text(host, reminder), "an unconfirmed address is pointed out"
    host.click(reminder + ' [data-capture-screen="verifyEmail"]')
    host.wait_for_screen("verifyEmail")
    assert host.run_js("document.querySelector('#verifyEmail [name=email]').value") == email

    # "Send a new code": the new code replaces the first.
    inbox_mark = mailbox.count()
    resend_mark = host.mark()
    host.click('#verifyEmail form[name="resendVerificationForm"] button[type="submit"]')
    resent = event(host, "onCaptureEmailSent", resend_mark)
    assert resent["form"] == "resendVerificationForm" and resent["statusMessage"] == "emailSent"
    host.wait_for_screen("resendVerificationSuccess")
    second = mailbox.wait_for(email, host, after=inbox_mark, subject=VERIFY_SUBJECT)
    assert second.code != first.code
    host.click('#resendVerificationSuccess [data-capture-screen="verifyEmail"]')
    host.wait_for_screen("verifyEmail")
    verify_mark = host.mark()
    host.fill_and_submit("verifyEmail", {"verification_code": second.code})
    verified = event(host, "onCaptureEmailVerificationSuccess", verify_mark)
    assert verified["status"] == "success" and verified["statusMessage"] == "emailVerified"
    host.wait_for_screen("verifyEmailSuccess")
    assert entity(server, token)["result"]["emailVerified"], "emailVerified is set"
    host.wait_for(lambda: host.run_js("JSON.parse(localStorage.getItem('janrainCaptureProfileData')).emailVerified"),
                  5, "the page's copy of the profile to say verified")
    host.click('#verifyEmailSuccess [data-capture-action="signIn"]')
    host.wait_for_screen("signedIn")
    assert visible_text(host, reminder) is None, "the reminder is gone"
    assert screens_shown(host, marks) == ["signedIn", "verifyEmail", "resendVerificationSuccess", "verifyEmail",
                                          "verifyEmailSuccess", "signedIn"]

    # By link, into another page (webViewProfile, signed out): a code asked for from that flow links to it.
    other, reply = register(server, mailbox)
    assert entity(server, reply["access_token"])["result"]["emailVerified"] is None
    inbox_mark = mailbox.count()
    assert server.post("/oauth/verify_email_native", {
        "client_id": CLIENT_ID, "flow": "webViewProfile", "form": "resendVerificationForm", "locale": "en-US",
        "emailAddress": other})[1]["stat"] == "ok"
    message = mailbox.wait_for(other, host, after=inbox_mark, subject=VERIFY_SUBJECT)
    assert "/flows/webViewProfile?" in message.link
    host.run_js("(janrain.capture.ui.endCaptureSession(), true)")
    marks = host.mark()
    host.load(message.link)
    host.wait_for_screen("verifyEmail")
    filled = host.run_js("document.querySelector('#verifyEmail [name=verification_code]').value")
    assert filled.startswith(message.code + "-") and len(filled) == 36, filled
    host.fill_and_submit("verifyEmail", {})
    event(host, "onCaptureEmailVerificationSuccess", marks)
    host.wait_for_screen("verifyEmailSuccess")
    assert other in host.run_js("document.getElementById('verifyEmailSuccess').textContent")
    assert entity(server, reply["access_token"])["result"]["emailVerified"]
    assert screens_shown(host, marks) == ["verifyEmail", "verifyEmailSuccess"]


def test_a_client_that_requires_a_confirmed_address_asks_for_the_code_at_sign_in(server, host, mailbox):
    email, _ = register(server, mailbox)
    host.load(server.page("webViewSignIn", client_id=VERIFY_FIRST_CLIENT_ID))
    host.wait_for_screen("signIn")
    inbox_mark = mailbox.count()
    marks = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    failed = event(host, "onCaptureLoginFailed", marks)
    assert failed["code"] == 112 and failed["statusMessage"] == "email_not_verified"
    host.wait_for_screen("verifyEmail")
    assert host.run_js("document.activeElement && document.activeElement.id") == "verifyEmail_title"
    assert host.run_js("document.querySelector('#verifyEmail [name=email]').value") == email
    message = mailbox.wait_for(email, host, after=inbox_mark, subject=VERIFY_SUBJECT)
    host.fill_and_submit("verifyEmail", {"verification_code": "2222-2222"})
    event(host, "onCaptureEmailVerificationFailed", marks)
    assert "verification_code" in field_messages(host, "verifyEmail")
    host.fill_and_submit("verifyEmail", {"verification_code": message.code})
    host.wait_for_screen("verifyEmailSuccess")
    host.click('#verifyEmailSuccess [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    success_mark = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    assert event(host, "onCaptureLoginSuccess", success_mark)["userData"]["email"] == email
    assert screens_shown(host, marks) == ["verifyEmail", "verifyEmailSuccess", "signIn", "signedIn"]


def test_change_password_keeps_this_session_and_ends_the_others(server, host):
    email, reply = server.register(display_name="Changer")
    elsewhere = api_sign_in(server, email, PASSWORD)["access_token"]
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureRenderComplete")
    marks = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % reply["access_token"])
    host.wait_for_screen("editProfile")
    host.click('#editProfile [data-capture-screen="changePassword"]')
    host.wait_for_screen("changePassword")

    wrong = host.mark()
    host.fill_and_submit("changePassword", {"currentPassword": "not it", "newPassword": NEW_PASSWORD,
                                            "newPasswordConfirm": NEW_PASSWORD})
    failed = event(host, "onCaptureProfileSaveFailed", wrong)
    assert failed["form"] == "changePasswordForm" and "currentPassword" in failed["invalidFields"]
    event(host, "onCaptureValidationFailed", wrong)
    assert list(field_messages(host, "changePassword")) == ["currentPassword"]
    assert host.run_js("document.activeElement.name") == "currentPassword"
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is True, "a field error is no session error"

    right = host.mark()
    host.fill_and_submit("changePassword", {"currentPassword": PASSWORD, "newPassword": NEW_PASSWORD,
                                            "newPasswordConfirm": NEW_PASSWORD})
    saved = event(host, "onCaptureProfileSaveSuccess", right)
    assert saved["statusMessage"] == "passwordChanged" and saved["userData"]["email"] == email
    host.wait_for_screen("newPasswordSuccess")
    assert host.run_js("document.querySelector('#changePassword [name=currentPassword]').value") == ""
    assert entity(server, reply["access_token"])["stat"] == "ok", "this session goes on"
    assert entity(server, elsewhere)["stat"] == "error", "the other session ended"
    assert api_sign_in(server, email, PASSWORD)["code"] == 210
    assert api_sign_in(server, email, NEW_PASSWORD)["stat"] == "ok"
    host.click('#newPasswordSuccess [data-capture-screen="editProfile"]')
    host.wait_for_screen("editProfile")
    assert screens_shown(host, marks) == ["editProfile", "changePassword", "newPasswordSuccess", "editProfile"]


def test_a_locked_out_owner_resets_and_signs_in(server, host, mailbox):
    email, _ = server.register()
    for _ in range(10):
        assert api_sign_in(server, email, "a wrong guess")["code"] == 210
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    marks = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    locked = event(host, "onCaptureLoginFailed", marks)
    assert locked["code"] == 510 and locked["statusMessage"] == "rateLimitExceeded"
    message = host.wait_for(lambda: visible_text(host, "#signIn .capture_form_error"), 5, "the lockout message")
    assert "reset your password" in message.lower()
    host.click('#signIn .capture_form_error [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    inbox_mark = mailbox.count()
    host.fill_and_submit("forgotPassword", {})
    host.wait_for_screen("forgotPasswordSuccess")
    code = mailbox.wait_for(email, host, after=inbox_mark, subject=RESET_SUBJECT).code
    host.click('#forgotPasswordSuccess [data-capture-screen="resetPassword"]')
    host.wait_for_screen("resetPassword")
    host.fill_and_submit("resetPassword", {"verification_code": code, "newPassword": NEW_PASSWORD,
                                           "newPasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess")
    host.click('#resetPasswordSuccess [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    after = host.mark()
    host.fill_and_submit("signIn", {"currentPassword": NEW_PASSWORD})
    assert event(host, "onCaptureLoginSuccess", after)["userData"]["email"] == email
    assert screens_shown(host, marks) == ["forgotPassword", "forgotPasswordSuccess", "resetPassword",
                                          "resetPasswordSuccess", "signIn", "signedIn"]


def test_asking_too_often_for_codes_says_to_wait(server, host):
    email = new_email()  # no account: the replies are the same either way
    ask = {"client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "forgotPasswordForm", "locale": "en-US",
           "signInEmailAddress": email}
    for _ in range(5):
        assert server.post("/oauth/forgot_password_native", ask)[1]["stat"] == "ok"
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="forgotPassword"]')
    marks = host.mark()
    host.fill_and_submit("forgotPassword", {"signInEmailAddress": email})
    failed = event(host, "onCaptureForgotPasswordCodeFailed", marks)
    assert failed["code"] == 510 and failed["statusMessage"] == "rateLimitExceeded"
    assert "wait" in host.wait_for(lambda: visible_text(host, "#forgotPassword .capture_form_error"), 5, "message").lower()
    assert host.visible_screen() == ["forgotPassword"]
