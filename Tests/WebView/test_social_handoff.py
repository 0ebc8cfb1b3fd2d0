"""The system-browser hand-off (issue 8, docs/social-handoff.md), driven as an iOS host drives it: the page in the
web view does not leave; it hands the host the provider's URL in onProviderLoginHandoff; the host opens it in "the
system browser" (here a second web view with its own cookies and no bridge, as ASWebAuthenticationSession is), the
person signs in at the real provider there, the service sends that browser to the app's return address with a
one-time token in the fragment, and the host gives that address back to the page with completeProviderLogin."""

import json
import urllib.parse

from conftest import CLIENT_ID
from test_code_flow import pkce_pair
from test_social_sign_in import BUTTON, SHOTS, answer_at_provider, entity, new_subject, social_events

# On the demo client's redirect URIs (Settings/service.json): a private-use scheme in reverse-DNS form (RFC 8252).
APP_RETURN = "com.example.capturebridge:/social"


class SystemBrowser:
    """What ASWebAuthenticationSession / Custom Tabs do for the host: open a URL in a browser of their own and report
    the address that browser is sent to on the app's scheme, which they do not load."""

    def __init__(self, make_host):
        self.host = make_host(bridge_user_agent=False, message_handler=False)
        self.returned = []
        self.host.view.connect("decide-policy", self._on_decide_policy)

    def _on_decide_policy(self, view, decision, decision_type):
        request = getattr(decision, "get_navigation_action", None)
        if request is None:
            return False
        uri = request().get_request().get_uri() or ""
        if not uri.startswith(APP_RETURN.split(":")[0] + ":"):
            return False
        decision.ignore()
        self.returned.append(uri)
        return True

    def sign_in(self, url, provider, subject=None, deny=False):
        """Opens `url`, answers at the provider, and returns the address the browser was finally sent to."""
        self.host.view.load_uri(url)
        answer_at_provider(self.host, provider, subject, deny=deny)
        self.host.wait_for(lambda: self.returned, 20, "the browser's return to the app")
        return self.returned[-1]


def fragment(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).fragment))


def tap_for_handoff(host):
    """Taps the provider's button; returns onProviderLoginHandoff's result. The page must not leave."""
    page = host.view.get_uri()
    queue_mark, message_mark = host.mark()
    host.click("#signIn " + BUTTON)
    handed = host.wait_for_event("onProviderLoginHandoff", after=queue_mark).result
    assert host.wait_for_event("onProviderLoginHandoff", "message", after=message_mark).result == handed
    host.settle()
    assert host.view.get_uri() == page, "the web view stays on the page"
    names, _ = social_events(host, queue_mark, message_mark)
    assert names.index("onProviderLoginStart") < names.index("onProviderLoginHandoff")
    return handed


def complete(host, returned):
    kind, value = host.command("janrain.capture.ui.completeProviderLogin(%s)" % json.dumps(returned))
    assert (kind, value) == ("boolean", True), "a plain value, as WKWebView needs"


def test_the_page_hands_the_provider_to_the_system_browser_and_finishes_the_sign_in(server, host, make_host,
                                                                                    oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Handed Off"})
    host.load(server.page("webViewSignIn", app_return_uri=APP_RETURN))
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.settings.capture.appReturnUri") == APP_RETURN
    handed = tap_for_handoff(host)
    assert handed["provider"] == "mock" and handed["appReturnUri"] == APP_RETURN
    assert handed["statusMessage"] == "providerLoginHandoff"
    start = urllib.parse.urlsplit(handed["url"])
    assert "%s://%s" % (start.scheme, start.netloc) == server.base and start.path == "/social/mock/start"
    query = dict(urllib.parse.parse_qsl(start.query))
    assert query["app_return_uri"] == APP_RETURN and query["client_id"] == CLIENT_ID
    # Bound to this page (docs/contract.md §15): the start carries its S256 challenge; the verifier stays in the page's memory.
    assert query["code_challenge_method"] == "S256" and len(query["code_challenge"]) == 43
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialVerifier')") is None
    # While the browser is up the page says where the sign-in goes on, and stays usable.
    notice = host.run_js("(function(n){return {text:n.textContent,hidden:n.hidden,role:n.getAttribute('role')};})"
                         "(document.getElementById('capture_notice'))")
    assert not notice["hidden"] and "Mock ID" in notice["text"] and notice["role"] == "status"
    assert host.run_js("document.querySelector('#signIn %s').disabled" % BUTTON) is False
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "signIn-social-handoff.png")

    browser = SystemBrowser(make_host)
    returned = browser.sign_in(handed["url"], oidc_provider, subject)
    # The app gets a one-time token in the fragment: never an access token, never in a query.
    assert returned.startswith(APP_RETURN + "#")
    answer = fragment(returned)
    assert set(answer) == {"capture_social_token", "provider"} and answer["provider"] == "mock"
    status, reply, _ = server.post("/entity", {"access_token": answer["capture_social_token"], "client_id": CLIENT_ID})
    assert reply["stat"] == "error", "the hand-off token is no access token"

    queue_mark, message_mark = host.mark()
    complete(host, returned)
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark)
    host.wait_for_screen("signedIn")
    assert success["authProvider"] == "mock" and success["statusMessage"] == "registered"
    assert entity(server, success["accessToken"])["email"] == email
    names, _ = social_events(host, queue_mark, message_mark)
    assert names.index("onProviderLoginSuccess") < names.index("onCaptureLoginStart") \
        < names.index("onCaptureLoginSuccess")

    # The same answer works once. Handed over again with no hand-off under way, the page does not take it at all.
    queue_mark, _ = host.mark()
    assert host.command("janrain.capture.ui.completeProviderLogin(%s)" % json.dumps(returned)) == ("boolean", False)
    host.settle()
    assert not [name for name in host.names(host.queue_events[queue_mark:]) if "Login" in name]
    # Handed over during a new hand-off (the page redeems it with the new sign-in's verifier): the service refuses
    # it, and nothing else happens.
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    host.run_js("janrain.capture.ui.renderScreen('signIn')")
    host.wait_for_screen("signIn")
    tap_for_handoff(host)
    queue_mark, _ = host.mark()
    complete(host, returned)
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert failed["authProvider"] == "mock"
    assert "onCaptureLoginSuccess" not in host.names(host.queue_events[queue_mark:])
    # Something that is not a provider's answer is not taken, even while a hand-off is under way.
    host.run_js("janrain.capture.ui.renderScreen('signIn')")
    host.wait_for_screen("signIn")
    tap_for_handoff(host)
    assert host.command("janrain.capture.ui.completeProviderLogin('com.example.capturebridge:/social')") \
        == ("boolean", False)


def test_a_host_turns_the_hand_off_on_by_command_in_code_mode_and_a_closed_browser_is_a_cancel(
        server, host, make_host, oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True})
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    host.load(page)
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.settings.capture.appReturnUri === undefined")
    assert host.command("janrain.capture.ui.setProviderHandoff(%s)" % json.dumps(APP_RETURN)) == ("boolean", True)

    # The person closes the browser sheet before the provider answered: the host says so with null.
    tap_for_handoff(host)
    queue_mark, message_mark = host.mark()
    assert host.command("janrain.capture.ui.completeProviderLogin(null)") == ("boolean", True)
    error = host.wait_for_event("onProviderLoginError", after=queue_mark).result
    assert error["statusMessage"] == "cancelled" and error["provider"] == "mock"
    notice = host.run_js("(function(n){return {text:n.textContent,role:n.getAttribute('role')};})"
                         "(document.getElementById('capture_notice'))")
    assert "cancelled" in notice["text"] and notice["role"] == "status"
    assert host.command("janrain.capture.ui.completeProviderLogin(null)") == ("boolean", False), \
        "nothing left to cancel"

    # Declined at the provider: the browser still comes back to the app, with the reason.
    handed = tap_for_handoff(host)
    browser = SystemBrowser(make_host)
    denied = browser.sign_in(handed["url"], oidc_provider, deny=True)
    assert fragment(denied)["capture_social_error"] == "cancelled"
    queue_mark, _ = host.mark()
    complete(host, denied)
    assert host.wait_for_event("onProviderLoginError", after=queue_mark).result["statusMessage"] == "cancelled"

    # Then a real sign-in: the page gets a code for the host's backend, bound to its own PKCE challenge.
    handed = tap_for_handoff(host)
    returned = SystemBrowser(make_host).sign_in(handed["url"], oidc_provider, subject)
    queue_mark, _ = host.mark()
    complete(host, returned)
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert success["authProvider"] == "mock" and success["oneTime"] is True and "accessToken" not in success
    status, tokens, _ = server.post("/oauth/token", {
        "grant_type": "authorization_code", "code": success["authorizationCode"], "redirect_uri": page,
        "client_id": CLIENT_ID, "code_verifier": verifier})
    assert status == 200, tokens
    assert entity(server, tokens["access_token"])["email"] == email

    # Turned off again, a tap leaves the page for the provider as in redirect mode.
    assert host.command("janrain.capture.ui.setProviderHandoff(null)") == ("boolean", False)
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    host.click("#returnTraditional " + BUTTON)
    host.wait_for(lambda: (host.view.get_uri() or "").startswith(oidc_provider.issuer), 20, "the provider's page")


def test_an_app_return_address_the_client_does_not_list_is_refused(server):
    status, body, _ = server.get("/flows/webViewSignIn?" + urllib.parse.urlencode(
        {"client_id": CLIENT_ID, "app_return_uri": "com.evil.app:/steal"}))
    assert status == 400 and "app_return_uri" in body
    status, body, _ = server.get("/social/mock/start?" + urllib.parse.urlencode(
        {"client_id": CLIENT_ID, "flow": "webViewSignIn", "app_return_uri": "https://evil.example/"}))
    assert status == 400
