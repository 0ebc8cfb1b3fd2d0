"""Sessions and failures in a real web view (docs/contract.md §3): the session survives a reload, ends on request,
a revoked or expired token ends it cleanly, and failed sign-ins and registrations show their messages."""

from conftest import CLIENT_ID, PASSWORD, new_email


def visible_text(host, selector):
    return host.run_js(
        "(function(){var e=document.querySelector(%r);return e && !e.hidden ? e.textContent : null;})()" % selector
    )


def field_messages(host, screen):
    """{field name: visible message} for the screen's form."""
    return host.run_js("""(function(){var out={};
        var items=document.querySelectorAll('#%s .capture_form_item');
        for (var i=0;i<items.length;i++){var tip=items[i].querySelector('.capture_tip_error');
          if (tip && !tip.hidden) out[items[i].getAttribute('data-capture-field')]=tip.textContent;}
        return out;})()""" % screen)


def sign_in(host, screen, email, password=PASSWORD):
    host.fill_and_submit(screen, {"signInEmailAddress": email, "currentPassword": password})


def test_session_survives_reload_ends_on_request_and_sign_in_works_again(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, _ = host.mark()
    sign_in(host, "signIn", email)
    first = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    token = first["accessToken"]
    assert host.names(host.queue_events[queue_mark:])[:1] == ["onCaptureLoginStart"]
    assert first["userData"]["email"] == email

    # Reload: the stored token is checked with the service and the session is found.
    queue_mark, _ = host.mark()
    host.reload()
    found = host.wait_for_event("onCaptureSessionFound", after=queue_mark).result
    assert found["status"] == "success" and found["statusMessage"] == "profileFound"
    assert found["userData"]["email"] == email
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is True
    host.wait_for_screen("signedIn")
    assert "onCaptureSessionNotFound" not in host.names(host.queue_events[queue_mark:])

    # The host signs the user out: the page forgets the token and the service revokes it.
    queue_mark, _ = host.mark()
    host.run_js("janrain.capture.ui.endCaptureSession()")
    ended = host.wait_for_event("onCaptureSessionEnded", after=queue_mark).result
    assert ended["status"] == "success"
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert host.run_js("[localStorage.getItem('janrainCaptureToken'), localStorage.getItem("
                       "'janrainCaptureToken_Expires'), localStorage.getItem('janrainCaptureProfileData')]") == [
        None, None, None]
    host.wait_for(lambda: server.post("/entity", {"access_token": token})[1].get("stat") == "error", 10,
                  "the signed-out token to be revoked")

    # The remembered address brings up returnTraditional; "use another account" goes to signIn.
    host.wait_for_screen("returnTraditional")
    assert host.run_js("document.querySelector('#returnTraditional [name=signInEmailAddress]').value") == email
    host.click('#returnTraditional [data-capture-action="forgetEmail"]')
    host.wait_for_screen("signIn")
    queue_mark, message_mark = host.mark()
    sign_in(host, "signIn", email)
    second = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert second["accessToken"] and second["accessToken"] != token
    assert host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result == second
    assert server.post("/entity", {"access_token": second["accessToken"]})[1]["stat"] == "ok"


def test_returning_user_signs_in_on_return_traditional(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(localStorage.setItem('janrainLastEmail', %r), true)" % email)
    host.reload()
    host.wait_for_screen("returnTraditional")
    assert email in host.run_js("document.getElementById('returnTraditional').textContent")
    queue_mark, _ = host.mark()
    host.fill_and_submit("returnTraditional", {"currentPassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert success["userData"]["email"] == email


def test_wrong_password_fires_login_failed_and_shows_a_message(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    queue_mark, _ = host.mark()
    sign_in(host, "signIn", email, "not the password")
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert failed["status"] == "error"
    assert failed["flow"] == "webViewSignIn" and failed["transactionId"]
    message = host.wait_for(lambda: visible_text(host, "#signIn .capture_form_error"), 5, "a visible form error")
    assert "password" in message.lower()
    host.settle()
    assert "onCaptureLoginSuccess" not in host.names(host.queue_events)
    assert host.token_urls == []
    assert host.run_js("document.querySelector('#signIn button[type=submit]').disabled") is False
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None

    # An unknown address gets the same message (no account enumeration through the page).
    queue_mark, _ = host.mark()
    sign_in(host, "signIn", new_email(), "not the password")
    host.wait_for_event("onCaptureLoginFailed", after=queue_mark)
    assert host.wait_for(lambda: visible_text(host, "#signIn .capture_form_error"), 5, "form error") == message

    # The next attempt clears the old message first, then succeeds.
    queue_mark, _ = host.mark()
    sign_in(host, "signIn", email)
    host.wait_for_event("onCaptureLoginSuccess", after=queue_mark)
    assert host.run_js("document.querySelector('#signIn .capture_form_error').hidden") is True


def test_registration_errors_appear_next_to_their_fields(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    queue_mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": "not-an-address", "displayName": "Bad Fields",
        "newPassword": "long enough pw", "newPasswordConfirm": "a different pw",
    })
    failed = host.wait_for_event("onCaptureValidationFailed", after=queue_mark).result
    host.wait_for_event("onCaptureRegistrationFailed", after=queue_mark)
    assert failed["status"] == "error"
    assert set(failed["invalidFields"]) == {"emailAddress", "newPasswordConfirm"}
    order = host.names(host.queue_events[queue_mark:])
    assert order.index("onCaptureRegistrationStart") < order.index("onCaptureValidationFailed")
    messages = field_messages(host, "traditionalRegistration")
    assert set(messages) == {"emailAddress", "newPasswordConfirm"}
    assert "valid email" in messages["emailAddress"].lower()
    assert "match" in messages["newPasswordConfirm"].lower()
    for name in ("emailAddress", "newPasswordConfirm"):
        assert host.run_js(
            "document.querySelector('#traditionalRegistration [name=%s]').getAttribute('aria-invalid')" % name
        ) == "true"
    assert host.run_js(
        "document.querySelector('#traditionalRegistration [name=displayName]').getAttribute('aria-invalid')"
    ) is None
    # The message is tied to its input for screen readers.
    assert host.run_js("(function(){var i=document.querySelector('#traditionalRegistration [name=emailAddress]');"
                       "return document.getElementById(i.getAttribute('aria-describedby')).textContent;})()"
                       ) == messages["emailAddress"]

    # An address already in use is a field message too (code 380).
    taken, _ = server.register()
    queue_mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": taken, "displayName": "Taken", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    host.wait_for_event("onCaptureRegistrationFailed", after=queue_mark)
    messages = field_messages(host, "traditionalRegistration")
    assert list(messages) == ["emailAddress"], "old messages are cleared on each submit: %s" % messages
    assert "in use" in messages["emailAddress"].lower()


def test_a_revoked_token_ends_the_session_on_reload(server, host):
    email, reply = server.register()
    token = reply["access_token"]
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(localStorage.setItem('janrainCaptureToken', %r), localStorage.setItem("
                "'janrainCaptureToken_Expires', new Date(Date.now() + 3600e3).toUTCString()), true)" % token)
    status, _, _ = server.post("/oauth/revoke", {"token": token, "client_id": CLIENT_ID})
    assert status == 200
    queue_mark, _ = host.mark()
    host.reload()
    invalid = host.wait_for_event("onCaptureInvalidToken", after=queue_mark).result
    assert invalid["status"] == "error" and invalid["statusMessage"]
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    assert "onCaptureSessionFound" not in host.names(host.queue_events[queue_mark:])
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None
    host.wait_for_screen("signIn")
    notice = host.run_js("(function(){var n=document.getElementById('capture_notice');"
                         "return n && !n.hidden ? n.textContent : null;})()")
    assert notice and "session has ended" in notice, "the person is told why they see sign-in again"


def test_a_locally_expired_token_fires_expired_token(server, host):
    _, reply = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(localStorage.setItem('janrainCaptureToken', %r), localStorage.setItem("
                "'janrainCaptureToken_Expires', new Date(Date.now() - 60e3).toUTCString()), true)"
                % reply["access_token"])
    queue_mark, _ = host.mark()
    host.reload()
    expired = host.wait_for_event("onCaptureExpiredToken", after=queue_mark).result
    assert expired["status"] == "error"
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for_screen("signIn")
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None


def test_host_injected_token_opens_the_profile_and_saves_it(server, host):
    email, reply = server.register(display_name="Injected")
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureSessionNotFound")
    host.wait_for_screen("signIn")
    queue_mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % reply["access_token"])
    found = host.wait_for_event("onCaptureSessionFound", after=queue_mark).result
    assert found["userData"]["email"] == email
    created = host.wait_for_event("onCaptureSessionCreated", after=queue_mark).result
    assert created["accessToken"] == reply["access_token"] and created["userData"]["email"] == email
    host.wait_for_screen("editProfile")
    values = host.run_js("(function(){var f=document.forms.editProfileForm, o={};"
                         "for (var i=0;i<f.elements.length;i++){var e=f.elements[i]; if(e.name) o[e.name]=e.value;}"
                         "return o;})()")
    assert values["emailAddress"] == email and values["displayName"] == "Injected"

    queue_mark, _ = host.mark()
    host.fill_and_submit("editProfile", {
        "displayName": "Renamed", "firstName": "Ada", "lastName": "Lovelace",
        "birthdate": "1990-12-10", "phone": "+1 555 0100",
    })
    saved = host.wait_for_event("onCaptureProfileSaveSuccess", after=queue_mark).result
    assert saved["statusMessage"] == "profileSaved"
    assert visible_text(host, "#editProfile .capture_form_success")
    entity = server.post("/entity", {"access_token": reply["access_token"]})[1]["result"]
    assert (entity["displayName"], entity["givenName"], entity["familyName"]) == ("Renamed", "Ada", "Lovelace")
    assert entity["birthday"] == "1990-12-10"

    # A bad phone number: a field message, and both failure events.
    queue_mark, _ = host.mark()
    host.fill_and_submit("editProfile", {"phone": "call me maybe"})
    host.wait_for_event("onCaptureProfileSaveFailed", after=queue_mark)
    host.wait_for_event("onCaptureSaveFailed", after=queue_mark)
    assert "phone" in field_messages(host, "editProfile")


OFFLINE = """(function(){
    var realFetch = window.fetch;
    window.__offline = false;
    window.fetch = function(){
        if (window.__offline) return Promise.reject(new TypeError('Network request failed'));
        return realFetch.apply(this, arguments);
    };
    if (sessionStorage.getItem('startOffline')) window.__offline = true;
})();"""


def test_an_unreachable_service_never_leaves_the_page_stuck(server, host):
    host.add_user_script(OFFLINE)
    email, reply = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")

    # A submission that cannot reach the service: the failed event and a visible message.
    host.run_js("(window.__offline = true)")
    queue_mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert failed["status"] == "error" and failed["statusMessage"] == "networkError"
    message = host.wait_for(lambda: visible_text(host, "#signIn .capture_form_error"), 5, "network message")
    assert "connection" in message.lower()
    assert host.run_js("document.querySelector('#signIn button[type=submit]').disabled") is False

    # A stored session that cannot be checked at start: a screen and a notice, not "Loading…" forever.
    host.run_js("(localStorage.setItem('janrainCaptureToken', %r), localStorage.setItem('janrainCaptureToken_Expires',"
                " new Date(Date.now() + 3600e3).toUTCString()), sessionStorage.setItem('startOffline', '1'), true)"
                % reply["access_token"])
    queue_mark, _ = host.mark()
    host.reload()
    host.wait_for_event("onCaptureRenderComplete", after=queue_mark)
    assert host.run_js("document.getElementById('capture_loading').hidden") is True
    assert len(host.visible_screen()) == 1
    assert host.run_js("!!document.querySelector('[role=alert]:not([hidden])')"), "a visible notice"
