"""The flow pages as the web view receives them: settings, headers, error pages, the janrain API surface."""

from api import get
from conftest import CLIENT_ID

SPEC_EVENTS = [
    "onCaptureLoginStart", "onCaptureLoginSuccess", "onCaptureLoginFailed", "onCaptureRegistrationStart",
    "onCaptureRegistrationSuccess", "onCaptureRegistrationFailed", "onCaptureSessionFound", "onCaptureSessionNotFound",
    "onCaptureSessionCreated", "onCaptureSessionEnded", "onCaptureExpiredToken", "onCaptureInvalidToken",
    "onCaptureProfileSaveSuccess", "onCaptureProfileSaveFailed", "onCaptureSaveFailed", "onCaptureScreenShow",
    "onCaptureRenderComplete", "onCaptureEmailSent", "onCaptureEmailVerificationSuccess",
    "onCaptureForgotPasswordCodeSuccess", "onCaptureValidationFailed", "onProviderLoginStart",
    "onProviderLoginSuccess", "onProviderLoginError",
]


def test_janrain_settings_are_the_redirect_mode_values(server, host):
    url = f"{server['base']}/flows/webViewSignIn?client_id={CLIENT_ID}&locale=en-US"
    host.load(url + "#ignored-fragment")
    settings = host.js("janrain.settings")
    assert settings["popup"] is False
    assert settings["type"] == "embed"
    assert settings["tokenAction"] == "url"
    assert settings["packages"] == ["login", "capture"]
    assert settings["tokenUrl"].startswith(server["base"])
    capture = settings["capture"]
    assert capture["redirectFlow"] is True
    assert capture["redirectUri"] == url, "location.href with the fragment stripped"
    assert capture["captureServer"] == server["base"]
    assert capture["clientId"] == CLIENT_ID
    assert capture["flowName"] == "webViewSignIn"
    assert capture["responseType"] == "token"
    assert capture["locale"] == "en-US"
    assert capture["flowVersion"] and capture["registerFlow"] and capture["appId"]


def test_every_spec_event_is_enumerable_and_nothing_else(server, host):
    host.load(f"{server['base']}/flows/webViewDemo?client_id={CLIENT_ID}")
    names = host.js("(function(){var n=[];for(var e in janrain.events){n.push(e);}return n;})()")
    assert sorted(names) == sorted(SPEC_EVENTS)
    assert host.js("typeof janrain.events.onCaptureLoginSuccess.addHandler") == "function"
    assert host.js("typeof janrain.events.onCaptureLoginSuccess.removeHandler") == "function"
    for method in ["start", "createCaptureSession", "endCaptureSession", "renderScreen", "hasActiveSession"]:
        assert host.js(f"typeof janrain.capture.ui.{method}") == "function", method


def test_pages_carry_a_strict_policy_and_no_inline_script(server):
    status, headers, body = get(server["base"], f"/flows/webViewSignIn?client_id={CLIENT_ID}")
    assert status == 200
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in body and " onclick=" not in body
    assert 'src="/flows/assets/janrain-bridge.js"' in body


def test_unknown_flow_and_unknown_client_get_pages_that_say_why(server, host):
    status, _, body = get(server["base"], f"/flows/noSuchFlow?client_id={CLIENT_ID}")
    assert status == 404 and "noSuchFlow" in body
    status, _, body = get(server["base"], "/flows/webViewSignIn?client_id=not-a-client")
    assert status == 400 and "not-a-client" in body and "not registered" in body
    # And in the web view the person sees that text, not a blank page.
    host.view.load_uri(f"{server['base']}/flows/webViewSignIn?client_id=not-a-client")
    host.wait_for(lambda: host._loaded, 10, "error page")
    assert "not registered" in host.js("document.body.innerText")
