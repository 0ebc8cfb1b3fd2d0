"""editProfile's "Your sessions" (issue 31) in the real web view against the real service: every sign-in of the account
that is still alive, this one first as "This device", each with its client, the device its sign-in named in its
User-Agent (or "Unknown device") and its days; "Sign out" on another one and "Sign out everywhere else" end those on the
service (their tokens refused, the page's still good) with onCaptureSessionsEnded, and what goes wrong (the list
unreachable, a session ended meanwhile, the page's own token dead) is said in the section with
onCaptureSessionsEndFailed, never left loading. Also Arabic, axe-core light and dark, and screenshots at phone size in
.build/screenshots/sessions/."""

import json

from conftest import CLIENT_ID, SHOTS
from screens import (account_sessions, checked_at_phone_size, checked_light_and_dark, fail_requests, open_profile,
                     sign_in_from, signed_out_by_a_dead_token, text_of)
from test_accessibility import run_axe
from test_account_deletion import day_in_english, entity, service_date
from test_languages import catalog
from test_screenshots import LAYOUT_CHECK

TEXTS = catalog("en")
FOLDER = SHOTS / "sessions"
CLIENT_NAME = "Demo mobile app (public client)"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)"
          " Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0"
           " Mobile Safari/537.36")
IPAD_APP = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
SECTION = "#editProfile [data-capture-sessions]"
END_OTHERS = SECTION + " [data-capture-sessions-end-others]"
NOTE = SECTION + " [data-capture-factor-note]"
SESSION_EVENTS = ("onCaptureSessionsEnded", "onCaptureSessionsEndFailed", "onCaptureInvalidToken",
                  "onCaptureSessionEnded")


def session_rows(host):
    """[[client, [its lines], the button's accessible name or None], ...] as the section lists them."""
    return host.run_js("""[].map.call(document.querySelectorAll('#editProfile [data-capture-session-list] li'),
        function(li){ var button = li.querySelector('button');
            return [li.querySelector('strong').textContent,
                [].map.call(li.querySelectorAll('.capture_linked_text > span'), function(s){ return s.textContent; }),
                button ? button.getAttribute('aria-label') : null]; })""")


def days(session, texts=TEXTS, day=day_in_english):
    return [texts["widget.sessionsCreated"].replace("%s", day(session["created"])),
            texts["widget.sessionsLastUsed"].replace("%s", day(session["last_used"]))]


def named(session, texts=TEXTS):
    """What the page calls a session: "Demo mobile app (public client) on iPhone · Safari"."""
    if not session["device"]:
        return texts["widget.sessionsOnUnknown"].replace("%s", session["client_name"])
    return texts["widget.sessionsOn"].replace("%s", session["client_name"]).replace("%p", session["device"])


def session_events(host, mark):
    host.settle()
    host.sync()
    return [(e.name, e.result) for e in host.queue_events[mark:] if e.name in SESSION_EVENTS]


def refused(server, token):
    reply = entity(server, token)
    return reply.get("stat") == "error" and reply.get("error") == "invalid_access_token"


def signed_out_here(host, mark, selector):
    """Taps `selector`; returns onCaptureSessionsEnded's result (the same on the message transport), once the list is
    drawn again with this device alone, the note said and focus on the section's heading."""
    queue_mark, message_mark = mark
    host.click(selector)
    ended = host.wait_for_event("onCaptureSessionsEnded", after=queue_mark).result
    assert host.wait_for_event("onCaptureSessionsEnded", "message", after=message_mark).result == ended
    host.wait_for(lambda: len(session_rows(host)) == 1, 10, "the list with this device alone")
    assert text_of(host, SECTION + " [data-capture-sessions-none]") == TEXTS["widget.sessionsNone"]
    assert text_of(host, END_OTHERS) is None, "nothing else to sign out"
    assert host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(NOTE)) == "status"
    assert host.run_js("document.activeElement.id") == "sessions_title"
    assert host.visible_screen() == ["editProfile"] and host.run_js("janrain.capture.ui.hasActiveSession()") is True
    return ended


def test_the_profile_lists_the_sessions_and_signs_the_phone_out(server, host):
    email, registered = server.register()
    ours = registered["access_token"]  # the API's own User-Agent names no device
    phone = sign_in_from(server, email, IPHONE)
    open_profile(server, host, ours)
    here, there = listed = account_sessions(server, ours)
    assert [s["current"] for s in listed] == [True, False] and here["client_id"] == CLIENT_ID
    assert here["client_name"] == CLIENT_NAME and here["device"] is None and there["device"] == "iPhone · Safari"
    assert text_of(host, "#sessions_title") == TEXTS["widget.sessionsTitle"]
    assert session_rows(host) == [
        [CLIENT_NAME, [TEXTS["widget.sessionsThisDevice"], TEXTS["widget.sessionsUnknownDevice"]] + days(here), None],
        [CLIENT_NAME, ["iPhone · Safari"] + days(there), "Sign out Demo mobile app (public client) on iPhone · Safari"]]
    assert text_of(host, SECTION + " li:nth-child(2) button") == TEXTS["widget.sessionsEnd"]
    assert text_of(host, END_OTHERS) == TEXTS["widget.sessionsEndOthers"]
    assert text_of(host, SECTION + " [data-capture-sessions-none]") is None

    ended = signed_out_here(host, host.mark(), '[data-capture-session-end="%s"]' % there["id"])
    assert ended["status"] == "success" and ended["statusMessage"] == "sessionsEnded" and ended["scope"] == "one"
    assert ended["revoked"] >= 1 and ended["screen"] == "editProfile", ended
    assert text_of(host, NOTE) == TEXTS["widget.sessionsEnded"].replace("%s", named(there))
    assert refused(server, phone), "the phone's token is dead"
    assert entity(server, ours)["result"]["email"] == email, "ours still works"
    assert [s["id"] for s in account_sessions(server, ours)] == [here["id"]]


def test_sign_out_everywhere_else_ends_every_other_session_and_keeps_this_one(server, host):
    email, registered = server.register()
    ours = registered["access_token"]
    android = sign_in_from(server, email, ANDROID)
    tablet = sign_in_from(server, email, IPAD_APP)
    open_profile(server, host, ours)
    # The others newest first: the iPad's app (its web view names no browser), then the Android phone's Chrome.
    listed = account_sessions(server, ours)
    assert [s["device"] for s in listed] == [None, "iPad", "Android · Chrome"]
    assert [row[1][-3] for row in session_rows(host)] == [TEXTS["widget.sessionsUnknownDevice"], "iPad",
                                                           "Android · Chrome"]

    mark = host.mark()
    ended = signed_out_here(host, mark, END_OTHERS)
    assert ended["statusMessage"] == "sessionsEnded" and ended["scope"] == "others" and ended["revoked"] >= 2, ended
    assert [name for name, _ in session_events(host, mark[0])] == ["onCaptureSessionsEnded"]
    assert text_of(host, NOTE) == TEXTS["widget.sessionsEndedOthers"]
    assert refused(server, android) and refused(server, tablet)
    assert entity(server, ours)["result"]["email"] == email
    assert len(account_sessions(server, ours)) == 1


def test_what_goes_wrong_is_said_in_the_section_and_never_left_loading(server, make_host):
    """The list unreachable at first (a network failure: "Try again" gets it), a session ended from elsewhere before
    its "Sign out" (310: said, the list drawn again), and the page's own sign-in ended elsewhere (the page signs out)."""
    host = make_host()
    fail_requests(host, {"/sessions": [None]})
    email, registered = server.register()
    ours = registered["access_token"]
    phone = sign_in_from(server, email, IPHONE)
    sign_in_from(server, email, ANDROID)
    open_profile(server, host, ours)
    error = SECTION + " .capture_form_error"
    assert text_of(host, error) == TEXTS["widget.network"] + TEXTS["widget.sessionsRetry"]  # the button on its line
    assert host.run_js("document.querySelector(%s).getAttribute('role')" % json.dumps(error)) == "alert"
    assert text_of(host, SECTION + " [data-capture-sessions-loading]") is None and session_rows(host) == []
    host.click(SECTION + " [data-capture-sessions-retry]")
    host.wait_for(lambda: len(session_rows(host)) == 3, 10, "the list, asked again")
    assert text_of(host, error) is None

    # The phone was signed out from elsewhere meanwhile: its button answers 310, and the list follows.
    phone_id = account_sessions(server, phone)[0]["id"]
    assert server.post("/sessions/end", {"access_token": ours, "session": phone_id})[1]["stat"] == "ok"
    mark, _ = host.mark()
    host.click('[data-capture-session-end="%s"]' % phone_id)
    failed = host.wait_for_event("onCaptureSessionsEndFailed", after=mark).result
    assert failed["status"] == "error" and failed["code"] == 310 and failed["error"] == "record_not_found", failed
    assert failed["scope"] == "one"
    host.wait_for(lambda: len(session_rows(host)) == 2, 10, "the list without the phone")
    assert text_of(host, NOTE) == TEXTS["widget.sessionsAlreadyEnded"]

    # This page's own sign-in ended elsewhere: the failure, then the page ends its session as for any dead token.
    failed = signed_out_by_a_dead_token(server, host, ours, END_OTHERS, "onCaptureSessionsEndFailed")
    assert failed["scope"] == "others", failed


def test_the_sessions_speak_arabic(server, host):
    texts = catalog("ar")
    email, registered = server.register()
    ours = registered["access_token"]
    sign_in_from(server, email, IPHONE)
    open_profile(server, host, ours, locale="ar-SA")
    here, there = account_sessions(server, ours)
    in_arabic = (lambda text: host.run_js(
        "new Date(%d).toLocaleDateString(document.documentElement.lang, {year: 'numeric', month: 'short',"
        " day: 'numeric'})" % (service_date(text).timestamp() * 1000)))
    assert text_of(host, "#sessions_title") == texts["widget.sessionsTitle"]
    assert text_of(host, SECTION + " .capture_lead") == texts["widget.sessionsLead"]
    assert session_rows(host) == [
        [CLIENT_NAME, [texts["widget.sessionsThisDevice"], texts["widget.sessionsUnknownDevice"]]
         + days(here, texts, in_arabic), None],
        [CLIENT_NAME, ["iPhone · Safari"] + days(there, texts, in_arabic),
         texts["widget.sessionsEndNamed"].replace("%s", named(there, texts))]]
    assert text_of(host, SECTION + " li:nth-child(2) button") == texts["widget.sessionsEnd"]
    assert text_of(host, END_OTHERS) == texts["widget.sessionsEndOthers"]
    host.click(END_OTHERS)
    host.wait_for(lambda: len(session_rows(host)) == 1, 10, "the list with this device alone")
    assert text_of(host, NOTE) == texts["widget.sessionsEndedOthers"]
    assert text_of(host, SECTION + " [data-capture-sessions-none]") == texts["widget.sessionsNone"]
    assert run_axe(host) == []
    host.run_js("(document.activeElement.blur(), document.getElementById('sessions_title').scrollIntoView(), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(FOLDER / "editProfile-sessions-ar.png")


def test_the_section_passes_axe_light_and_dark_at_phone_size(server, host, dark_scheme_reset):
    email, registered = server.register(display_name="Grace")
    sign_in_from(server, email, IPHONE)
    sign_in_from(server, email, ANDROID)
    open_profile(server, host, registered["access_token"])
    assert len(session_rows(host)) == 3
    checked_light_and_dark(host, FOLDER, "editProfile-sessions")
    # After a sign-out: the note, and this device alone.
    host.click(SECTION + " li:nth-child(2) button")
    host.wait_for(lambda: len(session_rows(host)) == 2, 10, "the list without the first other")
    checked_at_phone_size(host, FOLDER / "editProfile-sessions-signed-out-dark.png")
