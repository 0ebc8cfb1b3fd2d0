"""375-px snapshots of the screens people see, written to .build/screenshots/ for a human to
look at, plus the layout checks a phone needs (no sideways scrolling, 16 px inputs, labelled fields)."""


import pytest

from conftest import CLIENT_ID, PASSWORD, SHOTS


LAYOUT_CHECK = """(function(){
    var problems = [];
    if (document.documentElement.scrollWidth > window.innerWidth)
        problems.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + window.innerWidth);
    var inputs = document.querySelectorAll('.capture_screen:not([hidden]) input');
    for (var i = 0; i < inputs.length; i++) {
        var size = parseFloat(getComputedStyle(inputs[i]).fontSize);
        if (size < 16) problems.push(inputs[i].name + ' font ' + size + 'px (iOS zooms below 16px)');
        var label = document.querySelector('label[for="' + inputs[i].id + '"]');
        if (!label || !label.textContent.trim()) problems.push(inputs[i].name + ' has no label');
    }
    var buttons = document.querySelectorAll('.capture_screen:not([hidden]) button[type=submit]');
    for (var j = 0; j < buttons.length; j++) {
        var box = buttons[j].getBoundingClientRect();
        if (box.height < 44) problems.push('submit button only ' + box.height + 'px tall');
        if (box.width < window.innerWidth * 0.8) problems.push('submit button not full width: ' + box.width);
    }
    return problems;
})()"""


def test_screens_at_phone_width(server, host):
    SHOTS.mkdir(exist_ok=True)
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    assert host.run_js("window.innerWidth") == 375
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "signIn.png")

    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    queue_mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": "not-an-address", "displayName": "", "newPassword": "short", "newPasswordConfirm": "other",
    })
    host.wait_for_event("onCaptureValidationFailed", after=queue_mark)
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "traditionalRegistration-errors.png")

    email, reply = server.register(display_name="Grace")
    queue_mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % reply["access_token"])
    host.wait_for_event("onCaptureSessionFound", after=queue_mark)
    host.run_js("janrain.capture.ui.renderScreen('editProfile')")
    host.wait_for_screen("editProfile")
    host.run_js("(document.activeElement && document.activeElement.blur(), true)")
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "editProfile.png")

    host.run_js("janrain.capture.ui.renderScreen('signedIn')")
    host.wait_for_screen("signedIn")
    host.snapshot(SHOTS / "signedIn.png")

    host.run_js("(janrain.capture.ui.endCaptureSession(), true)")
    host.wait_for_screen("returnTraditional")
    host.fill_and_submit("returnTraditional", {"currentPassword": "wrong " + PASSWORD})
    host.wait_for_event("onCaptureLoginFailed")
    host.run_js("(document.activeElement && document.activeElement.blur(), true)")
    host.snapshot(SHOTS / "returnTraditional-error.png")

    _, ended = server.register(display_name="Ended")
    queue_mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % ended["access_token"])
    host.wait_for_event("onCaptureSessionFound", after=queue_mark)
    server.post("/oauth/revoke", {"token": ended["access_token"], "client_id": CLIENT_ID})
    queue_mark, _ = host.mark()
    host.reload()
    host.wait_for_event("onCaptureInvalidToken", after=queue_mark)
    host.settle()
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "session-ended.png")

    host.load(server.page("webViewSignIn", client_id="not-a-client"))
    assert host.run_js("document.documentElement.scrollWidth <= window.innerWidth") is True
    host.snapshot(SHOTS / "error-unknown-client.png")

    for name in ("signIn.png", "traditionalRegistration-errors.png", "editProfile.png",
                 "signedIn.png", "returnTraditional-error.png", "session-ended.png", "error-unknown-client.png"):
        assert (SHOTS / name).stat().st_size > 3000, name


EVERY_SCREEN = SHOTS / "screens"
SIZES = ((375, 812), (768, 1024))
# The other shipped languages: screenshots/screens/<tag>/, each page opened with its locale.
LOCALES = (("de", "de-DE"), ("fr", "fr-FR"), ("ar", "ar-SA"))


@pytest.mark.parametrize("language", ["en"] + [tag for tag, _ in LOCALES])
def test_every_screen_light_and_dark_for_review(server, host, oidc_provider, dark_scheme_reset, language):
    """screenshots/screens/<flow>-<screen>-<scheme>-<width>.png: every screen of webViewDemo (which holds nearly all of
    them) and the profile page's, light and dark, on a phone and a tablet, plus a themed client's; the same in each
    other shipped language under screenshots/screens/<tag>/ (de, fr, ar); rewritten on each run (fixed addresses and
    names, so an unchanged look gives unchanged files) for a person to look at. One language per test, so the two
    workers share them."""
    from screens import OVERFLOW_JS, every_screen, use_scheme

    EVERY_SCREEN.mkdir(parents=True, exist_ok=True)
    written = set()
    if language == "en":
        folder, locale = "", None
        runs = [("webViewDemo", "webViewDemo", CLIENT_ID, None),
                ("webViewProfile", "webViewProfile", CLIENT_ID, {"editProfile"}),
                ("themed", "webViewDemo", "demo-themed-app", {"signIn", "editProfile"})]
    else:
        folder, locale = language + "/", dict(LOCALES)[language]
        runs = [("webViewDemo", "webViewDemo", CLIENT_ID, None),
                ("webViewProfile", "webViewProfile", CLIENT_ID, {"editProfile"})]
    for label, flow, client, only in runs:
        for state in every_screen(host, server, oidc_provider, flow, client_id=client, only=only, locale=locale):
            if locale:
                assert host.run_js("document.documentElement.lang") == locale, (locale, state)
            for width, height in SIZES:
                host.resize(width, height)
                # The phone's layout rules at phone width (buttons span it); no sideways scrolling anywhere.
                problems = host.run_js(LAYOUT_CHECK if width < 600 else OVERFLOW_JS)
                assert problems == [], "%s/%s %s at %d px: %s" % (flow, state, locale or "en", width, problems)
                for scheme in ("light", "dark"):
                    use_scheme(host, scheme == "dark")
                    name = "%s%s-%s-%s-%d.png" % (folder, label, state, scheme, width)
                    host.snapshot(EVERY_SCREEN / name)
                    written.add(name)
            use_scheme(host, False)
            host.resize(375, 812)
    mine = EVERY_SCREEN / folder if folder else EVERY_SCREEN
    for stale in mine.glob("*.png"):
        if stale.relative_to(EVERY_SCREEN).as_posix() not in written:
            stale.unlink()
    print("screenshots: %d in .build/screenshots/screens/%s" % (len(written), folder))
    assert len(written) >= 80, (language, len(written))
    for name in written:
        assert (EVERY_SCREEN / name).stat().st_size > 3000, name
