"""The flow pages as a web view receives them (docs/contract.md §2, §3): janrain.settings, security headers,
error pages, and the janrain.* API surface that Janrain-era host code relies on."""

import base64
import hashlib
import re

from conftest import CLIENT_ID

SPEC_EVENTS = [
    "onCaptureLoginStart", "onCaptureLoginSuccess", "onCaptureLoginFailed",
    "onCaptureRegistrationStart", "onCaptureRegistrationSuccess", "onCaptureRegistrationFailed",
    "onCaptureSessionFound", "onCaptureSessionNotFound", "onCaptureSessionCreated",
    "onCaptureSessionEnded", "onCaptureExpiredToken", "onCaptureInvalidToken",
    "onCaptureProfileSaveSuccess", "onCaptureProfileSaveFailed", "onCaptureSaveFailed",
    "onCaptureScreenShow", "onCaptureRenderComplete", "onCaptureEmailSent",
    "onCaptureEmailVerificationSuccess", "onCaptureForgotPasswordCodeSuccess",
    "onCaptureValidationFailed", "onProviderLoginStart", "onProviderLoginSuccess", "onProviderLoginError",
]
# Janrain's failure counterparts of the code events, beyond the minimum list in docs/contract.md §3 (docs/bridge-protocol.md).
JANRAIN_EXTRA_EVENTS = ["onCaptureForgotPasswordCodeFailed", "onCaptureEmailVerificationFailed",
                        "onCaptureLinkAccountError", "onModalOpen", "onModalClose", "onCaptureRenderStart",
                        "onCaptureModalReady", "onCaptureSaveSuccess", "onCaptureAccessDenied",
                        "onCaptureAccountDeactivateSuccess", "onCaptureAccountReactivateSuccess",
                        "onCaptureAccountReactivateFailed", "onCaptureBackplaneReady"]
# Ours, beyond Janrain: the system-browser hand-off (docs/social-handoff.md), the linked-accounts section, the
# passkey relay (docs/bridge-protocol.md, "Passkeys"), the profile's sessions ("Your sessions"), its data ("Your
# data") and the documents a sign-in waits for ("Terms and their versions").
OUR_EVENTS = ["onProviderLoginHandoff", "onCaptureLinkAccountSuccess", "onCaptureUnlinkAccountSuccess",
              "onCaptureUnlinkAccountError", "onCapturePasskeyRequest", "onCaptureSessionsEnded",
              "onCaptureSessionsEndFailed", "onCaptureAccountDataReady", "onCaptureAccountDataMailed",
              "onCaptureAccountDataFailed", "onCaptureTermsAgreementRequired", "onCaptureTermsAccepted"]


def test_janrain_settings_hold_the_redirect_mode_values(server, host):
    url = server.page("webViewSignIn", locale="en-US")
    host.load(url + "#some-fragment")
    host.wait_for_event("onCaptureRenderComplete")
    settings = host.run_js("janrain.settings")
    assert settings["popup"] is False
    assert settings["type"] == "embed"
    assert settings["tokenAction"] == "url"
    assert settings["packages"] == ["login", "capture"]
    assert settings["tokenUrl"], "tokenUrl is set (validated, unused in the redirect flow)"
    capture = settings["capture"]
    assert capture["redirectFlow"] is True
    assert capture["redirectUri"] == url, "redirectUri is location.href without the fragment"
    assert capture["redirectUri"] == host.run_js("location.href.split('#')[0]")
    assert capture["captureServer"] == server.base
    assert capture["clientId"] == CLIENT_ID
    assert capture["flowName"] == "webViewSignIn"
    assert capture["responseType"] == "token"
    assert capture["locale"] == "en-US"
    assert capture["registerFlow"] == "traditionalRegistration"
    assert capture["flowVersion"] and capture["appId"]
    assert settings["bridge"]["legacyTokenUrl"] is True, "the demo client turns the legacy token URL on"


def test_page_starts_on_sign_in_and_fires_session_not_found(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    host.settle()
    assert host.visible_screen() == ["signIn"]
    names = host.names(host.queue_events)
    assert names == ["onCaptureSessionNotFound", "onCaptureScreenShow", "onCaptureRenderComplete"], names
    shown = host.queue_events[1].result
    assert shown["screen"] == "signIn" and shown["flow"] == "webViewSignIn"
    for event in host.queue_events:
        result = event.result
        for key in ("status", "statusMessage", "screen", "flow", "version", "transactionId"):
            assert key in result, "%s lacks %s: %s" % (event.name, key, result)
    assert host.run_js("document.getElementById('capture_loading').hidden") is True


def test_pages_are_sent_with_a_strict_policy_and_run_only_their_own_scripts(server):
    for flow in ("webViewSignIn", "webViewProfile", "webViewDemo"):
        status, body, headers = server.get("/flows/%s?client_id=%s" % (flow, CLIENT_ID))
        assert status == 200, (flow, status, body)
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "default-src 'none'" in csp and "frame-src janrain:" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert re.search(r'<html lang="en-US" dir="ltr">', body)
        assert 'name="viewport" content="width=device-width, initial-scale=1"' in body
        # Every script is a JSON data block but one: the first screen's modules, in the page at the end of the body
        # and allowed by its hash (the CSP allows no other inline script), naming the rest of the widget by its
        # content-addressed URL (docs/adr/0073); no inline handlers or style attributes, no script to fetch first.
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", body, re.S)
        code = [(attributes, text) for attributes, text in scripts if 'type="application/json"' not in attributes]
        assert len(code) == 1, [attributes for attributes, _ in code]
        attributes, text = code[0]
        assert re.fullmatch(r' data-capture-rest="/flows/assets/capture-rest\.[0-9a-f]{16}\.js"', attributes), attributes
        assert body.index(text) > body.index("</main>")
        digest = "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert re.search(r"(^|; )script-src 'self' %s(;|$)" % re.escape(digest), csp), csp
        assert "unsafe-inline" not in csp
        assert not re.search(r"\son[a-z]+=", body), "inline event handler in %s" % flow
        assert " style=" not in body
        assert "<link rel=\"stylesheet\"" not in body and "<link rel=\"preload\"" not in body
        assert "{*" not in body and "{{" not in body, "every template tag is expanded"


def test_assets_are_served_with_etags_and_revalidate(server):
    for name, kind in (("capture-ui.js", "javascript"), ("janrain-bridge.js", "javascript"),
                       ("capture.css", "text/css")):
        status, _, headers = server.get("/flows/assets/" + name)
        assert status == 200 and kind in headers["Content-Type"], (name, status)
        etag = headers["ETag"]
        assert etag
        again, _, _ = server.get("/flows/assets/" + name, headers={"If-None-Match": etag})
        assert again == 304, name


def test_unknown_flow_and_unknown_client_get_pages_that_say_what_to_do_and_tell_the_host(server, host):
    status, body, headers = server.get("/flows/noSuchFlow?client_id=%s" % CLIENT_ID)
    assert status == 404 and "noSuchFlow" in body
    assert "text/html" in headers["Content-Type"]
    status, body, _ = server.get("/flows/webViewSignIn?client_id=not-a-client")
    assert status == 400 and "not-a-client" in body
    # What a person in the web view sees: what happened and what to do, in words, with a way forward; the
    # developer's detail folded away; and the host hears that the page failed, on both transports.
    queue_mark, message_mark = host.mark()
    host.load(server.page("webViewSignIn", client_id="not-a-client"))
    queued = host.wait_for_event("onCaptureRenderComplete", after=queue_mark).result
    posted = host.wait_for_event("onCaptureRenderComplete", "message", after=message_mark).result
    assert queued == posted
    assert queued["status"] == "error" and queued["statusMessage"] == "pageError"
    assert queued["error"] == "invalidLink" and queued["httpStatus"] == 400
    page = host.run_js("""(function(){var b=document.querySelector('[data-capture-retry]').getBoundingClientRect();
        return {h1:document.querySelector('h1').textContent,lang:document.documentElement.lang,
                retry:document.querySelector('[data-capture-retry]').textContent,height:b.height,
                details:document.querySelector('details').open,text:document.body.innerText};})()""")
    assert page["h1"] == "This page can\u2019t open" and page["lang"] == "en"
    assert "Go back to the app" in page["text"] and "client" not in page["h1"].lower()
    assert page["retry"] == "Try again" and page["height"] >= 44 and page["details"] is False
    assert "not-a-client" in host.run_js("document.querySelector('details').textContent")
    queue_mark, _ = host.mark()
    host.load(server.page("noSuchFlow"))
    assert host.wait_for_event("onCaptureRenderComplete", after=queue_mark).result["error"] == "notFound"
    assert "noSuchFlow" in host.run_js("document.querySelector('details').textContent")


def test_janrain_events_enumerate_every_spec_event_and_only_the_documented_extras(server, host):
    host.load(server.page("webViewDemo"))
    host.wait_for_event("onCaptureRenderComplete")
    names = host.run_js("(function(){var n=[];for(var e in janrain.events){n.push(e);}return n;})()")
    assert sorted(names) == sorted(SPEC_EVENTS + JANRAIN_EXTRA_EVENTS + OUR_EVENTS)
    assert len(names) == len(set(names))
    assert host.run_js(
        "(function(){for(var e in janrain.events){var c=janrain.events[e];"
        "if(typeof c.addHandler!=='function'||typeof c.removeHandler!=='function')return e;}return true;})()"
    ) is True
    for method in ("start", "createCaptureSession", "endCaptureSession", "renderScreen", "hasActiveSession"):
        assert host.run_js("typeof janrain.capture.ui.%s" % method) == "function", method


def test_add_and_remove_handler(server, host):
    host.load(server.page("webViewDemo"))
    host.wait_for_event("onCaptureRenderComplete")
    seen = host.run_js("""(function(){
        var seen = [];
        var a = function(r){ seen.push('a:' + r.screen); };
        var b = function(r){ seen.push('b:' + r.screen); };
        janrain.events.onCaptureScreenShow.addHandler(a);
        janrain.events.onCaptureScreenShow.addHandler(b);
        janrain.capture.ui.renderScreen('traditionalRegistration');
        var removed = janrain.events.onCaptureScreenShow.removeHandler(a);
        janrain.capture.ui.renderScreen('signIn');
        janrain.events.onCaptureScreenShow.removeHandler(b);
        janrain.capture.ui.renderScreen('returnTraditional');
        return {seen: seen, removed: removed};
    })()""")
    assert seen["removed"] is True
    assert seen["seen"] == ["a:traditionalRegistration", "b:traditionalRegistration", "b:signIn"]


def test_profile_page_without_a_session_asks_to_sign_in(server, host):
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureSessionNotFound")
    host.wait_for_event("onCaptureRenderComplete")
    assert host.visible_screen() == ["signIn"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    # editProfile needs a session: asking for it shows sign-in instead.
    host.run_js("janrain.capture.ui.renderScreen('editProfile')")
    assert host.visible_screen() == ["signIn"]


def test_an_injected_inline_script_is_refused_by_the_pages_policy(server, host):
    """The policy allows the page's own inline script by its hash (docs/adr/0073), not inline scripts as such: a script
    element that gets into the page (markup injection, or the page's own script with a line added) runs nothing,
    while the page's own ran under the same policy."""
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete", "message")
    host.run_js("""(function () {
        window.__violations = []; window.__ran = [];
        document.addEventListener('securitypolicyviolation', function (e) { window.__violations.push(e.effectiveDirective); });
        var own = document.querySelector('script[data-capture-rest]').textContent;
        ['window.__ran.push("plain")', own + '\\nwindow.__ran.push("tampered")'].forEach(function (text) {
            var script = document.createElement('script');
            script.textContent = text;
            document.body.appendChild(script);
        });
        return true;
    })()""")
    host.wait_for(lambda: host.run_js("window.__violations.length") >= 2, 10, "two CSP violation reports")
    assert host.run_js("window.__ran") == []
    assert set(host.run_js("window.__violations")) <= {"script-src", "script-src-elem"}
