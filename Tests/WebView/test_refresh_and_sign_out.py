"""Page sign-ins that last longer than an hour and end everywhere (issue 9): the host hands the page a
refresh_secret, refreshes the page's sign-in with Janrain's signed refresh computed here as a host would, and the
page's "Sign out" revokes the sign-in's whole chain, with response_type=token and with response_type=code."""

import base64
import datetime
import hashlib
import hmac
import json

from conftest import CLIENT_ID, PASSWORD, new_email
from test_code_flow import pkce_pair

SECRET = "host-chosen refresh secret 7f3a9c"


def signed_refresh(server, access_token, secret=SECRET):
    """POST /oauth/refresh_access_token, signed the way jump.ios / jump.android sign it."""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    message = "refresh_access_token\n" + date + "\n" + access_token + "\n"
    signature = base64.b64encode(hmac.new(secret.encode(), message.encode(), hashlib.sha1).digest()).decode()
    return server.post("/oauth/refresh_access_token", {
        "access_token": access_token, "signature": signature, "date": date, "client_id": CLIENT_ID})[1]


def entity_works(server, token):
    return server.post("/entity", {"access_token": token})[1].get("stat") == "ok"


def stored_values(host):
    """Everything the page keeps in localStorage, as one text."""
    return host.run_js("(function(){var o=[];for(var i=0;i<localStorage.length;i++){var k=localStorage.key(i);"
                       "o.push(k+'='+localStorage.getItem(k));}return o.join('\\n');})()")


def test_token_mode_sign_in_with_a_refresh_secret_is_refreshed_and_signing_out_ends_the_chain(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    assert host.command("janrain.capture.ui.setRefreshSecret(%s)" % json.dumps(SECRET)) == ("boolean", True)
    queue_mark, message_mark = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    created = host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result
    assert host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result == success
    token = success["accessToken"]
    assert success["expiresIn"] == 3600 and created["expiresIn"] == 3600
    assert SECRET not in stored_values(host) and SECRET not in host.view.get_uri()
    host.wait_for_screen("signedIn")

    refreshed = signed_refresh(server, token)
    assert refreshed["stat"] == "ok" and refreshed["expires_in"] == 3600, refreshed
    fresh = refreshed["access_token"]
    assert fresh != token and entity_works(server, fresh)
    assert not entity_works(server, token), "a refreshed token is replaced"

    # The page still holds the replaced token; its "Sign out" ends the whole sign-in all the same.
    queue_mark, _ = host.mark()
    host.click('#signedIn [data-capture-action="signOut"]')
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for(lambda: not entity_works(server, fresh), 10, "the refreshed token to be revoked")
    assert signed_refresh(server, fresh)["stat"] == "error"


def test_registration_sends_the_refresh_secret_and_the_host_hands_the_refreshed_token_back(server, host):
    email = new_email()
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    assert host.command("janrain.capture.ui.setRefreshSecret(%s)" % json.dumps(SECRET)) == ("boolean", True)
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.wait_for_screen("traditionalRegistration")
    queue_mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Refreshed", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    registered = host.wait_for_event("onCaptureRegistrationSuccess", after=queue_mark).result
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    created = host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result
    assert registered["expiresIn"] == success["expiresIn"] == created["expiresIn"] == 3600

    refreshed = signed_refresh(server, success["accessToken"])
    assert refreshed["stat"] == "ok", refreshed
    fresh = refreshed["access_token"]

    # The host gives the page the new token, so the page's session goes on (a reload finds it).
    queue_mark, _ = host.mark()
    command = "janrain.capture.ui.createCaptureSession(%s, %d)" % (json.dumps(fresh), refreshed["expires_in"])
    assert host.command(command) == ("boolean", True)
    found = host.wait_for_event("onCaptureSessionFound", after=queue_mark).result
    assert found["userData"]["email"] == email
    assert host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result["expiresIn"] == 3600
    queue_mark, _ = host.mark()
    host.reload()
    host.wait_for_event("onCaptureSessionFound", after=queue_mark)

    assert host.command("janrain.capture.ui.endCaptureSession()") == ("boolean", True)
    host.wait_for(lambda: not entity_works(server, fresh), 10, "the handed-back token to be revoked")


def test_a_page_sign_in_without_a_refresh_secret_cannot_be_refreshed(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    queue_mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    token = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result["accessToken"]
    refused = signed_refresh(server, token)
    assert refused["stat"] == "error" and refused["code"] == 403, refused
    assert entity_works(server, token), "a refused refresh leaves the session alone"


def test_code_mode_sign_out_in_the_page_revokes_the_tokens_the_host_exchanged_the_code_for(server, host):
    email, _ = server.register()
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    host.load(page)
    host.wait_for_event("onCaptureRenderComplete")
    assert host.command("janrain.capture.ui.setRefreshSecret(%s)" % json.dumps(SECRET)) == ("boolean", True)
    queue_mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert success["oneTime"] is True and "accessToken" not in success and "expiresIn" not in success
    assert "signOutToken" not in success and "sign_out_token" not in json.dumps(success)
    host.wait_for_screen("signedIn")

    status, tokens, _ = server.post("/oauth/token", {
        "grant_type": "authorization_code", "code": success["authorizationCode"], "redirect_uri": page,
        "client_id": CLIENT_ID, "code_verifier": verifier})
    assert status == 200, tokens
    assert entity_works(server, tokens["access_token"])
    # The refresh_secret handed to the page came along with the code: the signed refresh works too.
    refreshed = signed_refresh(server, tokens["access_token"])
    assert refreshed["stat"] == "ok", refreshed
    access = refreshed["access_token"]
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None

    queue_mark, _ = host.mark()
    host.click('#signedIn [data-capture-action="signOut"]')
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for(lambda: not entity_works(server, access), 10, "the host's access token to be revoked")
    status, again, _ = server.post("/oauth/token", {
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": CLIENT_ID})
    assert status == 400 and again["error"] == "invalid_grant", again
    assert host.command("janrain.capture.ui.endCaptureSession()") == ("boolean", False), "already signed out"


def test_code_mode_end_capture_session_from_the_host_revokes_the_chain_too(server, host):
    email, _ = server.register()
    verifier, challenge = pkce_pair()
    page = server.page("webViewSignIn", response_type="code", code_challenge=challenge, code_challenge_method="S256")
    host.load(page)
    host.wait_for_event("onCaptureRenderComplete")
    queue_mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    code = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result["authorizationCode"]
    status, tokens, _ = server.post("/oauth/token", {
        "grant_type": "authorization_code", "code": code, "redirect_uri": page,
        "client_id": CLIENT_ID, "code_verifier": verifier})
    assert status == 200 and entity_works(server, tokens["access_token"])
    assert "sign_out" not in stored_values(host).lower()

    queue_mark, _ = host.mark()
    assert host.command("janrain.capture.ui.endCaptureSession()") == ("boolean", True)
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for(lambda: not entity_works(server, tokens["access_token"]), 10, "the access token to be revoked")
    status, again, _ = server.post("/oauth/token", {
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": CLIENT_ID})
    assert status == 400 and again["error"] == "invalid_grant", again
