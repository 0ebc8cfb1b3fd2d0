"""The core loop in a real web view: register → token through every bridge transport → token works →
session survives a reload → sign out → sign in again; failures surface as events and visible messages."""

import hashlib
import sqlite3

from api import new_email, post
from conftest import CLIENT_ID

PASSWORD = "correct horse battery"


def register(host, email, password=PASSWORD):
    host.js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.submit(
        "#traditionalRegistration form[name=registrationForm]",
        {
            "emailAddress": email, "displayName": "Web View", "firstName": "Web", "lastName": "View",
            "newPassword": password, "newPasswordConfirm": password,
        },
    )


def sign_in(host, email, password, screen="signIn"):
    host.js(f"janrain.capture.ui.renderScreen('{screen}')")
    host.submit(f"#{screen} form[name=signInForm]", {"signInEmailAddress": email, "currentPassword": password})


def open_sign_in(server, host):
    host.load(f"{server['base']}/flows/webViewSignIn?client_id={CLIENT_ID}")
    host.wait_event("onCaptureSessionNotFound")


def test_registration_hands_the_token_to_the_host_on_every_transport(server, host):
    open_sign_in(server, host)
    email = new_email()
    register(host, email)

    queued = host.wait_event("onCaptureLoginSuccess")[0]
    posted = host.wait_event("onCaptureLoginSuccess", transport="message")[0]
    token = queued["accessToken"]
    assert token and posted["accessToken"] == token
    assert queued["status"] == "success"
    assert queued["oneTime"] is False
    assert queued["authProvider"] == "capture"
    assert queued["flow"] == "webViewSignIn" and queued["version"] and queued["transactionId"]
    assert queued["userData"]["email"] == email
    host.wait_event("onCaptureRegistrationSuccess")
    host.wait_event("onCaptureSessionCreated")
    host.wait_for(lambda: host.legacy_tokens, 10, "janrain:accessToken= navigation")
    assert host.legacy_tokens == [token], "legacy token URL fires once, with the same token"
    assert host.signals and all(s.startswith("janrain:eventsAvailable?") for s in host.signals)

    # The host (or its backend) uses the token on the Capture API.
    status, entity = post(server["base"], "/entity", {"access_token": token})
    assert status == 200 and entity["stat"] == "ok"
    assert entity["result"]["email"] == email

    # Only the hash is stored.
    connection = sqlite3.connect(server["db"])
    hashes = [row[0] for row in connection.execute("SELECT hash FROM tokens")]
    dump = "\n".join(connection.iterdump())
    connection.close()
    assert hashlib.sha256(token.encode()).hexdigest() in hashes
    assert token not in dump

    # Both transports saw the same events, in the same order, each once.
    host.pump(0.3)
    assert host.names(host.queue_events) == host.names(host.message_events)
    successes = [args[0]["transactionId"] for name, args in host.queue_events if name == "onCaptureLoginSuccess"]
    assert len(successes) == 1


def test_session_survives_reload_then_sign_out_and_sign_in_again(server, host):
    email = new_email()
    status, reply = post(server["base"], "/oauth/register_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "emailAddress": email,
        "displayName": "Again", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    assert status == 200
    open_sign_in(server, host)
    sign_in(host, email, PASSWORD)
    first = host.wait_event("onCaptureLoginSuccess")[0]["accessToken"]

    mark = len(host.queue_events)
    host.reload()
    found = host.wait_event("onCaptureSessionFound", after=mark)[0]
    assert found["status"] == "success"
    assert host.js("janrain.capture.ui.hasActiveSession()") is True
    assert host.js("localStorage.getItem('janrainCaptureToken')") == first

    mark = len(host.queue_events)
    host.js("janrain.capture.ui.endCaptureSession()")
    host.wait_event("onCaptureSessionEnded", after=mark)
    assert host.js("janrain.capture.ui.hasActiveSession()") is False
    host.wait_for(lambda: post(server["base"], "/entity", {"access_token": first})[1].get("stat") == "error", 10,
                  "sign-out to revoke the token")

    mark = len(host.queue_events)
    sign_in(host, email, PASSWORD)
    second = host.wait_event("onCaptureLoginSuccess", after=mark)[0]["accessToken"]
    assert second and second != first
    assert post(server["base"], "/entity", {"access_token": second})[1]["stat"] == "ok"


def test_wrong_password_fires_login_failed_and_shows_a_message(server, host):
    email = new_email()
    post(server["base"], "/oauth/register_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "emailAddress": email,
        "displayName": "Wrong", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    open_sign_in(server, host)
    sign_in(host, email, "not the password")
    failed = host.wait_event("onCaptureLoginFailed")[0]
    assert failed["status"] == "error"
    message = host.wait_for(
        lambda: host.js("(function(){var e=document.querySelector('#signIn .capture_form_error');"
                        "return e && !e.hidden ? e.textContent : '';})()"), 5, "visible sign-in error")
    assert "password" in message.lower()
    assert "onCaptureLoginSuccess" not in host.names(host.queue_events)
    assert host.legacy_tokens == []


def test_registration_errors_appear_next_to_their_fields(server, host):
    open_sign_in(server, host)
    host.js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.submit("#traditionalRegistration form[name=registrationForm]", {
        "emailAddress": "not-an-address", "displayName": "X", "newPassword": "long enough pw",
        "newPasswordConfirm": "different pw!",
    })
    host.wait_event("onCaptureValidationFailed")
    host.wait_event("onCaptureRegistrationFailed")
    messages = host.js("""(function(){var out={};
        document.querySelectorAll('#traditionalRegistration .capture_form_item').forEach(function(item){
          var tip=item.querySelector('.capture_tip_error');
          if (tip && !tip.hidden) out[item.getAttribute('data-capture-field')]=tip.textContent; });
        return out;})()""")
    assert set(messages) == {"emailAddress", "newPasswordConfirm"}
    assert "valid email" in messages["emailAddress"].lower()
    assert "match" in messages["newPasswordConfirm"].lower()
    invalid = host.js("document.querySelector('#traditionalRegistration [name=emailAddress]').getAttribute('aria-invalid')")
    assert invalid == "true"


def test_a_revoked_token_ends_the_session_on_reload(server, host):
    open_sign_in(server, host)
    register(host, new_email())
    token = host.wait_event("onCaptureLoginSuccess")[0]["accessToken"]
    status, _ = post(server["base"], "/oauth/revoke", {"token": token, "client_id": CLIENT_ID})
    assert status == 200
    mark = len(host.queue_events)
    host.reload()
    invalid = host.wait_event("onCaptureInvalidToken", after=mark)[0]
    assert invalid["status"] == "error"
    host.wait_event("onCaptureSessionEnded", after=mark)
    assert host.js("janrain.capture.ui.hasActiveSession()") is False
    assert host.js("!document.getElementById('signIn').hidden || !document.getElementById('returnTraditional').hidden")


def test_a_burst_of_events_in_one_tick_arrives_once_each_in_order(server, host):
    open_sign_in(server, host)
    host.pump(0.2)
    mark_queue, mark_message = len(host.queue_events), len(host.message_events)
    host.js("(function(){var ui=janrain.capture.ui; ui.renderScreen('traditionalRegistration');"
            "ui.renderScreen('signIn'); ui.renderScreen('returnTraditional'); ui.renderScreen('signIn'); return 1;})()")
    host.wait_for(lambda: len([n for n, _ in host.queue_events[mark_queue:] if n == "onCaptureScreenShow"]) >= 4, 5,
                  "four screen events")
    host.pump(0.3)
    screens = [args[0]["screen"] for name, args in host.queue_events[mark_queue:] if name == "onCaptureScreenShow"]
    assert screens == ["traditionalRegistration", "signIn", "returnTraditional", "signIn"]
    posted = [args[0]["screen"] for name, args in host.message_events[mark_message:] if name == "onCaptureScreenShow"]
    assert posted == screens
    assert host.js("createJanrainBridge.eventQueue.length") == 0


def test_host_injected_token_creates_a_session(server, host):
    email = new_email()
    _, reply = post(server["base"], "/oauth/register_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "emailAddress": email,
        "displayName": "Injected", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    host.load(f"{server['base']}/flows/webViewProfile?client_id={CLIENT_ID}")
    host.wait_event("onCaptureSessionNotFound")
    mark = len(host.queue_events)
    host.js(f"janrain.capture.ui.createCaptureSession({reply['access_token']!r})")
    found = host.wait_event("onCaptureSessionFound", after=mark)[0]
    assert found["userData"]["email"] == email
    host.wait_for(lambda: host.js("!document.getElementById('editProfile').hidden"), 5, "editProfile screen")
    assert host.js("document.querySelector('#editProfile [name=emailAddress]').value") == email
