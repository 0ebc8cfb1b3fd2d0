"""The safer hand-off (docs/contract.md §4.5) in a real web view: with response_type=code and a PKCE challenge the
page never holds the access token; the host gets a one-time code and exchanges it with its verifier."""

import base64
import hashlib
import secrets

from conftest import CLIENT_ID, PASSWORD


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def code_mode_page(server):
    """The sign-in page asking for a one-time code bound to a fresh PKCE challenge: (page, verifier)."""
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    return page, verifier


def address_behind_code(server, host, success, page, verifier):
    """Checks that a sign-in's success handed the host a one-time code and no token, redeems the code as the host
    would, and returns the address of the account its token opens."""
    assert success["oneTime"] is True and "accessToken" not in success and success["authorizationCode"], success
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None
    status, tokens, _ = server.post("/oauth/token", {
        "grant_type": "authorization_code", "code": success["authorizationCode"], "redirect_uri": page,
        "client_id": CLIENT_ID, "code_verifier": verifier})
    assert status == 200, tokens
    return server.post("/entity", {"access_token": tokens["access_token"]})[1]["result"]["email"]


def test_code_flow_hands_a_one_time_code_that_only_the_verifier_redeems(server, host):
    email, _ = server.register()
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    host.load(page)
    host.wait_for_event("onCaptureRenderComplete")
    queue_mark, message_mark = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})

    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    posted = host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result
    host.settle()
    assert posted == queued
    code = queued["authorizationCode"]
    assert code and queued["oneTime"] is True
    assert "accessToken" not in queued, "the page never sees an access token"
    assert host.token_urls == [], "no legacy janrain:accessToken= navigation for a one-time code"
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None

    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": page,
                "client_id": CLIENT_ID, "code_verifier": "x" * 43}
    status, wrong, _ = server.post("/oauth/token", exchange)
    assert status == 400 and wrong["error"] == "invalid_grant", wrong

    exchange["code_verifier"] = verifier
    status, tokens, headers = server.post("/oauth/token", exchange)
    assert status == 200 and tokens["token_type"] == "Bearer", tokens
    assert headers["Cache-Control"] == "no-store"
    status, entity, _ = server.post("/entity", {"access_token": tokens["access_token"]})
    assert entity["stat"] == "ok" and entity["result"]["email"] == email

    status, again, _ = server.post("/oauth/token", exchange)
    assert status == 400 and again["error"] == "invalid_grant"
    assert server.post("/entity", {"access_token": tokens["access_token"]})[1]["stat"] == "error", \
        "replaying the code revokes what it was exchanged for"
