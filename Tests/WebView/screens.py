"""Every screen of a flow page, each put up in a real state (signed in for the session screens, through the real
OpenID Connect provider for the social ones), for the checks that must hold on all of them: axe-core, tap targets,
text zoom, screenshots. Also the colour-scheme switch the host has: WebKitGTK reports GTK's dark-theme preference
to pages as `prefers-color-scheme: dark`."""

import json
import uuid

from conftest import CLIENT_ID, PASSWORD
from host import set_dark_scheme
from test_accessibility import run_axe
from test_screenshots import LAYOUT_CHECK
from test_social_sign_in import answer_at_provider, back_on_page, new_subject, tap_provider

# Screens that need a signed-in page, those that need a social sign-in in progress, those that need a password
# sign-in waiting for its second factor, those that need an account deleted (just now in the page, or refused a
# sign-in since), and the one that needs a sign-in waiting for documents to be accepted: capture-ui.js shows sign-in
# instead of any of them without it.
SESSION_SCREENS = ("signedIn", "editProfile", "changePassword", "newPasswordSuccess", "confirmAccountDeactivation")
SOCIAL_SCREENS = ("socialRegistration", "mergeAccounts", "traditionalAuthenticateMerge")
FACTOR_SCREENS = ("twoFactor",)
DELETION_SCREENS = ("accountDeactivated", "reactivateAccount")
# A sign-in waiting for documents its client requires: the suite's service requires none, so the walk leaves it out
# (test_terms.py puts it up against a service that does).
TERMS_SCREENS = ("termsAgreement",)
# editProfile's passkey and authenticator-app sections, and confirmAccountDeactivation's form, drawn once /factors has
# answered; editProfile's sessions once /sessions has.
FACTORS_PENDING_JS = ("!document.querySelector('"
                      ".capture_screen:not([hidden]) [data-capture-totp]:not([data-capture-ready]), "
                      ".capture_screen:not([hidden]) [data-capture-sessions]:not([data-capture-ready]), "
                      ".capture_screen:not([hidden]) form[data-capture-form=deactivateAccountForm]:not([data-capture-ready])')")

# Visible screen's controls: every link, button and input a finger may need to hit.
CONTROLS_JS = """(function(){
    var out = [];
    var nodes = document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea');
    for (var i = 0; i < nodes.length; i++) {
        var box = nodes[i].getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;  // not shown (a hidden screen or message)
        out.push({what: nodes[i].tagName.toLowerCase() + ' "' + (nodes[i].textContent || nodes[i].name || '').trim()
                  .replace(/\\s+/g, ' ').slice(0, 40) + '"', width: box.width, height: box.height});
    }
    return out;
})()"""

# Every shown element whose box leaves the viewport sideways, and whether the document scrolls sideways.
OVERFLOW_JS = """(function(){
    var problems = [], width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width)
        problems.push('document scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
    var nodes = document.body.querySelectorAll('*');
    for (var i = 0; i < nodes.length; i++) {
        var box = nodes[i].getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (box.right > width + 0.5 || box.left < -0.5)
            problems.push(nodes[i].tagName.toLowerCase() + (nodes[i].id ? '#' + nodes[i].id : '') + '.'
                          + nodes[i].className + ' spans ' + Math.round(box.left) + '..' + Math.round(box.right));
    }
    return problems;
})()"""


def use_scheme(host, dark):
    """Switches the system's colour scheme (unless the page already sees the one asked for), waits until the page sees
    it, and lets every colour transition end."""
    query = "matchMedia('(prefers-color-scheme: dark)').matches"
    if host.run_js(query) is not dark:
        set_dark_scheme(dark)
        host.wait_for(lambda: host.run_js(query) is dark, 5, "prefers-color-scheme %s" % ("dark" if dark else "light"))
    # Buttons fade their background (capture.css); a check in mid-fade would see half a colour. What is checked is
    # the end state, so every transition not finished yet (running, or still pending on a loaded machine) is
    # finished, until a look finds none left.
    unfinished = ("document.getAnimations().filter(function(a){ var t = a.effect && a.effect.target;"
                  " return a.playState !== 'finished' && t && t.getClientRects().length > 0"
                  " && a.effect.getComputedTiming().endTime !== Infinity; })"
                  ".map(function(a){ try { a.finish(); } catch (e) {} var t = a.effect && a.effect.target;"
                  " return t ? t.tagName + '.' + t.className : String(a); })")
    seen = {}

    def settled():
        seen["unfinished"] = host.run_js(unfinished)
        if seen["unfinished"]:
            host.pump(0.05)
        return seen["unfinished"] == []

    try:
        host.wait_for(settled, 5, "colour transitions to end")
    except AssertionError:
        raise AssertionError("still unfinished after finishing them: %s" % seen.get("unfinished")) from None


def checked_at_phone_size(host, path, what=None):
    """The page as it is now passes axe-core and the phone's layout checks (LAYOUT_CHECK) with no focus ring left
    over, and is written to `path`."""
    assert run_axe(host) == [], what
    host.run_js("(document.activeElement && document.activeElement.blur(), true)")
    assert host.run_js(LAYOUT_CHECK) == [], what
    host.snapshot(path)


def checked_light_and_dark(host, folder, name):
    """checked_at_phone_size in the light colour scheme, then the dark: `folder`/`name`-light.png and -dark.png."""
    for scheme in ("light", "dark"):
        use_scheme(host, scheme == "dark")
        checked_at_phone_size(host, folder / ("%s-%s.png" % (name, scheme)), scheme)


def settle_screen(host):
    """No focus ring or scroll position left over from the way the screen was reached."""
    host.run_js("(document.activeElement && document.activeElement.blur && document.activeElement.blur(),"
                " window.scrollTo(0, 0), true)")
    host.pump(0.05)


def text_of(host, selector):
    """The element's text with its white space collapsed, or None when it is missing or hidden."""
    return host.run_js("(function(e){return e && !e.hidden ? e.textContent.replace(/\\s+/g, ' ').trim() : null;})"
                       "(document.querySelector(%s))" % json.dumps(selector))


def open_profile(server, host, token, **query):
    """The profile page (`query`: more of its query, such as `locale`) with the host's token (createCaptureSession),
    its factor sections drawn from /factors and its sessions from /sessions."""
    host.load(server.page("webViewProfile", session="pending", **query))
    host.wait_for_event("onCaptureRenderComplete")
    mark, _ = host.mark()
    host.run_js("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(token))
    host.wait_for_event("onCaptureSessionFound", after=mark)
    host.wait_for_screen("editProfile")
    host.wait_for(lambda: host.run_js(FACTORS_PENDING_JS), 10, "the factor and session sections")


def fail_requests(host, answers):
    """From the next page load on, the page's requests to each path of `answers` ({path: [answer, ...]}) go wrong in
    turn, one answer each: None, the network is down (fetch rejects); (status, body), that reply instead of the
    service's. Once a path's answers are used up its requests reach the service again. (A user script, as a host's
    WKUserScript: add it before host.load.)"""
    host.add_user_script("""(function () { var fetch = window.fetch, answers = %s;
        window.fetch = function (url) { var path = String(url).replace(/^https?:\\/\\/[^\\/]+/, '');
            var next = answers[path] && answers[path].length ? answers[path].shift() : undefined;
            if (next === null) return Promise.reject(new TypeError('offline'));
            if (next) return Promise.resolve(new Response(JSON.stringify(next[1]),
                {status: next[0], headers: {'Content-Type': 'application/json'}}));
            return fetch.apply(this, arguments); }; })();""" % json.dumps(answers))


def signed_out_by_a_dead_token(server, host, token, selector, failed):
    """The page's own sign-in ended elsewhere (`token` revoked), then `selector` tapped: the failure (`failed`, an
    event) comes first, then onCaptureInvalidToken and onCaptureSessionEnded, and the page signs out as for any dead
    token (no session, the notice saying so, sign-in shown). Returns the failure's result."""
    from test_languages import catalog  # test_languages imports this module

    assert server.post("/oauth/revoke", {"token": token, "client_id": CLIENT_ID})[0] == 200
    mark, _ = host.mark()
    host.click(selector)
    host.wait_for_event("onCaptureSessionEnded", after=mark)
    host.settle()
    host.sync()
    watched = (failed, "onCaptureInvalidToken", "onCaptureExpiredToken", "onCaptureSessionEnded")
    events = [(e.name, e.result) for e in host.queue_events[mark:] if e.name in watched]
    assert [name for name, _ in events] == [failed, "onCaptureInvalidToken", "onCaptureSessionEnded"], events
    assert events[0][1]["error"] == "invalid_access_token", events[0]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    assert text_of(host, "#capture_notice") == catalog("en")["widget.sessionEnded"]
    assert host.visible_screen() in (["signIn"], ["returnTraditional"])
    return events[0][1]


def show(host, name):
    assert host.run_js("janrain.capture.ui.renderScreen(%s)" % json.dumps(name)) is True, name
    host.wait_for_screen(name)
    host.wait_for(lambda: host.run_js(FACTORS_PENDING_JS), 10, "the factor sections of %s" % name)
    settle_screen(host)


def session_token(server, email):
    """An access token for `email`: registered the first time, signed in after, the account's earlier sessions ended
    (the address is fixed and editProfile lists this session alone, so screenshots stay the same from run to run)."""
    status, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": email, "displayName": "Grace", "firstName": "Grace",
        "lastName": "Hopper", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    if reply.get("stat") != "ok":
        status, reply, _ = server.post("/oauth/auth_native_traditional", {
            "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
            "response_type": "token", "signInEmailAddress": email, "currentPassword": PASSWORD})
    assert reply.get("stat") == "ok", "no session for %s: %s" % (email, reply)
    # An empty date field shows today's date as its placeholder in WebKitGTK: a fixed one keeps shots stable.
    status, updated, _ = server.post("/entity.update", {
        "access_token": reply["access_token"], "attributes": json.dumps({"birthday": "1906-12-09"})})
    assert updated.get("stat") == "ok", updated
    status, ended, _ = server.post("/sessions/end_others", {"access_token": reply["access_token"]})
    assert ended.get("stat") == "ok", ended
    return reply["access_token"]


def active_token(server, email, client_id=CLIENT_ID):
    """An access token for `email`'s account, as it is when active: registered the first time, brought back (a sign-in
    with reactivate=true) when a walk left it deleted."""
    status, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": client_id, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": email, "displayName": "Grace", "newPassword": PASSWORD,
        "newPasswordConfirm": PASSWORD})
    if reply.get("stat") != "ok":
        status, reply, _ = server.post("/oauth/auth_native_traditional", {
            "client_id": client_id, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
            "response_type": "token", "signInEmailAddress": email, "currentPassword": PASSWORD, "reactivate": "true"})
    assert reply.get("stat") == "ok", "no session for %s: %s" % (email, reply)
    return reply["access_token"]


def sign_in_from(server, email, user_agent, password=PASSWORD):
    """A sign-in to `email`'s account from another device, through the API as that device's app makes it, its
    User-Agent naming the device (the account's sessions show it); returns the access token."""
    status, reply, _ = server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": password},
        headers={"User-Agent": user_agent})
    assert reply.get("stat") == "ok", "no sign-in for %s: %s %s" % (email, status, reply)
    return reply["access_token"]


def account_sessions(server, token):
    """The sessions of the account of `token`, as POST /sessions lists them (this one first)."""
    status, reply, _ = server.post("/sessions", {"access_token": token})
    assert status == 200 and reply.get("stat") == "ok", "no sessions: %s %s" % (status, reply)
    return reply["sessions"]


def delete_account(server, token, password=PASSWORD, client_id=CLIENT_ID):
    """Deletes the account of `token` as its owner does (POST /oauth/deactivate_account); returns the reply."""
    status, reply, _ = server.post("/oauth/deactivate_account", {
        "client_id": client_id, "flow": "webViewProfile", "locale": "en-US",
        "form": "deactivateAccountForm", "access_token": token, "currentPassword": password})
    assert status == 200 and reply.get("stat") == "ok", "not deleted: %s %s" % (status, reply)
    return reply


def screen_ids(host):
    return host.run_js("[].map.call(document.querySelectorAll('.capture_screen'), function(s){return s.id;})")


def every_screen(host, server, oidc_provider, flow, client_id=CLIENT_ID, only=None, locale=None):
    """Loads `flow` and yields the name of each state as it is up: every screen (by renderScreen, the host's own
    command), sign-in and registration with their error messages, the session screens signed in, and the social
    screens reached through the provider. `only` limits it to those names; `locale` is the page's `locale`."""
    wanted = (lambda name: only is None or name in only)
    email = "screens-%s@example.com" % flow.lower()
    page = (lambda: server.page(flow, client_id=client_id, **({"locale": locale} if locale else {})))
    host.load(page())
    host.wait_for_event("onCaptureRenderComplete")
    ids = screen_ids(host)
    for name in ids:
        if name not in SESSION_SCREENS + SOCIAL_SCREENS + FACTOR_SCREENS + DELETION_SCREENS + TERMS_SCREENS \
                and wanted(name):
            show(host, name)
            yield name
    if "signIn" in ids and wanted("signIn-error"):
        session_token(server, email)  # the account exists, the password is wrong: the message offers a reset
        show(host, "signIn")
        mark, _ = host.mark()
        host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": "wrong " + PASSWORD})
        host.wait_for_event("onCaptureLoginFailed", after=mark)
        settle_screen(host)
        yield "signIn-error"
    if "twoFactor" in ids and wanted("twoFactor"):
        # The right password of an account with an authenticator app (a new one each walk: no worker waits for another).
        two_step, registered = server.register(email="screens-2fa-%s@example.com" % uuid.uuid4().hex[:10])
        server.set_up_authenticator(registered["access_token"])
        show(host, "signIn")
        host.fill_and_submit("signIn", {"signInEmailAddress": two_step, "currentPassword": PASSWORD})
        host.wait_for_screen("twoFactor")
        settle_screen(host)
        yield "twoFactor"
    if "traditionalRegistration" in ids and wanted("traditionalRegistration-errors"):
        show(host, "traditionalRegistration")
        mark, _ = host.mark()
        host.fill_and_submit("traditionalRegistration", {
            "emailAddress": "not-an-address", "displayName": "", "newPassword": "short", "newPasswordConfirm": "other"})
        host.wait_for_event("onCaptureValidationFailed", after=mark)
        settle_screen(host)
        yield "traditionalRegistration-errors"
    session = [name for name in ids if name in SESSION_SCREENS and wanted(name)]
    if session:
        mark, _ = host.mark()
        host.run_js("(janrain.capture.ui.createCaptureSession(%s), true)" % json.dumps(session_token(server, email)))
        host.wait_for_event("onCaptureSessionFound", after=mark)
        for name in session:
            show(host, name)
            yield name
        host.run_js("(janrain.capture.ui.endCaptureSession(), true)")
        host.settle()
    deleted = "screens-deleted-%s@example.com" % flow.lower()
    if "accountDeactivated" in ids and (wanted("accountDeactivated") or wanted("reactivateAccount")):
        # The account's owner deletes it in the page (the same address each walk: brought back first when an earlier
        # walk left it deleted).
        mark, _ = host.mark()
        host.run_js("(janrain.capture.ui.createCaptureSession(%s), true)" % json.dumps(active_token(server, deleted, client_id)))
        host.wait_for_event("onCaptureSessionFound", after=mark)
        show(host, "confirmAccountDeactivation")
        host.fill_and_submit("confirmAccountDeactivation", {"currentPassword": PASSWORD})
        host.wait_for_screen("accountDeactivated")
        settle_screen(host)
        if wanted("accountDeactivated"):
            yield "accountDeactivated"
    elif "reactivateAccount" in ids and wanted("reactivateAccount"):
        delete_account(server, active_token(server, deleted, client_id), client_id=client_id)
    if "reactivateAccount" in ids and wanted("reactivateAccount"):
        # Its password on the sign-in screen: the service answers that its owner may bring it back.
        show(host, "signIn")
        host.fill_and_submit("signIn", {"signInEmailAddress": deleted, "currentPassword": PASSWORD})
        host.wait_for_screen("reactivateAccount")
        settle_screen(host)
        yield "reactivateAccount"
    if "socialRegistration" in ids and wanted("socialRegistration"):
        subject = new_subject()
        oidc_provider.set_user(subject, {"name": "No Mail", "given_name": "Nomi"})
        _through_provider(host, page(), oidc_provider, server, subject)
        host.wait_for_screen("socialRegistration")
        settle_screen(host)
        yield "socialRegistration"
    if "mergeAccounts" in ids and (wanted("mergeAccounts") or wanted("traditionalAuthenticateMerge")):
        subject = new_subject()
        session_token(server, email)
        oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Grace at Mock"})
        _through_provider(host, page(), oidc_provider, server, subject)
        host.wait_for_screen("mergeAccounts")
        settle_screen(host)
        if wanted("mergeAccounts"):
            yield "mergeAccounts"
        if wanted("traditionalAuthenticateMerge"):
            host.click('#mergeAccounts [data-capture-screen="traditionalAuthenticateMerge"]')
            host.wait_for_screen("traditionalAuthenticateMerge")
            settle_screen(host)
            yield "traditionalAuthenticateMerge"


def _through_provider(host, url, oidc_provider, server, subject):
    host.load(url)
    host.wait_for_event("onCaptureRenderComplete")
    visible = host.visible_screen()  # signIn, or returnTraditional once the page remembers an address
    assert len(visible) == 1, visible
    tap_provider(host, visible[0])
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
