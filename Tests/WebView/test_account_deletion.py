"""Deleting an account in the page, with a way back (issue 31, docs/contract.md §18), in the real web view against
the real service: editProfile's "Delete my account", confirmAccountDeactivation with the password (a wrong one deletes
nothing; an account made through a provider has none to give and needs a recent sign-in instead), then
accountDeactivated with the day of the erasure, every session of the account ended and the page's own forgotten. A
later sign-in with the right proof is refused with reactivateAccount, which brings the account back with the same
proof (the password, the provider, a passkey; after the authenticator app's code when it has one), in token and in
code mode, or not, with a wrong password; and the texts in German, French and Arabic. Screenshots at phone size in
.build/screenshots/account-deletion/."""

import datetime
import json
import re

from conftest import CLIENT_ID, PASSWORD, SHOTS
from screens import delete_account, open_profile, text_of
from test_code_flow import address_behind_code, code_mode_page
from test_languages import ENGLISH, catalog
from test_screenshots import LAYOUT_CHECK
from test_social_sign_in import answer_at_provider, back_on_page, new_subject, sign_in_with_provider, tap_provider

TEXTS = catalog("en")
FOLDER = SHOTS / "account-deletion"
# The test service keeps Settings/service.json's erasureGraceDays, 30.
GRACE_DAYS = 30
DELETE_BUTTON = '#editProfile [data-capture-screen="confirmAccountDeactivation"]'
ACCOUNT_EVENTS = ("onCaptureLoginStart", "onCaptureLoginSuccess", "onCaptureLoginFailed", "onCaptureSessionCreated",
                  "onCaptureSessionEnded", "onCaptureAccountDeactivateSuccess", "onCaptureAccountReactivateSuccess",
                  "onCaptureAccountReactivateFailed", "onCaptureValidationFailed")
STORED = ("janrainCaptureToken", "janrainCaptureToken_Expires", "janrainCaptureProfileData", "janrainLastEmail")


def blur(host):
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")


def service_date(text):
    """A service date ("2026-12-28 12:00:00.000000 +0000") as a UTC datetime."""
    match = re.match(r"^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.\d+ \+0000$", text)
    assert match, text
    return datetime.datetime(*map(int, match.groups()), tzinfo=datetime.timezone.utc)


def day_in_english(text):
    """The day as the page writes it in en-US (toLocaleDateString, short month): "Dec 28, 2026"."""
    date = service_date(text)
    return "%s %d, %d" % (date.strftime("%b"), date.day, date.year)


def account_events(host, mark, transport="queue"):
    """The deletion's and sign-in's events after the mark, once everything fired so far arrived: [(name, result)]."""
    host.settle()
    host.sync()
    events = host.queue_events if transport == "queue" else host.message_events
    return [(e.name, e.result) for e in events[mark:] if e.name in ACCOUNT_EVENTS]


def stored(host):
    return host.run_js("[%s]" % ", ".join("localStorage.getItem(%s)" % json.dumps(key) for key in STORED))


def entity(server, token):
    return server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})[1]


def api_sign_in(server, email, password=PASSWORD, **extra):
    return server.post("/oauth/auth_native_traditional", dict({
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": password}, **extra))[1]


def to_confirmation(host):
    """editProfile's "Delete my account": confirmAccountDeactivation, its heading focused, its form ready."""
    host.click(DELETE_BUTTON)
    host.wait_for_screen("confirmAccountDeactivation")
    host.wait_for(lambda: host.run_js("!!document.querySelector('#confirmAccountDeactivation"
                                      " form[data-capture-ready]')"), 10, "the form, once /factors answered")
    assert host.run_js("document.activeElement.id") == "confirmAccountDeactivation_title"


def deleted_account(server):
    """An account registered through the API and deleted by its owner there: (email, the deletion's reply)."""
    email, registered = server.register(display_name="Ada")
    return email, delete_account(server, registered["access_token"])


def refused_with_the_offer(host, email, until, screen="signIn"):
    """The account's password on `screen`: onCaptureLoginFailed (403, accountDeactivated), then reactivateAccount with
    the address carried over, the password field empty and the day of the erasure."""
    mark, message_mark = host.mark()
    host.fill_and_submit(screen, {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("reactivateAccount")
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureLoginStart", "onCaptureLoginFailed"], events
    failed = events[1][1]
    assert failed["code"] == 403 and failed["error"] == "account_deactivated", failed
    assert failed["statusMessage"] == "accountDeactivated" and failed["form"] == "signInForm", failed
    assert [name for name, _ in account_events(host, message_mark, "message")] == [name for name, _ in events]
    assert host.run_js("document.activeElement.id") == "reactivateAccount_title"
    assert host.run_js("document.querySelector('#reactivateAccount input[name=signInEmailAddress]').value") == email
    assert host.run_js("document.querySelector('#reactivateAccount input[name=currentPassword]').value") == ""
    assert host.run_js("document.querySelector('#%s input[name=currentPassword]').value" % screen) == ""
    assert text_of(host, "#reactivateAccount [data-capture-reactivate-until]") \
        == TEXTS["widget.reactivateUntil"].replace("%s", day_in_english(until))
    assert host.run_js("document.querySelector('#reactivateAccount [data-capture-reactivate-until] strong')"
                       ".textContent") == day_in_english(until)
    assert host.visible_screen() == ["reactivateAccount"]
    assert text_of(host, '#reactivateAccount [data-capture-reactivate-via="password"]') is not None
    assert text_of(host, '#reactivateAccount [data-capture-reactivate-via="provider"]') is None
    return failed


def reactivate_with_password(host, password=PASSWORD):
    mark, message_mark = host.mark()
    host.fill_and_submit("reactivateAccount", {"currentPassword": password})
    return mark, message_mark


def test_deleting_the_account_ends_every_session_and_shows_the_day_it_is_erased(server, host, mailbox):
    email, registered = server.register(display_name="Ada")
    token = registered["access_token"]
    elsewhere = api_sign_in(server, email)["access_token"]
    open_profile(server, host, token)
    assert text_of(host, DELETE_BUTTON) == TEXTS["editProfile.deleteAccount"]
    to_confirmation(host)
    assert text_of(host, "#confirmAccountDeactivation [data-capture-account-grace]") \
        == TEXTS["widget.deleteGrace"].replace("%d", str(GRACE_DAYS))
    assert text_of(host, '#confirmAccountDeactivation [data-capture-deactivate="password"]') \
        == TEXTS["confirmAccountDeactivation.passwordLead"]
    assert text_of(host, '#confirmAccountDeactivation [data-capture-deactivate="none"]') is None
    field = host.run_js("(function(i){return [i.type, i.disabled, i.getAttribute('autocomplete'),"
                        " document.querySelector('label[for='+i.id+']').textContent];})"
                        "(document.getElementById('capture_deactivateAccountForm_currentPassword'))")
    assert field == ["password", False, "current-password", ENGLISH["field.currentPassword.label"]]
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "confirmAccountDeactivation.png")

    # Cancel goes back to the profile; the button opens the screen again, the password field empty.
    host.fill_and_submit_form("#confirmAccountDeactivation form", {})  # nothing typed: the service's message
    host.wait_for(lambda: text_of(host, "#capture_deactivateAccountForm_currentPassword_error"), 10, "the message")
    assert text_of(host, "#capture_deactivateAccountForm_currentPassword_error") \
        == ENGLISH["field.currentPassword.required"]
    host.click('#confirmAccountDeactivation [data-capture-screen="editProfile"]')
    host.wait_for_screen("editProfile")
    to_confirmation(host)
    assert text_of(host, "#capture_deactivateAccountForm_currentPassword_error") is None

    mails = mailbox.count()
    mark, message_mark = host.mark()
    host.fill_and_submit("confirmAccountDeactivation", {"currentPassword": PASSWORD})
    host.wait_for_screen("accountDeactivated")
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureAccountDeactivateSuccess", "onCaptureSessionEnded"], events
    assert [name for name, _ in account_events(host, message_mark, "message")] == [name for name, _ in events]
    result = events[0][1]
    assert result["status"] == "success" and result["statusMessage"] == "accountDeactivated", result
    assert result["form"] == "deactivateAccountForm" and result["screen"] == "confirmAccountDeactivation", result
    assert result["flow"] == "webViewProfile" and result["transactionId"], result
    assert result["userData"]["email"] == email and result["userData"]["displayName"] == "Ada", result
    erase_at = service_date(result["eraseAt"])
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((erase_at - now) - datetime.timedelta(days=GRACE_DAYS)) < datetime.timedelta(minutes=5), erase_at
    assert "accessToken" not in result and "password" not in json.dumps(result).lower()

    # The page's session is gone, and so is the address it would greet; the service ended every session.
    assert stored(host) == [None, None, None, None]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    for dead in (token, elsewhere):
        refused = entity(server, dead)
        assert refused["stat"] == "error" and refused["error"] == "invalid_access_token", refused
    refused = api_sign_in(server, email)
    assert refused["code"] == 403 and refused["error"] == "account_deactivated" and refused["reactivate_until"], refused
    assert mailbox.wait_for(email, host=host, after=mails), "the notice of the deletion"

    assert host.run_js("document.activeElement.id") == "accountDeactivated_title"
    assert host.run_js("document.title").startswith(TEXTS["accountDeactivated.title"])
    assert text_of(host, "#accountDeactivated [data-capture-account-erase]") \
        == TEXTS["widget.deletedUntil"].replace("%s", day_in_english(result["eraseAt"]))
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "accountDeactivated.png")

    # The page knows the deletion until it is reloaded; then the screen is sign-in's.
    host.click('#accountDeactivated [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('accountDeactivated')") is True
    host.wait_for_screen("accountDeactivated")
    host.reload()
    host.wait_for_screen("signIn")
    for name in ("accountDeactivated", "reactivateAccount", "confirmAccountDeactivation"):
        assert host.run_js("janrain.capture.ui.renderScreen(%s)" % json.dumps(name)) is True
        assert host.visible_screen() == ["signIn"], name


def test_a_wrong_password_deletes_nothing(server, host):
    email, registered = server.register()
    token = registered["access_token"]
    open_profile(server, host, token)
    to_confirmation(host)
    mark, _ = host.mark()
    host.fill_and_submit("confirmAccountDeactivation", {"currentPassword": "wrong " + PASSWORD})
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).result
    assert failed["code"] == 390 and failed["form"] == "deactivateAccountForm", failed
    assert failed["invalidFields"] == {"currentPassword": [TEXTS["field.currentPassword.wrong"]]}, failed
    assert text_of(host, "#capture_deactivateAccountForm_currentPassword_error") \
        == TEXTS["field.currentPassword.wrong"]
    assert host.run_js("document.getElementById('capture_deactivateAccountForm_currentPassword')"
                       ".getAttribute('aria-invalid')") == "true"
    assert host.run_js("document.activeElement.id") == "capture_deactivateAccountForm_currentPassword"
    assert "onCaptureAccountDeactivateSuccess" not in [name for name, _ in account_events(host, mark)]
    assert host.visible_screen() == ["confirmAccountDeactivation"]
    assert stored(host)[0] == token
    assert entity(server, token)["result"]["email"] == email, "the session goes on"
    assert api_sign_in(server, email)["stat"] == "ok", "the account is there"
    blur(host)
    host.snapshot(FOLDER / "confirmAccountDeactivation-wrong-password.png")


def test_a_sign_in_to_the_deleted_account_brings_it_back_with_the_password(server, host):
    email, deleted = deleted_account(server)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('reactivateAccount')") is True
    assert host.visible_screen() == ["signIn"], "no reactivateAccount without a refused sign-in"
    refused_with_the_offer(host, email, deleted["erase_at"])
    assert text_of(host, "#reactivateAccount button[type=submit]") == TEXTS["reactivateAccount.submit"]
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "reactivateAccount.png")

    mark, message_mark = reactivate_with_password(host)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureLoginStart", "onCaptureAccountReactivateSuccess",
                                            "onCaptureSessionCreated", "onCaptureLoginSuccess"], events
    assert [name for name, _ in account_events(host, message_mark, "message")] == [name for name, _ in events]
    assert len({result["transactionId"] for _, result in events}) == 1, "one submission"
    back = events[1][1]
    assert back["statusMessage"] == "accountReactivated" and back["authProvider"] == "capture", back
    assert back["userData"]["email"] == email and "accessToken" not in back, back
    assert success["statusMessage"] == "loggedIn" and success["userData"]["email"] == email
    host.wait_for_screen("signedIn")
    assert stored(host)[0] == success["accessToken"]
    assert entity(server, success["accessToken"])["result"]["email"] == email
    # Active again: a sign-in without reactivate goes through.
    assert api_sign_in(server, email)["stat"] == "ok"


def test_a_wrong_password_does_not_bring_it_back(server, host):
    email, deleted = deleted_account(server)
    host.load(server.page("webViewProfile"))
    host.wait_for_screen("signIn")
    refused_with_the_offer(host, email, deleted["erase_at"])
    mark, message_mark = reactivate_with_password(host, "wrong " + PASSWORD)
    host.wait_for_event("onCaptureLoginFailed", after=mark)
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureLoginStart", "onCaptureAccountReactivateFailed",
                                            "onCaptureLoginFailed"], events
    assert [name for name, _ in account_events(host, message_mark, "message")] == [name for name, _ in events]
    refused = events[1][1]
    assert refused["status"] == "error" and refused["code"] == 210 and refused["form"] == "signInForm", refused
    assert events[2][1]["transactionId"] == refused["transactionId"]
    assert host.visible_screen() == ["reactivateAccount"]
    assert text_of(host, "#reactivateAccount .capture_form_error").startswith(TEXTS["error.invalidCredentials"])
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    still = api_sign_in(server, email)
    assert still["code"] == 403 and still["error"] == "account_deactivated", still
    blur(host)
    host.snapshot(FOLDER / "reactivateAccount-wrong-password.png")

    # Another try with the right one still works; "Keep it deleted" instead leaves the offer behind.
    host.click('#reactivateAccount [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('reactivateAccount')") is True
    assert host.visible_screen() == ["signIn"], "the offer is gone"
    refused_with_the_offer(host, email, deleted["erase_at"])
    mark, _ = reactivate_with_password(host)
    host.wait_for_event("onCaptureAccountReactivateSuccess", after=mark)
    host.wait_for_screen("editProfile")


def test_in_code_mode_bringing_it_back_hands_the_host_a_one_time_code(server, host):
    email, deleted = deleted_account(server)
    page, verifier = code_mode_page(server)
    host.load(page)
    host.wait_for_screen("signIn")
    refused_with_the_offer(host, email, deleted["erase_at"])
    mark, _ = reactivate_with_password(host)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureLoginStart", "onCaptureAccountReactivateSuccess",
                                            "onCaptureLoginSuccess"], events
    assert "accessToken" not in events[1][1]
    assert address_behind_code(server, host, success, page, verifier) == email
    assert api_sign_in(server, email)["stat"] == "ok"


def test_with_an_authenticator_app_the_account_comes_back_once_its_code_is_given(server, host):
    email, registered = server.register()
    app, _ = server.set_up_authenticator(registered["access_token"])
    deleted = delete_account(server, registered["access_token"])
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    refused_with_the_offer(host, email, deleted["erase_at"])
    mark, _ = reactivate_with_password(host)
    host.wait_for_screen("twoFactor")
    assert [name for name, _ in account_events(host, mark)] == ["onCaptureLoginStart", "onCaptureLoginFailed"]
    still = api_sign_in(server, email)
    assert still["error"] == "account_deactivated", "not back before the code: %s" % still
    mark, _ = host.mark()
    host.fill_and_submit_form("#twoFactor form[data-capture-factor=twoFactor]", {"code": app.fresh()})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    events = account_events(host, mark)
    assert [name for name, _ in events] == ["onCaptureLoginStart", "onCaptureAccountReactivateSuccess",
                                            "onCaptureSessionCreated", "onCaptureLoginSuccess"], events
    assert entity(server, success["accessToken"])["result"]["email"] == email
    assert api_sign_in(server, email)["code"] == 270, "active again, and still asking for the app's code"


def test_a_passkey_sign_in_to_the_deleted_account_brings_it_back_with_the_passkey(server, host, platform):
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator, name="Phone")
    deleted = delete_account(server, registered["access_token"])
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.click("#signIn [data-capture-passkey-sign-in]")
    platform.answer(after=mark)
    host.wait_for_screen("reactivateAccount")
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["statusMessage"] == "accountDeactivated" and failed["form"] == "passkey", failed
    assert text_of(host, '#reactivateAccount [data-capture-reactivate-via="passkey"] button') \
        == TEXTS["reactivateAccount.passkey"]
    assert text_of(host, '#reactivateAccount [data-capture-reactivate-via="password"]') is None
    assert text_of(host, "#reactivateAccount [data-capture-reactivate-until] strong") \
        == day_in_english(deleted["erase_at"])
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "reactivateAccount-passkey.png")

    mark, _ = host.mark()
    host.click('#reactivateAccount [data-capture-passkey-sign-in]')
    platform.answer(after=mark)
    outcome = host.wait_for(lambda: next((e for e in host.queue_events[mark:] if e.name in (
        "onCaptureLoginSuccess", "onCaptureAccountReactivateFailed")), None), 15, "the passkey's sign-in")
    assert outcome.name == "onCaptureLoginSuccess", "refused: %s" % outcome.result
    success = outcome.result
    events = [name for name, _ in account_events(host, mark)]
    assert events == ["onCaptureLoginStart", "onCaptureAccountReactivateSuccess", "onCaptureSessionCreated",
                      "onCaptureLoginSuccess"], events
    assert entity(server, success["accessToken"])["result"]["email"] == email
    assert api_sign_in(server, email)["stat"] == "ok"


def test_an_account_made_with_a_provider_is_deleted_without_a_password_and_comes_back_through_it(
        server, host, oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Pat Provider"})
    mark, _ = sign_in_with_provider(host, server, oidc_provider, subject, page="webViewDemo")
    first = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert server.factors(first["accessToken"])["password"] is False
    host.click('#signedIn [data-capture-screen="editProfile"]')
    host.wait_for_screen("editProfile")
    to_confirmation(host)
    # No password to ask for: the other explanation, and no field.
    assert text_of(host, '#confirmAccountDeactivation [data-capture-deactivate="none"]') \
        == TEXTS["confirmAccountDeactivation.noPasswordLead"]
    assert text_of(host, '#confirmAccountDeactivation [data-capture-deactivate="password"]') is None
    assert host.run_js("document.querySelector('#confirmAccountDeactivation [data-capture-field=currentPassword]')"
                       ".hidden") is True
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "confirmAccountDeactivation-no-password.png")

    # The sign-in is recent, which is all the service asks of an account without a password (an older one is asked to
    # sign in again first: test_step_up.py).
    mark, _ = host.mark()
    host.fill_and_submit("confirmAccountDeactivation", {})
    host.wait_for_screen("accountDeactivated")
    deleted = host.wait_for_event("onCaptureAccountDeactivateSuccess", after=mark).result
    assert deleted["userData"]["email"] == email
    # What the person granted the app at the provider is taken back there: the deletion revoked the sign-in's refresh
    # token (in the background, so within a few seconds).
    host.wait_for(lambda: oidc_provider.live_refresh_tokens(subject) == [], 10, "the provider's grant revoked")

    # Signing in with the provider again: refused, with a way back through the same provider.
    host.click('#accountDeactivated [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_screen("reactivateAccount")
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["statusMessage"] == "accountDeactivated" and failed["authProvider"] == "mock", failed
    button = '#reactivateAccount [data-capture-provider="mock"][data-capture-reactivate]'
    assert text_of(host, button) == TEXTS["widget.reactivateWith"].replace("%s", "Mock ID")
    assert text_of(host, '#reactivateAccount [data-capture-reactivate-via="password"]') is None
    assert text_of(host, "#reactivateAccount [data-capture-reactivate-until] strong") \
        == day_in_english(deleted["eraseAt"])
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "reactivateAccount-provider.png")

    mark, _ = host.mark()
    host.click(button)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    host.settle()
    host.sync()
    names = [e.name for e in host.queue_events[mark:] if e.name in ACCOUNT_EVENTS + ("onProviderLoginStart",)]
    assert names == ["onProviderLoginStart", "onCaptureLoginStart", "onCaptureAccountReactivateSuccess",
                     "onCaptureSessionCreated", "onCaptureLoginSuccess"], names
    start = host.wait_for_event("onProviderLoginStart", after=mark).result
    assert start["purpose"] == "reactivate" and start["provider"] == "mock", start
    back = host.wait_for_event("onCaptureAccountReactivateSuccess", after=mark).result
    assert back["authProvider"] == "mock" and back["userData"]["email"] == email, back
    assert success["authProvider"] == "mock" and success["userData"]["email"] == email
    assert entity(server, success["accessToken"])["result"]["email"] == email
    host.wait_for_screen("signedIn")


def test_the_confirmation_and_the_offer_speak_the_pages_language(server, host):
    """German, French and Arabic: the screens' texts, the number of days in its plural form (Arabic's 30 takes the
    "many" form), and the day of the erasure as the language writes it."""
    plural = {"de": "widget.deleteGrace", "fr": "widget.deleteGrace", "ar": "widget.deleteGrace.many"}
    for locale, tag in (("de-DE", "de"), ("fr-FR", "fr"), ("ar-SA", "ar")):
        texts = catalog(tag)
        _, registered = server.register()
        host.load(server.page("webViewProfile", session="pending", locale=locale))
        host.wait_for_event("onCaptureRenderComplete")
        mark, _ = host.mark()
        host.run_js("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(registered["access_token"]))
        host.wait_for_event("onCaptureSessionFound", after=mark)
        host.wait_for_screen("editProfile")
        assert text_of(host, DELETE_BUTTON) == texts["editProfile.deleteAccount"], locale
        to_confirmation(host)
        assert text_of(host, "#confirmAccountDeactivation_title") == texts["confirmAccountDeactivation.title"], locale
        assert text_of(host, "#confirmAccountDeactivation [data-capture-account-grace]") \
            == texts[plural[tag]].replace("%d", str(GRACE_DAYS)), locale
        mark, _ = host.mark()
        host.fill_and_submit("confirmAccountDeactivation", {"currentPassword": PASSWORD})
        host.wait_for_screen("accountDeactivated")
        erase_at = host.wait_for_event("onCaptureAccountDeactivateSuccess", after=mark).result["eraseAt"]
        written = host.run_js("document.querySelector('#accountDeactivated [data-capture-account-erase] strong')"
                              ".textContent")
        date = service_date(erase_at)
        expected = host.run_js("new Date(Date.UTC(%d, %d, %d, 12)).toLocaleDateString(document.documentElement.lang,"
                               " {year: 'numeric', month: 'short', day: 'numeric'})"
                               % (date.year, date.month - 1, date.day))
        assert written == expected, (locale, written, expected)
        assert text_of(host, "#accountDeactivated [data-capture-account-erase]") \
            == re.sub(r"\s+", " ", texts["widget.deletedUntil"].replace("%s", written)), locale
