"""Social sign-in in redirect mode (issue 8), in the real web view against a real OpenID Connect provider
(oidc-provider-mock on loopback): the host taps the provider's button, the provider's own sign-in page loads in the
same web view (no popup), the test answers it there as a person would, and the provider, the service's callback and
the page finish the sign-in. Events are checked on both bridge transports and the tokens against /entity."""

import json
import urllib.parse
import uuid

from conftest import CLIENT_ID, PASSWORD, SHOTS
from test_code_flow import pkce_pair
from test_screenshots import LAYOUT_CHECK

BUTTON = '[data-capture-provider="mock"]'


def new_subject():
    return "webview-%s" % uuid.uuid4().hex[:10]


def tap_provider(host, screen="signIn"):
    """Taps the provider's button on `screen` and waits for the provider's own sign-in form in the web view."""
    host.click("#%s %s" % (screen, BUTTON))
    return host


def at_provider(host, provider, timeout=20):
    """Waits until the web view shows the provider's authorization form (its page, its origin)."""
    def ready():
        if not (host.view.get_uri() or "").startswith(provider.issuer + "/"):
            return False
        try:
            return host.run_js("!!document.querySelector('form input[name=sub]')", timeout=3)
        except AssertionError:
            return False  # still loading
    host.wait_for(ready, timeout, "the provider's sign-in form")


def answer_at_provider(host, provider, subject=None, deny=False):
    """On the provider's page: type the subject and submit (Authorize), or press Deny."""
    at_provider(host, provider)
    if deny:
        host.run_js("(document.querySelector('button[name=action][value=deny]').click(), true)")
    else:
        host.run_js("(function(s){var i=document.querySelector('form input[name=sub]');i.value=s;"
                    "i.form.submit();return true;})(%s)" % json.dumps(subject))


def back_on_page(host, server, timeout=20):
    host.wait_for(lambda: (host.view.get_uri() or "").startswith(server.base + "/flows/"), timeout, "the page again")


def sign_in_with_provider(host, server, provider, subject, page="webViewSignIn"):
    """A fresh sign-in page: the provider's button, the provider's form answered as `subject`, back on the page.
    Returns the event marks from before the tap."""
    host.load(server.page(page))
    host.wait_for_screen("signIn")
    marks = host.mark()
    tap_provider(host)
    answer_at_provider(host, provider, subject)
    back_on_page(host, server)
    return marks


def social_events(host, queue_mark, message_mark):
    """The events after the marks on each transport (names), once everything fired so far arrived."""
    host.settle()
    host.sync()
    return (host.names(host.queue_events[queue_mark:]), host.names(host.message_events[message_mark:]))


def entity(server, token):
    status, reply, _ = server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})
    assert status == 200 and reply["stat"] == "ok", reply
    return reply["result"]



def sign_out_and_back_in_with_the_provider(host, server, oidc_provider, subject):
    """Ends the page's session, then signs in again with the provider alone; returns onCaptureLoginSuccess's result."""
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    queue_mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    return host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result

def test_sign_in_screens_list_the_provider_as_a_real_button(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    buttons = host.run_js("""(function(){var out=[];var b=document.querySelectorAll('[data-capture-provider]');
        for(var i=0;i<b.length;i++){var r=b[i].getBoundingClientRect();
        out.push({screen:b[i].closest('.capture_screen').id,tag:b[i].tagName,type:b[i].type,
                  name:b[i].textContent.trim(),height:r.height,width:r.width});}return out;})()""")
    assert [b["screen"] for b in buttons] == ["signIn", "returnTraditional", "traditionalRegistration"]
    visible = buttons[0]
    assert visible["tag"] == "BUTTON" and visible["type"] == "button"
    assert visible["name"] == "Continue with Mock ID"
    assert visible["height"] >= 44 and visible["width"] >= 375 * 0.8
    assert host.run_js("janrain.settings.providers") == ["mock"]
    assert host.run_js("janrain.settings.providerNames") == {"mock": "Mock ID"}
    assert host.run_js("janrain.settings.capture.thinRegistration") is True
    assert host.run_js(LAYOUT_CHECK) == []
    # Nothing secret in what the page was given about providers.
    settings = json.dumps(host.run_js("janrain.settings"))
    assert "webview-s3cret" not in settings and "capture-bridge-webview" not in settings
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "signIn-social.png")


def test_a_new_user_signs_up_through_the_provider_then_comes_back(server, host, oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "given_name": "Zoë",
                                     "family_name": "Ångström", "name": "Zoë Å"})
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, message_mark = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    posted = host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result
    host.wait_for_screen("signedIn")
    queue_names, message_names = social_events(host, queue_mark, message_mark)

    # onProviderLoginStart left the page before it went to the provider, on both transports.
    for names in (queue_names, message_names):
        assert names.index("onProviderLoginStart") < names.index("onProviderLoginSuccess") \
            < names.index("onCaptureLoginStart") < names.index("onCaptureRegistrationSuccess") \
            < names.index("onCaptureLoginSuccess"), names
        assert "onProviderLoginError" not in names and "onCaptureLoginFailed" not in names
    assert queue_names == message_names
    start = next(e for e in host.queue_events[queue_mark:] if e.name == "onProviderLoginStart").result
    assert start["provider"] == "mock" and start["flow"] == "webViewSignIn"
    assert posted == queued
    assert queued["authProvider"] == "mock" and queued["statusMessage"] == "registered"
    assert queued["oneTime"] is False and queued["accessToken"]
    assert queued["userData"]["email"] == email and queued["userData"]["givenName"] == "Zoë"
    # The one-time token left the address bar at once; the legacy token URL carried the access token.
    assert "#" not in host.view.get_uri() and "capture_social" not in host.view.get_uri()
    assert host.run_js("location.hash") == ""
    assert host.token_urls == [queued["accessToken"]]
    record = entity(server, queued["accessToken"])
    assert record["email"] == email and record["familyName"] == "Ångström"

    # Signed out, the same provider account signs in to the same account.
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    queue_mark, message_mark = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    again = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark)
    queue_names, _ = social_events(host, queue_mark, message_mark)
    assert "onCaptureRegistrationSuccess" not in queue_names
    assert again["statusMessage"] == "loggedIn" and again["authProvider"] == "mock"
    assert again["userData"]["uuid"] == queued["userData"]["uuid"]
    assert entity(server, again["accessToken"])["uuid"] == record["uuid"]


def test_a_profile_without_an_address_gets_the_social_registration_form(server, host, oidc_provider):
    subject = new_subject()
    oidc_provider.set_user(subject, {"name": "No Mail", "given_name": "Nomi"})
    queue_mark, message_mark = sign_in_with_provider(host, server, oidc_provider, subject)
    host.wait_for_screen("socialRegistration")
    assert host.run_js("location.hash") == ""
    form = "document.querySelector('#socialRegistration form')"
    assert host.run_js(form + ".getAttribute('name')") == "socialRegistrationForm"
    # Prefilled from the provider's profile (prereg_fields); the address is what is missing.
    assert host.run_js(form + ".elements.displayName.value") == "No Mail"
    assert host.run_js(form + ".elements.firstName.value") == "Nomi"
    assert host.run_js(form + ".elements.emailAddress.value") == ""
    assert "Mock ID" in host.run_js("document.querySelector('#socialRegistration .capture_lead').textContent")
    host.run_js("(document.activeElement && document.activeElement.blur(), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "socialRegistration.png")

    # An invalid address is refused next to its field; a good one makes the account, linked to the provider.
    host.fill_and_submit("socialRegistration", {"emailAddress": "not-an-address"})
    host.wait_for_event("onCaptureRegistrationFailed", after=queue_mark)
    assert host.visible_screen() == ["socialRegistration"]
    email = "%s@example.com" % subject
    host.fill_and_submit("socialRegistration", {"emailAddress": email})
    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark)
    host.wait_for_screen("signedIn")
    queue_names, message_names = social_events(host, queue_mark, message_mark)
    assert queue_names == message_names
    assert queue_names.index("onProviderLoginSuccess") < queue_names.index("onCaptureRegistrationStart") \
        < queue_names.index("onCaptureRegistrationSuccess") < queue_names.index("onCaptureLoginSuccess")
    assert queued["authProvider"] == "mock" and queued["statusMessage"] == "registered"
    assert entity(server, queued["accessToken"])["email"] == email

    # The provider account is now linked: the next sign-in needs no form.
    again = sign_out_and_back_in_with_the_provider(host, server, oidc_provider, subject)
    assert again["userData"]["email"] == email and again["statusMessage"] == "loggedIn"


def test_an_address_with_an_account_is_merged_after_its_password(server, host, oidc_provider):
    email, _ = server.register(display_name="Ada")
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Ada at Mock"})
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, message_mark = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_screen("mergeAccounts")
    text = host.run_js("document.getElementById('mergeAccounts').textContent")
    assert email in text and "Mock ID" in text and "password" in text
    assert host.run_js(LAYOUT_CHECK) == []
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "mergeAccounts.png")

    host.click('#mergeAccounts [data-capture-screen="traditionalAuthenticateMerge"]')
    host.wait_for_screen("traditionalAuthenticateMerge")
    assert host.run_js("document.querySelector('#traditionalAuthenticateMerge form').getAttribute('name')") \
        == "signInForm"
    assert host.run_js("document.querySelector('#traditionalAuthenticateMerge input[name=signInEmailAddress]')"
                       ".value") == email
    host.run_js("(document.activeElement && document.activeElement.blur(), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "traditionalAuthenticateMerge.png")

    # A wrong password links nothing; the right one signs in and links.
    host.fill_and_submit("traditionalAuthenticateMerge", {"currentPassword": "wrong " + PASSWORD})
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert failed["code"] == 210
    host.fill_and_submit("traditionalAuthenticateMerge", {"currentPassword": PASSWORD})
    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark)
    host.wait_for_screen("signedIn")
    assert queued["authProvider"] == "mock" and queued["userData"]["email"] == email
    assert entity(server, queued["accessToken"])["email"] == email

    # Linked: the provider alone now signs in to Ada's account.
    again = sign_out_and_back_in_with_the_provider(host, server, oidc_provider, subject)
    assert again["userData"]["email"] == email and again["authProvider"] == "mock"


def test_cancelling_at_the_provider_comes_back_gently(server, host, oidc_provider):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, message_mark = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, deny=True)
    back_on_page(host, server)
    error = host.wait_for_event("onProviderLoginError", after=queue_mark).result
    posted = host.wait_for_event("onProviderLoginError", "message", after=message_mark).result
    assert posted == error
    assert error["status"] == "error" and error["statusMessage"] == "cancelled" and error["provider"] == "mock"
    host.wait_for_screen("signIn")
    assert host.run_js("location.hash") == ""
    notice = host.run_js("(function(n){return {text:n.textContent,role:n.getAttribute('role'),"
                         "hidden:n.hidden,cls:n.className};})(document.getElementById('capture_notice'))")
    assert not notice["hidden"] and "cancelled" in notice["text"] and "Mock ID" in notice["text"]
    assert notice["role"] == "status" and "capture_notice_info" in notice["cls"], "cancelling is no error"
    queue_names, _ = social_events(host, queue_mark, message_mark)
    assert "onCaptureLoginSuccess" not in queue_names and "onCaptureLoginStart" not in queue_names
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "signIn-social-cancelled.png")


def test_a_provider_error_ends_on_the_sign_in_screen_with_a_reason(server, host, oidc_provider):
    """The provider answers with an error (RFC 6749 §4.1.2.1). The mock cannot be told to fail, so the host plays
    the provider's error redirect: from the provider's page, to our callback with the sign-in's real state."""
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, message_mark = host.mark()
    tap_provider(host)
    at_provider(host, oidc_provider)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(host.view.get_uri()).query)
    callback = query["redirect_uri"][0]
    assert callback == server.base + "/social/callback"
    host.load(callback + "?" + urllib.parse.urlencode(
        {"error": "server_error", "error_description": "down for maintenance", "state": query["state"][0]}))
    back_on_page(host, server)
    error = host.wait_for_event("onProviderLoginError", after=queue_mark).result
    host.wait_for_event("onProviderLoginError", "message", after=message_mark)
    assert error["statusMessage"] == "provider_error" and error["provider"] == "mock"
    host.wait_for_screen("signIn")
    notice = host.run_js("(function(n){return {text:n.textContent,role:n.getAttribute('role')};})"
                         "(document.getElementById('capture_notice'))")
    assert notice["role"] == "alert" and "Mock ID could not sign you in" in notice["text"]
    assert host.run_js("location.hash") == ""


def test_code_mode_hands_the_host_a_code_for_a_social_sign_in(server, host, oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Cody"})
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    host.load(page)
    host.wait_for_screen("signIn")
    queue_mark, _ = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    # The page came back to itself with its query (so its PKCE challenge) intact.
    assert host.view.get_uri() == page
    assert queued["authProvider"] == "mock" and queued["oneTime"] is True and "accessToken" not in queued
    status, tokens, _ = server.post("/oauth/token", {
        "grant_type": "authorization_code", "code": queued["authorizationCode"], "redirect_uri": page,
        "client_id": CLIENT_ID, "code_verifier": verifier})
    assert status == 200, tokens
    assert entity(server, tokens["access_token"])["email"] == email
