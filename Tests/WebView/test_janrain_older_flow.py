"""Janrain's older newPasswordForm in a customer's own flow, imported as it is (Tests/Fixtures/janrain-flow-ridgeline.json,
the page janrain_site/ridgeline.html, client `ridgeline-site`): on the page a mailed reset link opens, the form sets the
new password with the link's code, as it did on Janrain; signed in, the same form changes the password with the
current one. What the form is sent as with a link's code comes from the page's settings (`withLinkCode`, JanrainForm
in Core)."""

from conftest import PASSWORD

NEW_PASSWORD = "ridge-" + PASSWORD
NEWER_PASSWORD = "summit-" + PASSWORD


def signs_in(server, email, password):
    _, reply, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": "ridgeline-site", "flow": "ridgeline", "form": "signInForm", "response_type": "token",
        "traditionalSignIn_emailAddress": email, "traditionalSignIn_password": password})
    return reply.get("stat") == "ok"


def outcome(host, mark, names):
    """The first of the events `names` after the mark."""
    return host.wait_for(lambda: next((event for event in host.queue_events[mark:] if event.name in names), None), 20,
                         "one of %s" % (names,))


def test_the_older_new_password_form_resets_with_a_links_code_and_changes_it_signed_in(host, janrain_site, server,
                                                                                      mailbox):
    email, _ = server.register()
    host.load(janrain_site.page("ridgeline.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("signIn")
    # The page is told the form's two meanings: the signed-in change, and the reset while it holds a link's code.
    told = host.run_js("janrain.settings.capture.forms.newPasswordForm")
    assert told["endpoint"] == "/oauth/update_profile_native" and told["as"] == "changePasswordForm", told
    assert told["withLinkCode"] == {"as": "resetPasswordForm", "endpoint": "/oauth/reset_password_native"}, told

    host.click('#signIn [data-capturescreen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    before = mailbox.count()
    host.fill_and_submit("forgotPassword", {"traditionalSignIn_emailAddress": email})
    host.wait_for_screen("forgotPasswordSuccess", timeout=20)
    message = mailbox.wait_for(email, host=host, after=before)
    assert message.link.startswith(janrain_site.page("ridgeline.html", "screenToRender=resetPasswordRequestCode") + "#"), \
        message.link

    # The link opens the page; the flow's newPasswordForm sends the new password with the link's code.
    host.load("about:blank")
    mark, _ = host.mark()
    host.load(message.link)
    host.wait_for_event("onCaptureRenderComplete", after=mark, timeout=20)
    host.wait_for_screen("resetPassword")
    assert host.fill_and_submit("resetPassword", {
        "newpassword": NEW_PASSWORD, "newpasswordConfirm": NEW_PASSWORD}) == "newPasswordForm"
    host.wait_for_screen("resetPasswordSuccess", timeout=20)
    assert signs_in(server, email, NEW_PASSWORD) and not signs_in(server, email, PASSWORD)

    # Signed in on the page with it (opened again: the link's page renders the link's screen after a sign-in, as
    # Janrain's screenToRender does), the same form changes the password: with the current one, not a code.
    host.load("about:blank")
    mark, _ = host.mark()
    host.load(janrain_site.page("ridgeline.html"))
    host.wait_for_event("onCaptureRenderComplete", after=mark, timeout=20)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"traditionalSignIn_emailAddress": email, "traditionalSignIn_password": NEW_PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["flow"] == "ridgeline" and success["userData"]["email"] == email, success
    host.wait_for_screen("signedIn", timeout=20)
    host.click('#signedIn [data-capturescreen="changePassword"]')
    host.wait_for_screen("changePassword")

    # A wrong current password is its field's error, and changes nothing.
    mark, _ = host.mark()
    host.fill_and_submit("changePassword", {
        "oldpassword": "not " + PASSWORD, "newpassword": NEWER_PASSWORD, "newpasswordConfirm": NEWER_PASSWORD})
    failed = outcome(host, mark, ("onCaptureProfileSaveFailed", "onCaptureProfileSaveSuccess"))
    assert failed.name == "onCaptureProfileSaveFailed", failed.result
    assert list(failed.result["invalidFields"]) == ["oldpassword"], failed.result
    assert host.visible_screen() == ["changePassword"]
    assert signs_in(server, email, NEW_PASSWORD)

    mark, _ = host.mark()
    assert host.fill_and_submit("changePassword", {
        "oldpassword": NEW_PASSWORD, "newpassword": NEWER_PASSWORD, "newpasswordConfirm": NEWER_PASSWORD}) \
        == "newPasswordForm"
    saved = outcome(host, mark, ("onCaptureProfileSaveFailed", "onCaptureProfileSaveSuccess"))
    assert saved.name == "onCaptureProfileSaveSuccess" and saved.result["statusMessage"] == "passwordChanged", \
        saved.result
    host.wait_for_screen("newPasswordSuccess", timeout=20)
    assert signs_in(server, email, NEWER_PASSWORD) and not signs_in(server, email, NEW_PASSWORD)
