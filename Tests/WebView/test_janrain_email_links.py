"""Janrain's email-link screens on a customer's own pages: the client's `password_recover_url` and
`verify_email_url` (client settings) are where its mailed links open, the page renders Janrain's screens for them
(`resetPasswordRequestCode` → `resetPassword`, `verifyEmail` spent on render), and the code never leaves the
fragment. Both field-name generations: `changePasswordFormNoAuth` (index.html), the older `newPasswordForm` with
`newpassword` and a `resetPasswordForm` that asks for a new link (plugin.html)."""

import json
import urllib.parse

from conftest import PASSWORD, SHOTS, new_email
from test_janrain_dropin import open_site

NEW_PASSWORD = "a-new-" + PASSWORD


def ask_for_reset_link(host, janrain_site, mailbox, email, page="index.html", field="signInEmailAddress"):
    open_site(host, janrain_site, page)
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capturescreen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    before = mailbox.count()
    host.fill_and_submit("forgotPassword", {field: email})
    host.wait_for_screen("forgotPasswordSuccess", timeout=20)
    return mailbox.wait_for(email, host=host, after=before)


def signs_in(server, email, password):
    _, reply, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": "janrain-site", "flow": "standard", "form": "signInForm", "response_type": "token",
        "signInEmailAddress": email, "currentPassword": password})
    return reply.get("stat") == "ok"


def test_a_reset_link_opens_the_sites_own_page_which_sets_the_new_password(host, janrain_site, server, mailbox):
    email, _ = server.register()
    message = ask_for_reset_link(host, janrain_site, mailbox, email)
    page, _, fragment = message.link.partition("#")
    # The client's password_recover_url, with Janrain's screen in the query and the code only in the fragment.
    assert page == janrain_site.page("index.html", "screenToRender=resetPasswordRequestCode"), message.link
    # The link's code: the typed one and its tag (issue 48), which the site's page sends as it is.
    [code] = urllib.parse.parse_qs(fragment)["code"]
    assert code.startswith(message.code + "-") and len(code) == 36, message.link
    assert "Fernway Rewards" in message.text, message.text  # the client's site_name

    host.load(message.link)
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("resetPassword")
    assert host.run_js("window.location.hash") == ""
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-resetPassword.png")
    mark, _ = host.mark()
    host.fill_and_submit("resetPassword", {"newPassword": NEW_PASSWORD, "newPasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess", timeout=20)
    assert signs_in(server, email, NEW_PASSWORD) and not signs_in(server, email, PASSWORD)


def test_a_spent_reset_link_on_an_older_page_asks_for_a_new_one(host, janrain_site, server, mailbox):
    email, _ = server.register()
    message = ask_for_reset_link(host, janrain_site, mailbox, email, "plugin.html", "traditionalSignIn_emailAddress")
    fragment = message.link.partition("#")[2]
    older = janrain_site.page("plugin.html", "screenToRender=resetPasswordRequestCode") + "#" + fragment

    # The older generation's newPasswordForm (newpassword, newpasswordConfirm) spends the link's code.
    host.load(older)
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("resetPassword")
    host.fill_and_submit("resetPassword", {"newpassword": NEW_PASSWORD, "newpasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess", timeout=20)
    assert signs_in(server, email, NEW_PASSWORD)

    # The same link again: its code is checked as the screen renders, and is spent, so Janrain's screen for a link
    # that did not work says so and asks for a new one, before any new password is typed.
    host.load("about:blank")
    mark, _ = host.mark()
    host.load(older)
    failed = host.wait_for_event("onCaptureForgotPasswordCodeFailed", after=mark, timeout=20).arguments[0]
    assert failed["status"] == "error" and failed["screen"] == "resetPasswordRequestCode", failed
    host.wait_for_screen("resetPasswordRequestCode")
    message = host.run_js("""(function(){ var box = document.querySelector(
        '#resetPasswordRequestCode [id$=_errorMessages]'); return box && !box.hidden ? box.textContent : null; })()""")
    assert message, "the screen says why the link did not work"
    assert signs_in(server, email, NEW_PASSWORD)
    before = mailbox.count()
    host.fill_and_submit("resetPasswordRequestCode", {"traditionalSignIn_emailAddress": email})
    host.wait_for_screen("resetPasswordRequestCodeSuccess", timeout=20)
    assert mailbox.wait_for(email, host=host, after=before).code


def test_a_verification_link_confirms_the_address_as_the_page_renders(host, janrain_site, server, mailbox):
    email = new_email()
    open_site(host, janrain_site)
    host.click('#signIn [data-capturescreen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    before = mailbox.count()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Fern", "firstName": "Fern", "lastName": "Gully",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    message = mailbox.wait_for(email, host=host, after=before)
    assert message.link.startswith(janrain_site.page("index.html", "screenToRender=verifyEmail") + "#"), message.link

    # A link whose code is not the mailed one: Janrain's verifyEmail stays, saying why, with its resend form.
    code = message.code
    wrong = message.link.replace(code, code[::-1] if code[::-1] != code else "2222-2222")
    mark, _ = host.mark()
    host.load(wrong)
    failed = host.wait_for_event("onCaptureEmailVerificationFailed", after=mark, timeout=20).arguments[0]
    assert failed["status"] == "error", failed
    host.wait_for_screen("verifyEmail")
    assert host.run_js("!document.getElementById('capture_verifyEmail_resendVerificationForm_errorMessages').hidden")
    # Janrain's resendLink mails the link's address again; the new code replaces the first.
    before = mailbox.count()
    mark, _ = host.mark()
    host.click("#verifyEmail .capture_resendLink")
    host.wait_for_event("onCaptureEmailSent", after=mark, timeout=20)
    host.wait_for_screen("resendVerificationSuccess")
    message = mailbox.wait_for(email, host=host, after=before)

    # The right link, opened on the page already showing (only its fragment changes).
    mark, _ = host.mark()
    host.run_js("window.location.href = %s" % json.dumps(message.link))
    host.wait_for_event("onCaptureEmailVerificationSuccess", after=mark, timeout=20)
    host.wait_for_screen("verifyEmailSuccess")
    assert host.run_js("window.location.hash") == ""
    status, entity, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": "janrain-site", "flow": "standard", "form": "signInForm", "response_type": "token",
        "signInEmailAddress": email, "currentPassword": PASSWORD})
    assert entity["capture_user"]["emailVerified"], entity
