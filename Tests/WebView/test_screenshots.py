"""375-px screenshots of the screens people see, for a human to look at (Tests/WebView/screenshots/)."""

import pathlib

from conftest import CLIENT_ID

SHOTS = pathlib.Path(__file__).with_name("screenshots")


def test_screens_render_at_phone_width(server, host):
    SHOTS.mkdir(exist_ok=True)
    host.load(f"{server['base']}/flows/webViewDemo?client_id={CLIENT_ID}")
    host.wait_event("onCaptureSessionNotFound")
    assert host.js("document.documentElement.scrollWidth") <= 375, "no horizontal scrolling at 375 px"
    host.js("janrain.capture.ui.renderScreen('signIn')")
    host.snapshot(str(SHOTS / "signIn.png"))

    host.js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.submit("#traditionalRegistration form[name=registrationForm]", {
        "emailAddress": "nope", "displayName": "", "newPassword": "short", "newPasswordConfirm": "x"})
    host.wait_event("onCaptureValidationFailed")
    host.pump(0.2)
    assert host.js("document.documentElement.scrollWidth") <= 375
    host.snapshot(str(SHOTS / "traditionalRegistration-errors.png"))

    host.js("janrain.capture.ui.renderScreen('editProfile')")
    host.snapshot(str(SHOTS / "editProfile.png"))
    for name in ["signIn.png", "traditionalRegistration-errors.png", "editProfile.png"]:
        assert (SHOTS / name).stat().st_size > 5000, name
    # Every visible input has a label that names it.
    unlabelled = host.js("""Array.prototype.filter.call(document.querySelectorAll('input'), function(i){
        var l = document.querySelector('label[for="' + i.id + '"]'); return !l || !l.textContent.trim(); }).length""")
    assert unlabelled == 0
