"""Targeted lockout (issue 6): guesses at an account from the owner's own address cannot keep the owner's
web view out, because the page carries the device token its earlier sign-in was given."""


from conftest import CLIENT_ID, PASSWORD, new_email, stored_key
from test_bridge import register_in_page


def api_sign_in(server, email, password):
    return server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": password,
    })[1]


def test_the_owners_web_view_signs_in_while_its_account_is_under_attack(server, host, store):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    email = new_email()
    queue_mark, _ = host.mark()
    register_in_page(host, email)
    host.wait_for_event("onCaptureLoginSuccess", after=queue_mark)
    device = host.run_js("localStorage.getItem('captureBridgeDeviceToken')")
    assert device and len(device) == 44
    device_hash = stored_key(device)
    kinds = store.rows("SELECT kind FROM tokens WHERE hash = ?", "SELECT kind FROM tokens WHERE hash = ?", device_hash)
    assert kinds == [("device",)], "the device token is stored only as a hash, as a token of kind device"
    assert api_sign_in(server, email, PASSWORD)["stat"] == "ok"  # nothing is locked yet

    # Signed out, the owner's account is attacked from the same address (loopback stands for a shared NAT).
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    for _ in range(10):
        assert api_sign_in(server, email, "a wrong guess")["code"] == 210
    locked = api_sign_in(server, email, PASSWORD)
    assert locked["code"] == 510, "the attacker's source is locked, even with the right password"
    # The device token is no access token.
    assert server.post("/entity", {"access_token": device})[1]["stat"] == "error"

    queue_mark, _ = host.mark()
    host.fill_and_submit("returnTraditional", {"currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert success["userData"]["email"] == email
    assert host.run_js("localStorage.getItem('captureBridgeDeviceToken')") == device, "a valid device token is kept"
