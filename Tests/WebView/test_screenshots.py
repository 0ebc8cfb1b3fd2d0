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
        if (box.width === 0 && box.height === 0) continue;  // not shown (a part of the screen not open now)
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
