"""A sensitive change the service refuses for want of a recent sign-in (issue 48, docs/contract.md §19,
docs/bridge-protocol.md "A change that needs a recent sign-in"), as the person meets it in the real web view: against a
service of this module's own whose recentSignInMinutes is a few seconds, the page signs in, the window passes, and
adding a passkey, setting up the authenticator app, a new address and a new password (an account with the app on,
whose password alone is not enough) are each refused with one message in the page's language, "sign in again to
continue", and nothing changes on the service. Its action signs out (on the service too) and shows sign-in; the next
sign-in of the same account (with the app's code where it is on) comes back to the screen the person was on, where the
change now goes through. Unlinking a provider says it in the page's notice; deleting an account without a password
(made through a provider) comes back to confirmAccountDeactivation after the provider's round trip. Screenshots at
phone size in .build/screenshots/step-up/."""

import json
import time

import pytest

from conftest import CLIENT_ID, PASSWORD, SHOTS, OwnServer, PasskeyPlatform, new_email
from screens import FACTORS_PENDING_JS, checked_at_phone_size, text_of
from test_languages import catalog
from test_social_linking import LINKED_ITEMS, link_with_provider, open_profile, register_verified
from test_social_sign_in import answer_at_provider, back_on_page, new_subject, sign_in_with_provider, tap_provider

TEXTS = catalog("en")
FOLDER = SHOTS / "step-up"
# recentSignInMinutes of the module's service: long enough for a sign-in and the change after it on a loaded machine,
# short enough to wait out.
WINDOW_SECONDS = 15
RESUME_KEY = "captureBridgeResumeScreen"
PASSKEY_FORM = "#editProfile form[data-capture-factor=addPasskey]"
TOTP = "#editProfile [data-capture-totp]"
PROFILE_FORM = "#editProfile form[data-capture-form=editProfileForm]"
DELETION_READY = "!!document.querySelector('#confirmAccountDeactivation form[data-capture-ready]')"
WATCHED = ("onCaptureLoginSuccess", "onCaptureSessionEnded", "onCaptureProfileSaveFailed", "onCaptureSaveFailed",
           "onCaptureProfileSaveSuccess", "onCapturePasskeyRequest", "onCaptureUnlinkAccountError",
           "onCaptureUnlinkAccountSuccess", "onCaptureAccountDeactivateSuccess")


@pytest.fixture(scope="module")
def quick(mailbox, oidc_provider):
    """The module's service: a sign-in is recent for WINDOW_SECONDS."""
    own = OwnServer(mailbox, oidc_provider, {"recentSignInMinutes": WINDOW_SECONDS / 60.0})
    try:
        yield own.server
    finally:
        own.stop()


def entity(server, token):
    return server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})[1]


def api_sign_in(server, email, password=PASSWORD):
    return server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": password})[1]


def watched(host, mark):
    host.settle()
    host.sync()
    return [(e.name, e.result) for e in host.queue_events[mark:] if e.name in WATCHED]


def wait_out(host, since):
    """Lets the page idle until the sign-in made at `since` (time.monotonic()) is no longer recent."""
    left = since + WINDOW_SECONDS + 1.0 - time.monotonic()
    if left > 0:
        host.pump(left)


def on_demo_page(server, host, token, locale=None):
    """webViewDemo with the host's token (createCaptureSession): signedIn, as the page shows a session."""
    query = {"session": "pending"}
    if locale:
        query["locale"] = locale
    host.load(server.page("webViewDemo", **query))
    host.wait_for_event("onCaptureRenderComplete")
    mark, _ = host.mark()
    assert host.run_js("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(token)) is True
    host.wait_for_event("onCaptureSessionFound", after=mark)
    host.wait_for_screen("signedIn")


def to_edit_profile(host):
    host.click('#signedIn [data-capture-screen="editProfile"]')
    host.wait_for_screen("editProfile")
    host.wait_for(lambda: host.run_js(FACTORS_PENDING_JS), 10, "the factor and session sections")


def refusal(host, where, texts=TEXTS):
    """The message at `where` (a form or section's .capture_form_error): "sign in again", with its action; returns the
    action's selector."""
    message = "%s .capture_form_error" % where
    host.wait_for(lambda: text_of(host, message), 10, "the refusal at %s" % where)
    shown = text_of(host, message)
    assert shown.startswith(texts["widget.signInAgain"]), shown
    action = "%s [data-capture-action=signInAgain]" % message
    assert text_of(host, action) == texts["widget.signInAgainAction"]
    assert host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(message)) == "alert"
    return action


def signed_out_by_the_action(server, host, action, token, screen):
    """Taps the refusal's action: the page signs out (its token revoked on the service too) and shows sign-in, keeping
    `screen` to come back to."""
    mark, _ = host.mark()
    host.click(action)
    host.wait_for_event("onCaptureSessionEnded", after=mark)
    host.wait_for_screen("returnTraditional")
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    host.wait_for(lambda: entity(server, token)["stat"] == "error", 10, "the token revoked")
    kept = json.loads(host.run_js("sessionStorage.getItem(%s)" % json.dumps(RESUME_KEY)))
    assert kept["screen"] == screen and set(kept) == {"screen", "uuid", "at"}, kept


def test_a_passkey_the_authenticator_app_and_a_new_address_wait_for_a_sign_in_again(quick, host):
    server = quick
    platform = PasskeyPlatform(host, server.base)
    email, registered = server.register(display_name="Stepan")
    signed_in = time.monotonic()
    token = registered["access_token"]
    on_demo_page(server, host, token)
    to_edit_profile(host)
    wait_out(host, signed_in)

    # A new address: the profile form's message, its failure events with the service's reason; the address stays.
    mark, _ = host.mark()
    host.fill_and_submit_form(PROFILE_FORM, {"emailAddress": new_email()})
    refusal(host, PROFILE_FORM)
    # A passkey: refused before any ceremony (the host is not asked), nothing added.
    host.fill_and_submit_form(PASSKEY_FORM, {"passkeyName": "Work phone"})
    action = refusal(host, PASSKEY_FORM)
    # The authenticator app's set-up: refused in its section, still off.
    host.click("%s [data-capture-totp-setup]" % TOTP)
    refusal(host, TOTP)
    assert host.run_js("document.querySelector('%s [data-capture-totp-state=\"off\"]').hidden" % TOTP) is False
    events = watched(host, mark)
    assert [name for name, _ in events] == ["onCaptureProfileSaveFailed", "onCaptureSaveFailed"], events
    assert events[0][1]["statusMessage"] == "recent_sign_in_required" and events[0][1]["code"] == 403, events[0]
    factors = server.factors(token)
    assert factors["passkeys"] == [] and not factors["second_factor"].get("enabled"), factors
    assert entity(server, token)["result"]["email"] == email
    assert host.visible_screen() == ["editProfile"]
    FOLDER.mkdir(parents=True, exist_ok=True)
    checked_at_phone_size(host, FOLDER / "editProfile-sign-in-again.png", "the refusals on editProfile")

    # The way forward: signed out, sign-in, and back on editProfile (not signedIn, this page's usual first screen).
    signed_out_by_the_action(server, host, action, token, "editProfile")
    mark, _ = host.mark()
    host.fill_and_submit("returnTraditional", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    host.wait_for_screen("editProfile")
    host.wait_for(lambda: host.run_js(FACTORS_PENDING_JS), 10, "the factor and session sections")
    assert host.run_js("sessionStorage.getItem(%s)" % json.dumps(RESUME_KEY)) is None
    assert text_of(host, "%s .capture_form_error" % PASSKEY_FORM) is None, "the refusal is gone"

    # Now the passkey is added: the host runs the ceremony.
    mark, _ = host.mark()
    host.fill_and_submit_form(PASSKEY_FORM, {"passkeyName": "Work phone"})
    platform.answer(after=mark)
    note = "#editProfile [data-capture-passkeys] [data-capture-factor-note]"
    host.wait_for(lambda: text_of(host, note), 10, "the passkey added")
    assert text_of(host, note) == TEXTS["widget.passkeyAdded"].replace("%s", "Work phone")
    assert [p["name"] for p in server.factors(success["accessToken"])["passkeys"]] == ["Work phone"]


def test_a_new_password_with_the_app_on_waits_for_a_sign_in_again_with_its_code_in_french(quick, host):
    server = quick
    texts = catalog("fr")
    email, registered = server.register(display_name="Amélie")
    signed_in = time.monotonic()
    token = registered["access_token"]
    app, _ = server.set_up_authenticator(token)
    on_demo_page(server, host, token, locale="fr-FR")
    to_edit_profile(host)
    host.click('#editProfile [data-capture-screen="changePassword"]')
    host.wait_for_screen("changePassword")
    wait_out(host, signed_in)

    # The current password is not enough where the app is on: the form's message, in French; the password stays.
    new_password = "a brand new " + PASSWORD
    fields = {"currentPassword": PASSWORD, "newPassword": new_password, "newPasswordConfirm": new_password}
    host.fill_and_submit("changePassword", fields)
    action = refusal(host, "#changePassword form[data-capture-form=changePasswordForm]", texts)
    assert "reconnectez-vous" in text_of(host, "#changePassword .capture_form_error").lower()
    assert api_sign_in(server, email).get("code") == 270, "the old password is still the one"
    assert api_sign_in(server, email, new_password).get("code") == 210
    FOLDER.mkdir(parents=True, exist_ok=True)
    checked_at_phone_size(host, FOLDER / "changePassword-sign-in-again-fr.png", "the refusal in French")

    # Signed out; the password and the app's code; back on changePassword, where the new password is taken.
    signed_out_by_the_action(server, host, action, token, "changePassword")
    assert host.run_js("[].every.call(document.querySelectorAll('input[type=password]'),"
                       " function(i){ return i.value === ''; })") is True, "the typed passwords are gone"
    host.fill_and_submit("returnTraditional", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("twoFactor")
    mark, _ = host.mark()
    host.fill_and_submit_form("#twoFactor form[data-capture-factor=twoFactor]", {"code": app.fresh()})
    host.wait_for_event("onCaptureLoginSuccess", after=mark)
    host.wait_for_screen("changePassword")
    host.fill_and_submit("changePassword", fields)
    host.wait_for_screen("newPasswordSuccess")
    assert api_sign_in(server, email, new_password).get("code") == 270, "the new password is the one now"


def test_unlinking_a_provider_says_it_in_the_notice_and_goes_through_after_a_sign_in_again(quick, host, oidc_provider,
                                                                                             mailbox):
    server = quick
    email, _ = register_verified(server, mailbox, display_name="Lin Ked")
    # A sign-in of its own just before: linking is a sensitive change too, and must fall within the window.
    token = api_sign_in(server, email)["access_token"]
    signed_in = time.monotonic()
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": "%s@provider.example" % subject, "email_verified": True})
    open_profile(server, host, token)
    queue_mark, _ = link_with_provider(server, host, oidc_provider, subject)
    host.wait_for_event("onCaptureLinkAccountSuccess", after=queue_mark)
    host.wait_for_screen("editProfile")
    wait_out(host, signed_in)

    mark, _ = host.mark()
    host.run_js("(document.querySelector('#editProfile [data-capture-unlink]').scrollIntoView(), true)")
    host.click("#editProfile [data-capture-unlink]")
    refused = host.wait_for_event("onCaptureUnlinkAccountError", after=mark).result
    assert refused["error"] == "recent_sign_in_required" and refused["code"] == 403, refused
    # The linked accounts have no form: the page's notice says it (role="alert"), brought into sight.
    notice = "#capture_notice"
    host.wait_for(lambda: text_of(host, notice), 5, "the notice")
    host.wait_for(lambda: host.run_js("document.getElementById('capture_notice').getBoundingClientRect().top >= 0"),
                  5, "the notice in sight")
    assert text_of(host, notice).startswith(TEXTS["widget.signInAgain"]), text_of(host, notice)
    assert host.run_js("document.getElementById('capture_notice').getAttribute('role')") == "alert"
    action = "%s [data-capture-action=signInAgain]" % notice
    assert text_of(host, action) == TEXTS["widget.signInAgainAction"]
    assert len(host.run_js(LINKED_ITEMS)) == 1
    assert [p["identifier"] for p in entity(server, token)["result"]["profiles"]] == ["mock:" + subject]
    FOLDER.mkdir(parents=True, exist_ok=True)
    host.run_js("(window.scrollTo(0, 0), true)")
    checked_at_phone_size(host, FOLDER / "editProfile-unlink-sign-in-again.png", "the refusal in the notice")

    # webViewProfile's sign-in holds the account's address; the sign-in comes back to editProfile, unlinking works.
    mark, _ = host.mark()
    host.click(action)
    host.wait_for_event("onCaptureSessionEnded", after=mark)
    host.wait_for_screen("signIn")
    assert host.run_js("document.querySelector('#signIn [name=signInEmailAddress]').value") == email
    host.fill_and_submit("signIn", {"currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    host.wait_for_screen("editProfile")
    mark, _ = host.mark()
    host.click("#editProfile [data-capture-unlink]")
    host.wait_for_event("onCaptureUnlinkAccountSuccess", after=mark)
    assert entity(server, success["accessToken"])["result"]["profiles"] == []
    assert host.run_js(LINKED_ITEMS) == []


def test_an_account_without_a_password_is_deleted_after_a_sign_in_again_with_its_provider(quick, host,
                                                                                           oidc_provider):
    server = quick
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Pat Provider"})
    mark, _ = sign_in_with_provider(host, server, oidc_provider, subject, page="webViewDemo")
    signed_in = time.monotonic()
    first = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert server.factors(first["accessToken"])["password"] is False
    to_edit_profile(host)
    host.click('#editProfile [data-capture-screen="confirmAccountDeactivation"]')
    host.wait_for_screen("confirmAccountDeactivation")
    host.wait_for(lambda: host.run_js(DELETION_READY), 10, "the form, once /factors answered")
    wait_out(host, signed_in)

    # No password to stand in for a recent sign-in: refused, nothing deleted.
    mark, _ = host.mark()
    host.fill_and_submit("confirmAccountDeactivation", {})
    action = refusal(host, "#confirmAccountDeactivation form[data-capture-form=deactivateAccountForm]")
    assert "onCaptureAccountDeactivateSuccess" not in [name for name, _ in watched(host, mark)]
    assert entity(server, first["accessToken"])["stat"] == "ok", "nothing deleted"
    FOLDER.mkdir(parents=True, exist_ok=True)
    checked_at_phone_size(host, FOLDER / "confirmAccountDeactivation-sign-in-again.png", "the deletion's refusal")

    # Signed out; the provider again (the page goes there and comes back); confirmAccountDeactivation again, and the
    # deletion goes through.
    signed_out_by_the_action(server, host, action, first["accessToken"], "confirmAccountDeactivation")
    mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_event("onCaptureLoginSuccess", after=mark)
    host.wait_for_screen("confirmAccountDeactivation")
    host.wait_for(lambda: host.run_js(DELETION_READY), 10, "the form, once /factors answered")
    mark, _ = host.mark()
    host.fill_and_submit("confirmAccountDeactivation", {})
    host.wait_for_screen("accountDeactivated")
    deleted = host.wait_for_event("onCaptureAccountDeactivateSuccess", after=mark).result
    assert deleted["userData"]["email"] == email
