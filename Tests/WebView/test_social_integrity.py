"""Social sign-in integrity (issue 26, docs/contract.md §15), in the real web view against the real provider (oidc-provider-mock):
a provider's answer belongs to the browser that started the sign-in (its state cookie) and its one-time token to the
page that started it (the S256 challenge at the start, the verifier at every redemption); an address counts only when
the provider vouches for it; and the first proof of a mailbox ends the provider links nobody vouched for (the
pre-hijack: someone made the account with another person's address through a provider that did not confirm it)."""

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import CLIENT_ID
from test_code_flow import pkce_pair
from test_social_failures import NoRedirects, someone_elses_answer, stored_for
from test_social_handoff import APP_RETURN, SystemBrowser, complete, fragment, tap_for_handoff
from test_social_linking import LINK_BUTTON, LINKED_ITEMS, link_with_provider, notice, open_profile
from test_social_sign_in import (SHOTS, answer_at_provider, back_on_page, entity, new_subject, sign_in_with_provider,
                                 social_events, tap_provider)

NEW_PASSWORD = "the owner's own passphrase"
RESET_SUBJECT = "password reset"
NOTICE_SUBJECT = "Sign-ins removed from your account"
# Events that would mean the page took a provider's answer, or someone was signed in or registered.
SIGN_IN_EVENTS = ("onProviderLoginSuccess", "onProviderLoginError", "onCaptureLoginStart", "onCaptureLoginSuccess",
                  "onCaptureRegistrationSuccess", "onCaptureSessionCreated")


def location(request):
    """Where the service (or the provider) redirects a request to, without following it; with the response headers."""
    try:
        urllib.request.build_opener(NoRedirects).open(request, timeout=15)
    except urllib.error.HTTPError as redirect:
        assert redirect.code in (302, 303), (redirect.code, redirect.read()[:300])
        return redirect.headers["Location"], redirect.headers
    raise AssertionError("no redirect from %s" % request.full_url)


def social_token(server, subject, challenge):
    """A whole social sign-in as a starter that is no web view does it (urllib): the start with its own S256
    challenge, the provider's form answered as `subject`, the callback with the start's state cookie. Returns the
    address the service finally sends that browser to: the page, with the one-time token in the fragment."""
    query = {"client_id": CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US", "response_type": "token",
             "redirect_uri": server.page("webViewSignIn"), "code_challenge": challenge,
             "code_challenge_method": "S256"}
    authorize, headers = location(urllib.request.Request(
        server.url("/social/mock/start?" + urllib.parse.urlencode(query))))
    cookie = headers["Set-Cookie"].split(";")[0]
    assert cookie.startswith("capture_social_state="), headers["Set-Cookie"]
    callback, _ = location(urllib.request.Request(
        authorize, data=urllib.parse.urlencode({"sub": subject}).encode(), method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"}))
    assert callback.startswith(server.url("/social/callback?")), callback
    returned, _ = location(urllib.request.Request(callback, headers={"Cookie": cookie}))
    assert "capture_social_token=" in returned, returned
    return returned


def redeem(server, token, verifier=None):
    """POST /oauth/auth_native with the one-time token (and a verifier, if given), as the page or an SDK does."""
    fields = {"client_id": CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US", "response_type": "token",
              "token": token, "thin_registration": "true"}
    if verifier is not None:
        fields["code_verifier"] = verifier
    return server.post("/oauth/auth_native", fields)[:2]


def identities_of(store, user_id):
    return store.rows("SELECT provider, subject FROM identities WHERE userID = ?",
                      "SELECT provider, subject FROM identities WHERE user_id = ?", user_id)


def assert_refused(status, reply):
    assert status == 200 and reply.get("stat") == "error" and reply.get("code") == 200, reply
    assert "access_token" not in reply and "token" in reply.get("error_description", ""), reply


def test_a_provider_answer_opened_in_a_browser_that_never_started_it_ends_on_our_page(
        server, make_host, oidc_provider, store):
    """Login CSRF by link: the attacker signs in at the provider as themselves and sends the victim the provider's
    answer (our callback with the attacker's code and state). The victim's web view has no state cookie."""
    attacker = new_subject()
    attacker_email = "%s@example.com" % attacker
    oidc_provider.set_user(attacker, {"email": attacker_email, "email_verified": True, "name": "Mallory"})
    planted, _ = someone_elses_answer(server, attacker)

    victim = make_host()
    victim.load(planted)
    rendered = victim.wait_for_event("onCaptureRenderComplete").result
    assert rendered["status"] == "error" and rendered["error"] == "socialOtherBrowser", rendered
    assert rendered["httpStatus"] == 400
    victim.settle()
    # Our own page, not a redirect: the address is still the callback's, and it says what happened in plain words.
    assert victim.view.get_uri() == planted
    assert victim.run_js("document.title") == "Sign-in not finished"
    text = victim.run_js("document.querySelector('main').innerText")
    assert "started in another browser" in text, text
    queue_names, message_names = social_events(victim, 0, 0)
    assert queue_names == message_names == ["onCaptureRenderComplete"], (queue_names, message_names)
    assert victim.token_urls == []
    everything = json.dumps([event.arguments for event in victim.queue_events + victim.message_events])
    assert "accessToken" not in everything and "capture_social_token" not in everything
    # Nothing was made or linked for the attacker, and the victim's web view holds no session or token.
    assert stored_for(store, attacker, attacker_email) == ([], [])
    assert victim.run_js("JSON.stringify(localStorage) + JSON.stringify(sessionStorage)") == "{}{}"
    # At phone width, as the person sees it (screenshots/ is build output).
    assert victim.run_js("document.documentElement.scrollWidth <= document.documentElement.clientWidth") is True
    SHOTS.mkdir(exist_ok=True)
    victim.snapshot(SHOTS / "socialOtherBrowser.png")


def test_a_token_link_opened_in_a_page_that_never_started_a_sign_in_is_dropped_unspent(
        server, host, oidc_provider, store):
    """Someone's live one-time token planted in a link to the page: the page holds no verifier, so it takes nothing;
    the token stays for the one who started the sign-in, who redeems it with the verifier."""
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Starter"})
    verifier, challenge = pkce_pair()
    returned = social_token(server, subject, challenge)
    answer = fragment(returned)
    assert answer["provider"] == "mock"

    link = server.page("webViewSignIn") + "#" + urllib.parse.urlencode(
        {"capture_social_token": answer["capture_social_token"], "provider": "mock"})
    host.load(link)
    host.wait_for_event("onCaptureRenderComplete")
    host.wait_for_screen("signIn")
    queue_names, message_names = social_events(host, 0, 0)
    for name in SIGN_IN_EVENTS:
        assert name not in queue_names and name not in message_names, (queue_names, message_names)
    assert host.token_urls == []
    # The fragment is gone from the address bar, silently: no notice.
    assert "#" not in host.run_js("location.href") and host.run_js("location.hash") == ""
    assert notice(host) is None
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert stored_for(store, subject, email) == ([], [])

    # Unspent: the starter redeems it with the verifier (thin registration, as the provider vouches).
    status, reply = redeem(server, answer["capture_social_token"], verifier)
    assert status == 200 and reply.get("stat") == "ok" and reply.get("access_token"), reply
    assert entity(server, reply["access_token"])["email"] == email


def test_a_hand_off_token_is_refused_to_a_client_without_the_verifier(server, host, make_host, oidc_provider):
    """The system-browser hand-off's token travels through the app's return address, where another app registered
    for the same scheme could read it: without the page's verifier it is worth nothing, and trying spends nothing."""
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Handed"})
    host.load(server.page("webViewSignIn", app_return_uri=APP_RETURN))
    host.wait_for_screen("signIn")
    handed = tap_for_handoff(host)
    returned = SystemBrowser(make_host).sign_in(handed["url"], oidc_provider, subject)
    token = fragment(returned)["capture_social_token"]

    # Another client that read the return address: no verifier, a made-up one, an empty one.
    assert_refused(*redeem(server, token))
    assert_refused(*redeem(server, token, pkce_pair()[0]))
    assert_refused(*redeem(server, token, ""))
    status, reply, _ = server.post("/oauth/register_native", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "socialRegistrationForm", "locale": "en-US",
        "response_type": "token", "token": token, "emailAddress": "thief@example.com"})
    assert reply.get("stat") == "error" and "access_token" not in reply, reply

    # The page that started it still finishes it with its verifier.
    queue_mark, _ = host.mark()
    complete(host, returned)
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_screen("signedIn")
    assert success["authProvider"] == "mock" and success["userData"]["email"] == email
    assert entity(server, success["accessToken"])["email"] == email


@pytest.mark.parametrize("claims", [{}, {"email_verified": False}, {"email_verified": "false"}],
                         ids=["no_email_verified", "email_verified_false", "email_verified_string_false"])
def test_an_address_the_provider_does_not_vouch_for_finds_no_account_and_makes_none(
        server, host, oidc_provider, store, claims):
    """The provider names the victim's address but does not confirm it: no merge screen offering the victim's
    account, no account made from it, and the form does not offer it."""
    victim_email, victim = server.register(display_name="Victim")
    victim_id = entity(server, victim["access_token"])["uuid"]
    subject = new_subject()
    oidc_provider.set_user(subject, dict(claims, email=victim_email, name="Not The Victim"))
    queue_mark, message_mark = sign_in_with_provider(host, server, oidc_provider, subject)
    host.wait_for_screen("socialRegistration")
    form = "document.querySelector('#socialRegistration form')"
    assert host.run_js(form + ".elements.emailAddress.value") == ""
    assert host.run_js(form + ".elements.displayName.value") == "Not The Victim", "the rest is still prefilled"
    assert victim_email not in host.run_js("document.body.innerText")
    queue_names, message_names = social_events(host, queue_mark, message_mark)
    assert queue_names == message_names
    assert "onProviderLoginSuccess" in queue_names
    for name in ("onCaptureLoginSuccess", "onCaptureRegistrationSuccess", "onCaptureSessionCreated"):
        assert name not in queue_names, queue_names
    shown = [e.result.get("screen") for e in host.queue_events[queue_mark:]
             if e.name == "onCaptureScreenShow" and isinstance(e.result, dict)]
    assert "mergeAccounts" not in shown and shown[-1] == "socialRegistration", shown

    # No thin registration, no link: the victim's account is the only one with the address, and has no link.
    users, links = stored_for(store, subject, victim_email)
    assert [row[0] for row in users] == [victim_id] and links == []
    assert identities_of(store, victim_id) == []
    assert entity(server, victim["access_token"])["profiles"] == []


def forgot_password_in_the_page(host, server, mailbox, email, new_password):
    """The owner's forgot-password path in the page: the code mailed to `email`, typed on resetPassword."""
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(document.querySelector('#signIn [name=signInEmailAddress]').value = %s, true)" % json.dumps(email))
    host.click('#signIn [data-capture-screen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    inbox_mark = mailbox.count()
    host.fill_and_submit("forgotPassword", {})
    host.wait_for_screen("forgotPasswordSuccess")
    message = mailbox.wait_for(email, host, after=inbox_mark, subject=RESET_SUBJECT)
    host.click('#forgotPasswordSuccess [data-capture-screen="resetPassword"]')
    host.wait_for_screen("resetPassword")
    notices_from = mailbox.count()
    host.fill_and_submit("resetPassword", {"verification_code": message.code,
                                           "newPassword": new_password, "newPasswordConfirm": new_password})
    host.wait_for_screen("resetPasswordSuccess")
    return notices_from


def test_a_pre_hijacked_account_is_recovered_by_the_first_proof_of_the_mailbox(
        server, make_host, oidc_provider, mailbox, store):
    """The attacker makes an account with the victim's address before the victim has one, through a provider that
    does not confirm it. The victim's first reset code proves the mailbox: the attacker's link and sessions end, the
    victim is told, and the attacker's provider sign-in no longer reaches the account."""
    victim_email = "victim-%s@example.com" % new_subject()[-10:]
    attacker = new_subject()
    oidc_provider.set_user(attacker, {"email": victim_email, "name": "Mallory"})

    # Host A: the attacker signs up through the provider, typing the victim's address on socialRegistration.
    mallory = make_host()
    queue_mark, _ = sign_in_with_provider(mallory, server, oidc_provider, attacker)
    mallory.wait_for_screen("socialRegistration")
    assert mallory.run_js("document.querySelector('#socialRegistration form').elements.emailAddress.value") == ""
    mallory.fill_and_submit("socialRegistration", {"emailAddress": victim_email})
    made = mallory.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert made["statusMessage"] == "registered" and made["userData"]["email"] == victim_email
    record = entity(server, made["accessToken"])
    assert record["emailVerified"] is None, "an address typed in is not proven"
    assert [p["identifier"] for p in record["profiles"]] == ["mock:" + attacker]

    # Host B: the owner of the mailbox resets the password with the code mailed there.
    owner = make_host()
    notices_from = forgot_password_in_the_page(owner, server, mailbox, victim_email, NEW_PASSWORD)

    # The link nobody vouched for is gone, with an audit row; every session of the account ended; the owner is told.
    assert identities_of(store, record["uuid"]) == []
    status, reply, _ = server.post("/entity", {"access_token": made["accessToken"], "client_id": CLIENT_ID})
    assert reply["stat"] == "error", "the attacker's session ended"
    told = mailbox.wait_for(victim_email, owner, after=notices_from, subject=NOTICE_SUBJECT)
    assert "Mock ID" in told.text, told.text
    audit = store.rows("SELECT action, detail FROM audit_log WHERE target = ?",
                       "SELECT action, detail FROM audit_log WHERE target = ?", record["uuid"])
    assert [row[0] for row in audit].count("identity.unlink") == 1, audit
    assert "mock:" + attacker in [row[1] for row in audit if row[0] == "identity.unlink"][0]

    # Host A again: the attacker's provider sign-in now reaches no account; the form asks for an address.
    mallory.run_js("(janrain.capture.ui.endCaptureSession(), true)")
    mallory.wait_for(lambda: mallory.visible_screen()[0] in ("signIn", "returnTraditional"), 10, "the sign-in screen")
    queue_mark, message_mark = mallory.mark()
    tap_provider(mallory, mallory.visible_screen()[0])
    answer_at_provider(mallory, oidc_provider, attacker)
    back_on_page(mallory, server)
    mallory.wait_for_screen("socialRegistration")
    names, _ = social_events(mallory, queue_mark, message_mark)
    assert "onCaptureLoginSuccess" not in names and "onCaptureSessionCreated" not in names, names
    assert mallory.run_js("janrain.capture.ui.hasActiveSession()") is False
    # And typing the address again only finds it taken.
    mallory.fill_and_submit("socialRegistration", {"emailAddress": victim_email})
    mallory.wait_for_event("onCaptureRegistrationFailed", after=queue_mark)
    assert "onCaptureLoginSuccess" not in mallory.names(mallory.queue_events[queue_mark:])

    # The owner signs in with the new password to an account that is theirs alone, its address proven.
    status, signed_in, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": victim_email, "currentPassword": NEW_PASSWORD})
    assert signed_in.get("stat") == "ok", signed_in
    mine = entity(server, signed_in["access_token"])
    assert mine["uuid"] == record["uuid"] and mine["profiles"] == [] and mine["emailVerified"]


def test_linking_a_provider_waits_for_a_proven_address(server, host, oidc_provider, mailbox):
    """An account whose address is not proven links nothing (a link is how a pre-hijacked account would keep its
    intruder): the page says so without a provider round trip, and the service refuses a token sent anyway; once the
    code registration mailed is used, the same button links."""
    inbox_mark = mailbox.count()
    email, registered = server.register(display_name="Not Yet")
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": "%s@provider.example" % subject, "email_verified": True})
    open_profile(server, host, registered["access_token"])
    queue_mark, _ = host.mark()
    host.click(LINK_BUTTON)
    host.wait_for(lambda: notice(host) is not None, 10, "the page's notice")
    assert notice(host)["role"] == "alert" and "Confirm your email address first" in notice(host)["text"], notice(host)
    assert host.view.get_uri().startswith(server.base + "/flows/"), "the page stayed"
    assert "onProviderLoginStart" not in host.names(host.queue_events[queue_mark:])

    verifier, challenge = pkce_pair()
    returned = social_token(server, subject, challenge)
    token = fragment(returned)["capture_social_token"]
    status, refused, _ = server.post("/oauth/link_account_native", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US", "token": token, "code_verifier": verifier,
        "access_token": registered["access_token"]})
    assert refused.get("code") == 403 and "confirm this account's email address" in refused["error_description"], refused
    assert host.run_js(LINKED_ITEMS) == []
    assert entity(server, registered["access_token"])["profiles"] == []

    message = mailbox.wait_for(email, host, after=inbox_mark, subject="confirm your email")
    status, reply, _ = server.post("/access/useVerificationCode", {
        "verification_code": message.code, "email": email, "client_id": CLIENT_ID, "locale": "en-US"})
    assert reply.get("stat") == "ok", reply
    open_profile(server, host, registered["access_token"])
    queue_mark, _ = link_with_provider(server, host, oidc_provider, subject)
    linked = host.wait_for_event("onCaptureLinkAccountSuccess", after=queue_mark).result
    assert linked["provider"] == "mock"
    assert [p["identifier"] for p in entity(server, registered["access_token"])["profiles"]] == ["mock:" + subject]
