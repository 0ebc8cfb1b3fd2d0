"""The whole password reset on a customer's own page whose flow, exported from Janrain and imported
(Tests/Fixtures/janrain-flow-trailhead.json), defines Janrain's reset forms itself (janrain_site/trailhead.html, client
`trailhead-site`): forgotPasswordForm mails a link that opens the customer's page, the flow's
changePasswordFormNoAuth (with its own field names) sets the new password with the link's code, the person signs in
with it; and a spent link's resetPasswordRequestCode screen asks with the flow's resetPasswordForm for the address
again, which mails a new link (Janrain's meaning, not the service's new-password form)."""

from conftest import PASSWORD

NEW_PASSWORD = "trail-" + PASSWORD
NEWER_PASSWORD = "summit-" + PASSWORD


def open_trailhead(host, janrain_site, query=""):
    host.load(janrain_site.page("trailhead.html", query))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)


def signs_in(server, email, password):
    _, reply, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": "trailhead-site", "flow": "trailhead", "form": "signInForm", "response_type": "token",
        "signInEmailAddress": email, "currentPassword": password})
    return reply.get("stat") == "ok"


def set_password_from(host, link, password):
    """Opens a mailed reset link and sets `password` with the flow's own changePasswordFormNoAuth."""
    mark, _ = host.mark()
    host.load(link)
    host.wait_for_event("onCaptureRenderComplete", after=mark, timeout=20)
    host.wait_for_screen("resetPassword")
    assert host.fill_and_submit("resetPassword", {
        "newPassword_resetPassword": password, "newPasswordConfirm_resetPassword": password}) == "changePasswordFormNoAuth"
    host.wait_for_screen("resetPasswordSuccess", timeout=20)


def test_a_flow_with_janrains_reset_forms_resets_on_the_customers_page(host, janrain_site, server, mailbox):
    email, _ = server.register()
    open_trailhead(host, janrain_site)
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capturescreen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    before = mailbox.count()
    host.fill_and_submit("forgotPassword", {"signInEmailAddress": email})
    host.wait_for_screen("forgotPasswordSuccess", timeout=20)
    message = mailbox.wait_for(email, host=host, after=before)
    # The client's password_recover_url: the customer's own page, Janrain's screen in the query.
    assert message.link.startswith(janrain_site.page("trailhead.html", "screenToRender=resetPasswordRequestCode") + "#"), \
        message.link
    assert "Trailhead Outfitters" in message.text, message.text

    # The link's code is checked as the page renders; the flow's changePasswordFormNoAuth sends it with the new
    # password (to /oauth/reset_password_native), whose rules are the flow's own (ten characters or more).
    set_password_from(host, message.link, NEW_PASSWORD)
    assert signs_in(server, email, NEW_PASSWORD) and not signs_in(server, email, PASSWORD)

    # Signing in on the page with the new password.
    host.click('#resetPasswordSuccess [data-capturescreen="signIn"]')
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": NEW_PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["flow"] == "trailhead" and success["userData"]["email"] == email, success

    # The same link again: spent, so Janrain's resetPasswordRequestCode says so, and the flow's resetPasswordForm
    # asks for the address to mail a new link (not a new password).
    host.load("about:blank")
    mark, _ = host.mark()
    host.load(message.link)
    failed = host.wait_for_event("onCaptureForgotPasswordCodeFailed", after=mark, timeout=20).arguments[0]
    assert failed["screen"] == "resetPasswordRequestCode", failed
    host.wait_for_screen("resetPasswordRequestCode")
    said = host.run_js("""(function(){ var box = document.querySelector(
        '#resetPasswordRequestCode [id$=_errorMessages]'); return box && !box.hidden ? box.textContent : null; })()""")
    assert said, "the screen says why the link did not work"
    before = mailbox.count()
    mark, _ = host.mark()
    assert host.fill_and_submit("resetPasswordRequestCode", {"emailAddress_requestCode": email}) == "resetPasswordForm"
    sent = host.wait_for_event("onCaptureEmailSent", after=mark, timeout=20).arguments[0]
    assert sent["statusMessage"] == "emailSent", sent
    host.wait_for_screen("resetPasswordRequestCodeSuccess", timeout=20)
    renewed = mailbox.wait_for(email, host=host, after=before)
    assert renewed.link != message.link and renewed.link.startswith(janrain_site.page("trailhead.html")), renewed.link

    # The new link works as the first did.
    host.load("about:blank")
    set_password_from(host, renewed.link, NEWER_PASSWORD)
    assert signs_in(server, email, NEWER_PASSWORD) and not signs_in(server, email, NEW_PASSWORD)


def test_the_page_is_told_each_janrain_form_goes_to_the_call_that_serves_it(host, janrain_site):
    open_trailhead(host, janrain_site)
    host.wait_for_screen("signIn")
    forms = host.run_js("""(function(){ var forms = janrain.settings.capture.forms, out = {};
        ['changePasswordFormNoAuth', 'resetPasswordForm', 'forgotPasswordForm', 'deactivateAccountForm']
            .forEach(function(name){ out[name] = [forms[name].endpoint, forms[name].as || null]; });
        return out; })()""")
    assert forms == {
        "changePasswordFormNoAuth": ["/oauth/reset_password_native", "resetPasswordForm"],
        "resetPasswordForm": ["/oauth/forgot_password_native", "forgotPasswordForm"],
        "forgotPasswordForm": ["/oauth/forgot_password_native", None],
        "deactivateAccountForm": ["/oauth/deactivate_account", None],
    }, forms
