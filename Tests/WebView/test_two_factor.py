"""The authenticator app as a second factor in the web view (issue 30), with an authenticator app played by pyotp
(AuthenticatorApp in conftest.py): set up on the profile page (the key and the otpauth:// link, the first code, the
ten recovery codes shown once), asked for on the twoFactor screen after the right password (an app code or a recovery
code, each taken once, the ticket kept in the page's memory only), after a provider's sign-in too, and turned off
with a code."""

import json
import urllib.parse

import pyotp

from conftest import PASSWORD, SHOTS, AuthenticatorApp, SoftAuthenticator
from screens import open_profile, text_of, use_scheme
from test_accessibility import TAGS, assert_no_violations, run_axe
from test_code_flow import address_behind_code, code_mode_page
from test_languages import catalog
from test_screenshots import LAYOUT_CHECK
from test_social_sign_in import answer_at_provider, back_on_page, new_subject, sign_in_with_provider, tap_provider

TEXTS = catalog("en")
TOTP = "#editProfile [data-capture-totp]"
# The page's replies as fetch delivered them, recorded by a user script (the host's view of the network), so a test
# knows the ticket the page was given and can look for it everywhere else.
RECORD_REPLIES = """(function () {
    var fetch = window.fetch;
    window.__replies = [];
    window.fetch = function () {
        return fetch.apply(this, arguments).then(function (response) {
            response.clone().text().then(function (text) { window.__replies.push(text); });
            return response;
        });
    };
})();"""


def shown_state(host):
    return host.run_js("(function(){var s=document.querySelector('%s [data-capture-totp-state]:not([hidden])');"
                       "return s && s.getAttribute('data-capture-totp-state');})()" % TOTP)


def blur(host):
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")


def password_to_two_factor(host, server, email, screen="signIn"):
    """Signs in with the password on `screen`: the twoFactor screen, its code field focused on the heading."""
    mark, _ = host.mark()
    host.fill_and_submit(screen, {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("twoFactor")
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["code"] == 270 and failed["statusMessage"] == "second_factor_required", failed
    host.sync()
    order = [e.name for e in host.queue_events[mark:]
             if e.name in ("onCaptureLoginStart", "onCaptureLoginFailed", "onCaptureScreenShow")]
    assert order == ["onCaptureLoginStart", "onCaptureLoginFailed", "onCaptureScreenShow"], order
    assert host.queue_events[mark:][-1].result["screen"] == "twoFactor"
    assert host.run_js("document.activeElement.id") == "twoFactor_title"
    assert host.run_js("document.querySelector('#%s input[name=currentPassword]').value" % screen) == ""
    return mark


def enter_code(host, code):
    mark, message_mark = host.mark()
    host.fill_and_submit_form("#twoFactor form[data-capture-factor=twoFactor]", {"code": code})
    return mark, message_mark


def wrong_code(host, code):
    """A code the service refuses: the message at the field, onCaptureLoginFailed (210), still on twoFactor."""
    mark, _ = enter_code(host, code)
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["code"] == 210 and failed["form"] == "twoFactorForm", failed
    assert text_of(host, "#capture_twoFactorForm_code_error") == TEXTS["widget.secondFactorWrong"]
    assert host.run_js("document.getElementById('capture_twoFactorForm_code').getAttribute('aria-invalid')") == "true"
    assert host.visible_screen() == ["twoFactor"]
    return failed


def right_code(host, server, code, email):
    mark, message_mark = enter_code(host, code)
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert success["userData"]["email"] == email and success["authProvider"] == "capture"
    assert host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result == success
    _, entity, _ = server.post("/entity", {"access_token": success["accessToken"]})
    assert entity["result"]["email"] == email
    return success


def test_the_authenticator_app_is_set_up_on_the_profile_with_recovery_codes_shown_once(server, host):
    email, registered = server.register(display_name="Grace")
    token = registered["access_token"]
    open_profile(server, host, token)
    assert shown_state(host) == "off"
    assert text_of(host, "#totp_title") == TEXTS["totp.title"]
    host.click("%s [data-capture-totp-setup]" % TOTP)
    host.wait_for(lambda: shown_state(host) == "setup", 10, "the set-up")
    link = host.run_js("document.querySelector('%s [data-capture-totp-link]').getAttribute('href')" % TOTP)
    secret = text_of(host, "%s [data-capture-totp-secret]" % TOTP)
    assert link.startswith("otpauth://totp/") and email in urllib.parse.unquote(link), link
    app = AuthenticatorApp(link)
    assert app.totp.secret == secret.replace(" ", ""), "the key to type is the link's"
    field = host.run_js("(function(i){return [i.getAttribute('autocomplete'), i.getAttribute('inputmode'),"
                        " document.querySelector('label[for='+i.id+']').textContent];})"
                        "(document.getElementById('capture_confirmTotpForm_code'))")
    assert field == ["one-time-code", "numeric", TEXTS["totp.codeLabel"]]
    assert host.run_js("document.activeElement.textContent") == TEXTS["totp.setupLead"], "focus moved to the set-up"
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "two-factor" / "editProfile-authenticator-setup.png")
    assert server.factors(token)["second_factor"]["enabled"] is False, "not on before the first code"

    wrong = pyotp.TOTP(pyotp.random_base32()).now()
    host.fill_and_submit_form("%s form[data-capture-factor=confirmTotp]" % TOTP, {"code": wrong})
    host.wait_for(lambda: text_of(host, "#capture_confirmTotpForm_code_error"), 10, "the code's error")
    assert text_of(host, "#capture_confirmTotpForm_code_error") == TEXTS["widget.totpWrongCode"]
    code = app.fresh()
    host.fill_and_submit_form("%s form[data-capture-factor=confirmTotp]" % TOTP, {"code": code[:3] + " " + code[3:]})
    host.wait_for(lambda: shown_state(host) == "codes", 10, "the recovery codes")
    codes = host.run_js("[].map.call(document.querySelectorAll('%s [data-capture-totp-codes] li'),"
                        " function(li){ return li.textContent; })" % TOTP)
    assert len(codes) == 10 and len(set(codes)) == 10, codes
    assert host.run_js("document.activeElement.textContent") == TEXTS["totp.codesLead"]
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "two-factor" / "editProfile-recovery-codes.png")
    factors = server.factors(token)["second_factor"]
    assert factors == {"enabled": True, "recovery_codes_left": 10}

    host.click("%s [data-capture-totp-done]" % TOTP)
    host.wait_for(lambda: shown_state(host) == "on", 10, "the app on")
    assert host.run_js("document.querySelectorAll('%s [data-capture-totp-codes] li').length" % TOTP) == 0
    assert text_of(host, "%s [data-capture-totp-left]" % TOTP) == TEXTS["widget.totpCodesLeft"].replace("%d", "10")
    assert text_of(host, "%s [data-capture-factor-note]" % TOTP) == TEXTS["widget.totpOn"]
    # Shown once: the codes are nowhere in the page or its storage any more.
    kept = host.run_js("document.documentElement.outerHTML + JSON.stringify(localStorage) + JSON.stringify(sessionStorage)")
    assert not [c for c in codes if c in kept]
    blur(host)
    host.snapshot(SHOTS / "two-factor" / "editProfile-authenticator-on.png")


def test_a_password_sign_in_asks_for_the_apps_code_and_takes_each_code_once(server, host):
    host.add_user_script(RECORD_REPLIES)
    email, registered = server.register()
    app, _ = server.set_up_authenticator(registered["access_token"])
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('twoFactor')") is True
    assert host.visible_screen() == ["signIn"], "no twoFactor without a sign-in waiting for it"
    password_to_two_factor(host, server, email)
    field = host.run_js("(function(i){return [i.getAttribute('autocomplete'), i.getAttribute('inputmode'),"
                        " document.querySelector('label[for='+i.id+']').textContent];})"
                        "(document.getElementById('capture_twoFactorForm_code'))")
    assert field == ["one-time-code", "numeric", TEXTS["twoFactor.appLabel"]]
    blur(host)
    assert host.run_js(LAYOUT_CHECK) == []
    host.snapshot(SHOTS / "two-factor" / "twoFactor.png")

    # The code the set-up used is spent.
    wrong_code(host, app.last)
    blur(host)
    host.snapshot(SHOTS / "two-factor" / "twoFactor-wrong-code.png")
    # The ticket stayed in the page's memory: not in its address, storage, markup or any event.
    ticket = next(json.loads(r)["second_factor_ticket"] for r in host.run_js("window.__replies")
                  if "second_factor_ticket" in r)
    host.settle()
    everywhere = host.run_js("location.href + document.documentElement.outerHTML + JSON.stringify(localStorage)"
                             " + JSON.stringify(sessionStorage) + document.cookie + history.length")
    assert ticket not in everywhere
    assert ticket not in json.dumps([e.arguments for e in host.queue_events + host.message_events])

    success = right_code(host, server, app.fresh(), email)
    host.wait_for_screen("signedIn")
    assert success["accessToken"] == host.run_js("localStorage.getItem('janrainCaptureToken')")

    # Another sign-in: the code just used does not complete it.
    mark, _ = host.mark()
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    password_to_two_factor(host, server, email, screen="returnTraditional")
    wrong_code(host, app.last)


def test_a_recovery_code_finishes_a_sign_in_once(server, host):
    email, registered = server.register()
    _, codes = server.set_up_authenticator(registered["access_token"])
    host.load(server.page("webViewProfile"))
    host.wait_for_screen("signIn")
    password_to_two_factor(host, server, email)
    host.click("#twoFactor [data-capture-code-switch]")
    field = host.run_js("(function(i){return [i.getAttribute('inputmode'), document.activeElement === i,"
                        " document.querySelector('label[for='+i.id+']').textContent,"
                        " document.getElementById(i.id + '_hint').textContent];})"
                        "(document.getElementById('capture_twoFactorForm_code'))")
    assert field == ["text", True, TEXTS["twoFactor.recoveryLabel"], TEXTS["twoFactor.recoveryHint"]], field
    assert text_of(host, "#twoFactor [data-capture-code-switch]") == TEXTS["twoFactor.useApp"]
    success = right_code(host, server, codes[0].upper(), email)
    host.wait_for_screen("editProfile")
    host.wait_for(lambda: text_of(host, "%s [data-capture-totp-left]" % TOTP)
                  == TEXTS["widget.totpCodesLeft"].replace("%d", "9"), 10, "nine codes left")
    assert server.factors(success["accessToken"])["second_factor"]["recovery_codes_left"] == 9

    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("signIn")
    password_to_two_factor(host, server, email)
    # Each new sign-in starts with the app's code.
    assert text_of(host, "label[for=capture_twoFactorForm_code]") == TEXTS["twoFactor.appLabel"]
    host.click("#twoFactor [data-capture-code-switch]")
    wrong_code(host, codes[0])


def test_five_wrong_codes_end_the_ticket_and_back_to_sign_in_forgets_it(server, make_host):
    """In French: the screen, its messages and the way back."""
    texts = catalog("fr")
    host = make_host()
    email, registered = server.register()
    server.set_up_authenticator(registered["access_token"])
    host.load(server.page("webViewSignIn", locale="fr-FR"))
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("twoFactor")
    assert text_of(host, "#twoFactor_title") == texts["twoFactor.title"]
    assert text_of(host, "#twoFactor button[type=submit]") == texts["twoFactor.submit"]
    assert host.run_js("document.title").startswith(texts["twoFactor.title"])
    host.click('#twoFactor [data-capture-action="signIn"]')
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('twoFactor')") is True
    assert host.visible_screen() == ["signIn"], "the way back forgot the ticket"

    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("twoFactor")
    for attempt in range(4):
        mark, _ = enter_code(host, "00000%d" % attempt)
        host.wait_for_event("onCaptureLoginFailed", after=mark)
        assert text_of(host, "#capture_twoFactorForm_code_error") == texts["widget.secondFactorWrong"]
    mark, _ = enter_code(host, "000009")
    host.wait_for_event("onCaptureLoginFailed", after=mark)
    host.wait_for_screen("signIn")
    assert text_of(host, "#capture_notice") == texts["widget.secondFactorTooMany"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False


def test_the_authenticator_app_is_turned_off_with_a_code(server, host):
    email, registered = server.register()
    token = registered["access_token"]
    _, codes = server.set_up_authenticator(token)
    open_profile(server, host, token)
    assert shown_state(host) == "on"
    host.click("%s [data-capture-totp-off]" % TOTP)
    assert host.run_js("document.activeElement.id") == "capture_disableTotpForm_code"
    assert host.run_js("document.querySelector('%s [data-capture-totp-off]').getAttribute('aria-expanded')" % TOTP) \
        == "true"
    host.fill_and_submit_form("%s form[data-capture-factor=disableTotp]" % TOTP, {"code": "123456"})
    host.wait_for(lambda: text_of(host, "#capture_disableTotpForm_code_error"), 10, "the code's error")
    assert text_of(host, "#capture_disableTotpForm_code_error") == TEXTS["widget.secondFactorWrong"]
    host.fill_and_submit_form("%s form[data-capture-factor=disableTotp]" % TOTP, {"code": codes[3]})
    host.wait_for(lambda: shown_state(host) == "off", 10, "the app off")
    assert text_of(host, "%s [data-capture-factor-note]" % TOTP) == TEXTS["widget.totpOff"]
    assert server.factors(token)["second_factor"]["enabled"] is False
    # The password alone signs in again.
    assert host.run_js("janrain.capture.ui.clearCaptureSession()") is True
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_event("onCaptureLoginSuccess", after=mark)


def test_in_code_mode_the_second_factor_hands_the_host_a_code_its_verifier_redeems(server, host):
    email, registered = server.register()
    app, _ = server.set_up_authenticator(registered["access_token"])
    page, verifier = code_mode_page(server)
    host.load(page)
    host.wait_for_screen("signIn")
    password_to_two_factor(host, server, email)
    mark, _ = enter_code(host, app.fresh())
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert address_behind_code(server, host, success, page, verifier) == email


def test_a_providers_sign_in_asks_for_the_second_factor_too(server, host, oidc_provider):
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Two Step"})
    mark, _ = sign_in_with_provider(host, server, oidc_provider, subject)
    first = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    app, _ = server.set_up_authenticator(first["accessToken"])
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_screen("twoFactor")
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["code"] == 270 and failed["authProvider"] == "mock"
    mark, _ = enter_code(host, app.fresh())
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert success["authProvider"] == "mock" and success["userData"]["email"] == email
    host.wait_for_screen("signedIn")


def test_every_state_of_the_profiles_factor_sections_passes_axe_light_and_dark(server, host, dark_scheme_reset):
    """The states the screen walk does not reach (it sees the sections off and empty): a passkey list, the set-up, the
    recovery codes, the app on with its turn-off form and a wrong code. Screenshots of each, light and dark."""
    _, registered = server.register(display_name="Grace")
    token = registered["access_token"]
    server.add_passkey(token, SoftAuthenticator(), name="Work phone")
    open_profile(server, host, token)
    checked, found = [], []

    def check(state):
        for scheme in ("light", "dark"):
            use_scheme(host, scheme == "dark")
            blur(host)
            where = "editProfile/%s/%s" % (state, scheme)
            checked.append(where)
            found.extend((where, v) for v in run_axe(host))
            host.snapshot(SHOTS / "two-factor" / ("editProfile-%s-%s.png" % (state, scheme)))
        use_scheme(host, False)
        assert host.run_js(LAYOUT_CHECK) == [], state

    host.click("%s [data-capture-totp-setup]" % TOTP)
    host.wait_for(lambda: shown_state(host) == "setup", 10, "the set-up")
    check("setup")
    app = AuthenticatorApp(host.run_js("document.querySelector('%s [data-capture-totp-link]').href" % TOTP))
    host.fill_and_submit_form("%s form[data-capture-factor=confirmTotp]" % TOTP, {"code": app.fresh()})
    host.wait_for(lambda: shown_state(host) == "codes", 10, "the recovery codes")
    check("codes")
    host.click("%s [data-capture-totp-done]" % TOTP)
    host.wait_for(lambda: shown_state(host) == "on", 10, "the app on")
    host.click("%s [data-capture-totp-off]" % TOTP)
    host.fill_and_submit_form("%s form[data-capture-factor=disableTotp]" % TOTP, {"code": "123456"})
    host.wait_for(lambda: text_of(host, "#capture_disableTotpForm_code_error"), 10, "the code's error")
    check("turn-off-wrong-code")
    assert_no_violations(checked, found, "(%s) on the factor sections" % ", ".join(TAGS), at_least=6)
