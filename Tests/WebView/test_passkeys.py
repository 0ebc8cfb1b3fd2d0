"""Passkeys in the web view (issue 30): added on the profile page and used on the sign-in screens, with the ceremony
relayed to the host as in a WKWebView whose app lacks the associated domain (WebKitGTK has no
navigator.credentials): the page fires onCapturePasskeyRequest, the host's platform (a SoftAuthenticator,
Tests/PythonSupport/soft_authenticator.py) runs it and the host evaluates janrain.capture.ui.completePasskey(...).
Also what the service refuses (another origin, a replayed answer, a cloned authenticator) as the person sees it, a
cancelled ceremony, removing a passkey, and the page using navigator.credentials itself where it works."""

import json

from conftest import CLIENT_ID, SHOTS, PasskeyPlatform, SoftAuthenticator
from screens import open_profile, text_of
from test_code_flow import address_behind_code, code_mode_page
from test_languages import catalog
from test_screenshots import LAYOUT_CHECK

TEXTS = catalog("en")
PASSKEY_BUTTON = "#%s [data-capture-passkey-sign-in]"


def passkey_list(host):
    """[(name, [its lines]), ...] as the profile's passkeys section lists them."""
    return host.run_js("""[].map.call(document.querySelectorAll('#editProfile [data-capture-passkey-list] li'),
        function(li){ return [li.querySelector('strong').textContent,
            [].map.call(li.querySelectorAll('.capture_factor_meta'), function(s){ return s.textContent; }),
            li.querySelector('button').getAttribute('aria-label')]; })""")


def add_on_profile(host, platform, name):
    mark, message_mark = host.mark()
    host.fill_and_submit_form("#editProfile form[data-capture-factor=addPasskey]", {"passkeyName": name})
    request, answer = platform.answer(after=mark)
    return request, answer, mark, message_mark


def sign_out(host):
    mark, _ = host.mark()
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_event("onCaptureSessionEnded", after=mark)


def tap_passkey(host, screen):
    mark, message_mark = host.mark()
    host.click(PASSKEY_BUTTON % screen)
    return mark, message_mark


def signed_in_with_passkey(host, server, platform, screen, email, **answer):
    """Taps the screen's passkey button, lets the platform answer, and checks the sign-in a host receives."""
    mark, message_mark = tap_passkey(host, screen)
    request, _ = platform.answer(after=mark, **answer)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert success["authProvider"] == "capture" and success["statusMessage"] == "loggedIn"
    assert success["userData"]["email"] == email and success["oneTime"] is False
    _, entity, _ = server.post("/entity", {"access_token": success["accessToken"], "client_id": CLIENT_ID})
    assert entity["result"]["email"] == email
    host.settle()
    names = [name for name in host.names(host.queue_events[mark:])
             if name in ("onCapturePasskeyRequest", "onCaptureLoginStart", "onCaptureSessionCreated",
                         "onCaptureLoginSuccess")]
    assert names == ["onCapturePasskeyRequest", "onCaptureLoginStart", "onCaptureSessionCreated",
                     "onCaptureLoginSuccess"], names
    assert host.names(host.message_events[message_mark:]) == host.names(host.queue_events[mark:])
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") == success["accessToken"]
    return request, success


def test_a_passkey_added_on_the_profile_signs_in_with_and_without_the_address(server, host, platform):
    email, registered = server.register()
    open_profile(server, host, registered["access_token"])
    assert text_of(host, "#editProfile [data-capture-passkeys-none]") == TEXTS["passkeys.none"]
    label = host.run_js("document.querySelector('label[for=capture_addPasskeyForm_passkeyName]').textContent")
    assert label == TEXTS["passkeys.nameLabel"]

    request, _, mark, message_mark = add_on_profile(host, platform, "Work phone")
    # The host gets WebAuthn's JSON options on every transport, binary members as base64url.
    assert request["kind"] == "create" and request["statusMessage"] == "passkeyRequest"
    options = request["options"]
    assert options["rp"]["id"] == "127.0.0.1" and options["user"]["name"] == email
    assert options["authenticatorSelection"]["residentKey"] == "required" and len(options["challenge"]) == 43
    assert host.wait_for_event("onCapturePasskeyRequest", "message", after=message_mark).result == request
    host.wait_for(lambda: passkey_list(host), 10, "the new passkey in the list")
    note = "#editProfile [data-capture-passkeys] [data-capture-factor-note]"
    assert text_of(host, note) == TEXTS["widget.passkeyAdded"].replace("%s", "Work phone")
    assert host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(note)) == "status"
    [(name, lines, remove_label)] = passkey_list(host)
    assert name == "Work phone" and remove_label == "Remove passkey Work phone"
    assert lines[0].startswith("Added ") and lines[1] == TEXTS["widget.passkeyNeverUsed"], lines
    assert host.run_js("document.getElementById('capture_addPasskeyForm_passkeyName').value") == ""
    assert [p["name"] for p in server.factors(registered["access_token"])["passkeys"]] == ["Work phone"]
    # Nothing is left waiting: a second answer is not taken.
    assert host.complete_passkey(None) == ("boolean", False)

    # Discoverable: no address typed, the platform offers the account's passkey.
    sign_out(host)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("returnTraditional")
    host.click('#returnTraditional [data-capture-action="forgetEmail"]')
    host.wait_for_screen("signIn")
    request, _ = signed_in_with_passkey(host, server, platform, "signIn", email, as_text=False)
    assert request["kind"] == "get" and request["options"]["allowCredentials"] == []
    assert request["options"]["userVerification"] == "required"
    host.wait_for_screen("signedIn")

    # Address-first: "Welcome back" holds the address, so the options list this account's passkey only.
    sign_out(host)
    host.wait_for_screen("returnTraditional")
    request, success = signed_in_with_passkey(host, server, platform, "returnTraditional", email)
    credential_id = server.factors(success["accessToken"])["passkeys"][0]["id"]
    assert [c["id"] for c in request["options"]["allowCredentials"]] == [credential_id]
    host.wait_for_screen("signedIn")
    assert host.run_js("Object.keys(sessionStorage).length") == 0


def test_a_cancelled_ceremony_leaves_sign_in_as_it_was_and_adds_nothing(server, host, platform):
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    mark, _ = tap_passkey(host, "signIn")
    platform.reply(None, after=mark)
    notice = host.wait_for(lambda: text_of(host, "#capture_notice"), 5, "the notice")
    assert notice == TEXTS["widget.passkeyCancelled"]
    assert host.run_js("document.getElementById('capture_notice').getAttribute('role')") == "status"
    host.settle()
    names = host.names(host.queue_events[mark:])
    assert "onCaptureLoginStart" not in names and "onCaptureLoginSuccess" not in names, names
    assert host.visible_screen() == ["signIn"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert host.run_js("document.querySelector('#signIn [data-capture-passkey-sign-in]')"
                       ".getAttribute('aria-disabled')") is None, "the button works again"

    # On the profile page too: nothing is added, and the section says so.
    open_profile(server, host, registered["access_token"])
    mark, _ = host.mark()
    host.fill_and_submit_form("#editProfile form[data-capture-factor=addPasskey]", {"passkeyName": "Never made"})
    platform.reply(None, after=mark)
    note = "#editProfile [data-capture-passkeys] [data-capture-factor-note]"
    host.wait_for(lambda: text_of(host, note), 5, "the note")
    assert text_of(host, note) == TEXTS["widget.passkeyAddCancelled"]
    assert [p["name"] for p in server.factors(registered["access_token"])["passkeys"]] == ["Phone"]


def refused_on_sign_in(host, screen, mark):
    """The passkey sign-in was refused: the screen's error (role="alert"), onCaptureLoginFailed, no session."""
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    message = "#%s form[data-capture-form=signInForm] .capture_form_error" % screen
    assert text_of(host, message) == TEXTS["widget.passkeyRefused"]
    assert host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(message)) == "alert"
    assert host.visible_screen() == [screen]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert "onCaptureLoginSuccess" not in host.names(host.queue_events[mark:])
    return failed


def test_an_answer_made_for_another_origin_is_refused(server, host, platform):
    _, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    mark, _ = tap_passkey(host, "signIn")
    platform.answer(after=mark, origin="https://evil.example")
    failed = refused_on_sign_in(host, "signIn", mark)
    assert failed["code"] == 200 and "origin" in failed["errorDescription"], failed


def test_an_answer_replayed_for_a_second_request_is_refused(server, host, platform):
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    signed_in_with_passkey(host, server, platform, "signIn", email)
    first = platform.last
    sign_out(host)
    host.wait_for_screen("returnTraditional")
    mark, _ = tap_passkey(host, "returnTraditional")
    # The host answers the new request with the answer it gave the first one.
    platform.reply(first, after=mark)
    failed = refused_on_sign_in(host, "returnTraditional", mark)
    assert failed["code"] == 200 and "challenge" in failed["errorDescription"], failed


def test_a_cloned_authenticator_is_refused(server, host, platform):
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    signed_in_with_passkey(host, server, platform, "signIn", email)
    sign_out(host)
    host.wait_for_screen("returnTraditional")
    # A copy of the key whose counter is behind the original's.
    platform.authenticator.credentials[0].counter = 0
    mark, _ = tap_passkey(host, "returnTraditional")
    platform.answer(after=mark)
    failed = refused_on_sign_in(host, "returnTraditional", mark)
    assert "counter" in failed["errorDescription"], failed


def test_a_passkey_is_removed_from_the_profile(server, host, platform):
    _, registered = server.register()
    token = registered["access_token"]
    server.add_passkey(token, platform.authenticator, name="Phone")
    server.add_passkey(token, SoftAuthenticator(algorithm=-8), name="Laptop")
    open_profile(server, host, token)
    assert [item[0] for item in passkey_list(host)] == ["Phone", "Laptop"]
    host.click('#editProfile [data-capture-passkey-remove][data-capture-passkey-name="Phone"]')
    host.wait_for(lambda: [item[0] for item in passkey_list(host)] == ["Laptop"], 10, "Phone to leave the list")
    note = "#editProfile [data-capture-passkeys] [data-capture-factor-note]"
    assert text_of(host, note) == TEXTS["widget.passkeyRemoved"].replace("%s", "Phone")
    assert host.run_js("document.activeElement.id") == "passkeys_title", "focus stays in the section"
    assert [p["name"] for p in server.factors(token)["passkeys"]] == ["Laptop"]
    # The removed one no longer signs in (the host signed the person out natively first).
    assert host.run_js("janrain.capture.ui.clearCaptureSession()") is True
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("returnTraditional")
    mark, _ = tap_passkey(host, "returnTraditional")
    platform.answer(after=mark, credential=platform.authenticator.credentials[0])
    refused_on_sign_in(host, "returnTraditional", mark)


def test_in_code_mode_a_passkey_sign_in_hands_the_host_a_code_its_verifier_redeems(server, host, platform):
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    page, verifier = code_mode_page(server)
    host.load(page)
    host.wait_for_screen("signIn")
    mark, _ = tap_passkey(host, "signIn")
    platform.answer(after=mark)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert address_behind_code(server, host, success, page, verifier) == email


def test_where_the_web_view_refuses_webauthn_the_host_is_asked(server, host, platform):
    """A WKWebView without the associated domain has navigator.credentials but answers NotSupportedError."""
    host.add_user_script("""window.PublicKeyCredential = function PublicKeyCredential() {};
        Object.defineProperty(navigator, 'credentials', {configurable: true, value: {
            create: function () { window.__calls = (window.__calls || 0) + 1;
                return Promise.reject(new DOMException('not for this app', 'NotSupportedError')); },
            get: function () { window.__calls = (window.__calls || 0) + 1;
                return Promise.reject(new DOMException('not for this app', 'NotSupportedError')); }}});""")
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    signed_in_with_passkey(host, server, platform, "signIn", email)
    assert host.run_js("window.__calls") == 1, "the page tried navigator.credentials first"


def test_where_webauthn_works_the_page_uses_it_and_the_host_sees_nothing(server, make_host):
    """navigator.credentials as a browser has it (here a stand-in that hands the options to the test, which answers
    with the platform's credential object): the page decodes the options itself, sends the credential's JSON, and no
    onCapturePasskeyRequest reaches the host."""
    host = make_host()
    host.add_user_script("""(function () {
        function b64(buffer) { var s = '', b = new Uint8Array(buffer);
            for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
            return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, ''); }
        window.PublicKeyCredential = function PublicKeyCredential() {};
        Object.defineProperty(navigator, 'credentials', {configurable: true, value: {
            create: function () { return Promise.reject(new DOMException('unused', 'NotSupportedError')); },
            get: function (request) {
                var o = request.publicKey;
                window.__asked = {challenge: b64(o.challenge), rpId: o.rpId, userVerification: o.userVerification,
                                  allowCredentials: (o.allowCredentials || []).map(function (c) {
                                      return {type: c.type, id: b64(c.id)}; })};
                return new Promise(function (resolve) {
                    window.__answer = function (json) { resolve({toJSON: function () { return json; }}); };
                }); }}});
    })();""")
    platform = PasskeyPlatform(host, server.base)
    email, registered = server.register()
    server.add_passkey(registered["access_token"], platform.authenticator)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(document.querySelector('#signIn input[name=signInEmailAddress]').value = %s, true)"
                % json.dumps(email))
    mark, _ = tap_passkey(host, "signIn")
    asked = host.wait_for(lambda: host.run_js("window.__asked || null"), 10, "navigator.credentials.get")
    assert asked["rpId"] == "127.0.0.1" and asked["userVerification"] == "required"
    assert len(asked["allowCredentials"]) == 1, "address-first"
    answer = platform.authenticator.get(asked, server.base)
    host.run_js("(window.__answer(%s), true)" % json.dumps(answer))
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert success["userData"]["email"] == email
    host.settle()
    assert "onCapturePasskeyRequest" not in host.names(host.queue_events[mark:])


def test_screenshots_of_the_passkey_sign_in_and_the_profiles_passkeys(server, host, platform):
    _, registered = server.register(display_name="Grace")
    token = registered["access_token"]
    server.add_passkey(token, platform.authenticator, name="Work phone")
    server.add_passkey(token, SoftAuthenticator(), name="Laptop")
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    mark, _ = tap_passkey(host, "signIn")
    platform.reply(None, after=mark)
    host.wait_for(lambda: text_of(host, "#capture_notice"), 5, "the notice")
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "passkeys" / "signIn-passkey-cancelled.png")
    open_profile(server, host, token)
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "passkeys" / "editProfile-factors.png")
