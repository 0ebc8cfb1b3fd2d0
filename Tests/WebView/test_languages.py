"""The pages in German, French and Arabic (issue 10, localization), as a phone user meets them: the page's language and
direction, the screen's texts, the server's messages after a failed submit (from the API call's `locale`), the
widget's notices, the web view's own languages when the page names none, English for a language the service does not
speak, the mirrored layout in Arabic, and axe-core in each language. Expected texts come from Settings/locales, never
from this file, so a better translation does not break a test."""

import json
import pathlib
import re

import pytest

from conftest import PASSWORD
from screens import show
from test_appearance import rect, style

ROOT = pathlib.Path(__file__).resolve().parents[2]
LOCALES = {"de-DE": "de", "fr-FR": "fr", "ar-SA": "ar"}


def norm(text):
    """Whitespace as the page's text gives it back: French no-break spaces included, one space each."""
    return re.sub(r"\s+", " ", text).strip()


def catalog(tag):
    """The catalog's texts, whitespace normalized as text_of() and visible_text() return the page's."""
    texts = json.loads((ROOT / "Settings" / "locales" / ("%s.json" % tag)).read_text(encoding="utf-8"))["messages"]
    return {key: norm(text) for key, text in texts.items()}


def english_field_texts():
    forms = json.loads((ROOT / "Settings" / "forms.json").read_text(encoding="utf-8"))
    texts = {}
    for name, field in forms["fields"].items():
        texts["field.%s.label" % name] = field["label"]
        for rule, message in (field.get("messages") or {}).items():
            texts["field.%s.%s" % (name, rule)] = message
    return {key: norm(text) for key, text in texts.items()}


ENGLISH = dict(catalog("en"), **english_field_texts())


def text_of(host, selector):
    return host.run_js("(function(e){return e ? e.textContent.replace(/\\s+/g, ' ').trim() : null;})"
                       "(document.querySelector(%s))" % json.dumps(selector))


def visible_text(host, selector):
    return norm(host.run_js("document.querySelector(%s).innerText" % json.dumps(selector)))


def open_page(host, server, locale, flow="webViewSignIn", screen="signIn", fragment="", **query):
    host.load(server.page(flow, locale=locale, **query) + fragment)
    host.wait_for_screen(screen)


def assert_no_english(text, keys, where):
    """None of the English texts of `keys` (where the translation differs) shows up in `text`."""
    leaked = [ENGLISH[key] for key in keys if ENGLISH[key] in text]
    assert leaked == [], "%s still shows English: %s" % (where, leaked)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_sign_in_screen_speaks_the_requested_language(server, host, locale):
    tag = LOCALES[locale]
    texts = catalog(tag)
    open_page(host, server, locale)
    assert host.run_js("document.documentElement.lang") == locale
    assert host.run_js("document.documentElement.dir") == ("rtl" if tag == "ar" else "ltr")
    assert host.run_js("getComputedStyle(document.body).direction") == ("rtl" if tag == "ar" else "ltr")
    assert host.run_js("document.title") == texts["flow.webViewSignIn.title"]
    assert text_of(host, "#signIn_title") == texts["signIn.title"]
    assert text_of(host, "#signIn .capture_lead") == texts["signIn.lead"]
    assert text_of(host, "#signIn button[type=submit]") == texts["signIn.submit"]
    assert text_of(host, '#signIn [data-capture-screen="forgotPassword"]') == texts["signIn.forgotPassword"]
    assert text_of(host, '#signIn [data-capture-screen="traditionalRegistration"]') == texts["signIn.createAccount"]
    email_label = text_of(host, "#signIn label[for$=signInEmailAddress]")
    password_label = text_of(host, "#signIn label[for$=currentPassword]")
    assert email_label == texts["field.signInEmailAddress.label"], email_label
    assert password_label == texts["field.currentPassword.label"], password_label
    keys = ["signIn.title", "signIn.lead", "signIn.forgotPassword", "signIn.newHere", "signIn.createAccount",
            "field.signInEmailAddress.label", "field.currentPassword.label"]
    assert_no_english(visible_text(host, "#signIn"), keys, "%s sign-in" % locale)

    show(host, "traditionalRegistration")
    assert text_of(host, "#traditionalRegistration_title") == texts["traditionalRegistration.title"]
    for field in ("emailAddress", "displayName", "firstName", "lastName", "newPassword", "newPasswordConfirm"):
        assert text_of(host, "#traditionalRegistration label[for$=_%s]" % field) == texts["field.%s.label" % field]


@pytest.mark.parametrize("locale", LOCALES)
def test_a_failed_registration_shows_the_servers_messages_in_the_language(server, host, locale):
    tag = LOCALES[locale]
    texts = catalog(tag)
    open_page(host, server, locale)
    show(host, "traditionalRegistration")
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": "not-an-address", "displayName": "", "newPassword": "short", "newPasswordConfirm": "other"})
    host.wait_for_event("onCaptureValidationFailed", after=mark)
    shown = visible_text(host, "#traditionalRegistration")
    expected = ["field.emailAddress.format", "field.displayName.required", "field.newPassword.minLength",
                "field.newPasswordConfirm.matches"]
    missing = [texts[key] for key in expected if texts[key] not in shown]
    assert missing == [], "%s: not shown: %s\nshown: %s" % (locale, missing, shown)
    assert_no_english(shown, expected, "%s registration errors" % locale)

    # An address already in use: the service's sentence and the widget's way forward, both translated.
    taken, _ = server.register()
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": taken, "displayName": "Taken", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    host.wait_for_event("onCaptureValidationFailed", after=mark)
    shown = visible_text(host, "#traditionalRegistration")
    assert texts["error.emailAddressInUse"] in shown, shown
    assert texts["widget.inUseAction"] in shown, shown


@pytest.mark.parametrize("locale", LOCALES)
def test_a_wrong_password_is_told_in_the_language(server, host, locale):
    tag = LOCALES[locale]
    texts = catalog(tag)
    email, _ = server.register()
    open_page(host, server, locale)
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": "wrong " + PASSWORD})
    host.wait_for_event("onCaptureLoginFailed", after=mark)
    message = text_of(host, "#signIn .capture_form_error")
    assert message == texts["error.invalidCredentials"] + " " + texts["widget.resetAction"] or \
        message == texts["error.invalidCredentials"] + texts["widget.resetAction"], message
    assert ENGLISH["error.invalidCredentials"] not in message

    if tag == "ar":
        # Mirrored: the labels sit at the right edge of their fields, the message's accent border on the right.
        for selector in ("#signIn label[for$=signInEmailAddress]", "#signIn label[for$=currentPassword]"):
            label, field = rect(host, selector, text=True), rect(host, selector.replace("label[for$=", "input[name$="))
            assert abs(label["right"] - field["right"]) < 1.5, (selector, label, field)
            assert label["left"] > field["left"] + 50, "the label starts at the right"
        form = rect(host, "#signIn form")
        assert abs(rect(host, "#signIn_title", text=True)["right"] - form["right"]) < 1.5
        error = "#signIn .capture_form_error"
        assert style(host, error, "borderRightWidth") == "4px" and style(host, error, "borderLeftWidth") == "0px"
        assert style(host, error, "textAlign") in ("start", "right", "-webkit-auto")
        assert rect(host, error, text=True)["right"] > rect(host, error)["right"] - 40, "the message starts at the right"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_widgets_notices_are_translated(server, host, locale):
    tag = LOCALES[locale]
    texts = catalog(tag)
    # The provider step came back with an error (the service's redirect to the page): the widget's own notice. The
    # page takes a provider's answer only when it started that sign-in, i.e. it keeps the sign-in's verifier in
    # sessionStorage across the round trip (docs/contract.md §15); here each load finds one, as after a real start.
    host.add_user_script("sessionStorage.setItem('captureBridgeSocialVerifier', 'started-here');")
    open_page(host, server, locale, fragment="#capture_social_error=provider_unreachable&provider=mock")
    notice = host.wait_for(lambda: text_of(host, "#capture_notice"), 5, "the notice")
    assert notice == texts["widget.socialError.provider_unreachable"].replace("%s", "Mock ID"), notice
    if tag == "ar":
        assert style(host, "#capture_notice", "borderRightWidth") != "0px", "the accent border is on the right"
        assert style(host, "#capture_notice", "borderLeftWidth") == "0px"
    # A cancelled one is gentle, and as translated (another query: a change of fragment alone would not reload).
    open_page(host, server, locale, fragment="#capture_social_error=cancelled&provider=mock", response_type="token")
    notice = host.wait_for(lambda: text_of(host, "#capture_notice"), 5, "the notice")
    assert notice == texts["widget.socialError.cancelled"].replace("%s", "Mock ID"), notice


def test_without_a_locale_the_web_views_languages_choose(server, make_host):
    host = make_host(languages=["fr-CA", "fr", "en"])
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    texts = catalog("fr")
    assert host.run_js("document.documentElement.lang") == "fr-CA"
    assert text_of(host, "#signIn_title") == texts["signIn.title"]
    # The page's API calls carry the page's language, so the server answers in it too.
    email, _ = server.register()
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": "wrong " + PASSWORD})
    host.wait_for_event("onCaptureLoginFailed", after=mark)
    assert text_of(host, "#signIn .capture_form_error").startswith(texts["error.invalidCredentials"])

    arabic = make_host(languages=["ar-EG"])
    arabic.load(server.page("webViewSignIn"))
    arabic.wait_for_screen("signIn")
    assert arabic.run_js("[document.documentElement.lang, document.documentElement.dir]") == ["ar-EG", "rtl"]
    # The page's own locale wins over the web view's.
    arabic.load(server.page("webViewSignIn", locale="de-DE"))
    arabic.wait_for_screen("signIn")
    assert arabic.run_js("[document.documentElement.lang, document.documentElement.dir]") == ["de-DE", "ltr"]


def test_a_language_the_service_does_not_speak_gets_english(server, make_host):
    host = make_host(languages=["he-IL", "he"])
    host.load(server.page("webViewSignIn", locale="he-IL"))
    host.wait_for_screen("signIn")
    lang, direction = host.run_js("[document.documentElement.lang, document.documentElement.dir]")
    # No catalog speaks Hebrew: the flow's own locale (en-US) or the default (en), either way English, left to right.
    assert lang.split("-")[0] == "en", lang
    assert direction == "ltr"
    assert text_of(host, "#signIn_title") == ENGLISH["signIn.title"]
    assert text_of(host, "#signIn label[for$=signInEmailAddress]") == ENGLISH["field.signInEmailAddress.label"]


def test_mail_in_the_pages_language(server, host, mailbox):
    """The reset code a French page asks for comes in French, its lifetime included."""
    texts = catalog("fr")
    email, _ = server.register()
    open_page(host, server, "fr-FR")
    show(host, "forgotPassword")
    after = mailbox.count()
    host.fill_and_submit("forgotPassword", {"signInEmailAddress": email})
    host.wait_for_screen("forgotPasswordSuccess")
    message = mailbox.wait_for(email, host, after=after)
    assert message.subject == (ROOT / "Settings/mail/passwordReset.fr.txt").read_text().splitlines()[0][len("Subject: "):]
    minutes = texts["mail.expires.minutes"].replace("{count}", "30")
    assert minutes in message.text and minutes in message.html, message.text
    assert 'lang="fr"' in message.html


@pytest.mark.parametrize("locale", LOCALES)
def test_the_second_factor_and_the_profiles_factor_sections_are_translated(server, host, locale):
    tag = LOCALES[locale]
    texts = catalog(tag)
    email, registered = server.register()
    server.set_up_authenticator(registered["access_token"])
    open_page(host, server, locale, flow="webViewProfile")
    assert text_of(host, "#signIn [data-capture-passkey-sign-in]") == texts["passkey.signIn"]
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_screen("twoFactor")
    assert text_of(host, "#twoFactor_title") == texts["twoFactor.title"]
    assert text_of(host, "label[for=capture_twoFactorForm_code]") == texts["twoFactor.appLabel"]
    assert text_of(host, "#capture_twoFactorForm_code_hint") == texts["twoFactor.appHint"]
    assert text_of(host, "#twoFactor [data-capture-code-switch]") == texts["twoFactor.useRecovery"]
    keys = ["twoFactor.title", "twoFactor.lead", "twoFactor.appLabel", "twoFactor.appHint", "twoFactor.useRecovery",
            "twoFactor.submit"]
    assert_no_english(visible_text(host, "#twoFactor"), keys, "%s twoFactor" % locale)
    # An unknown code: the service's 210 and the widget's message, both in the language.
    mark, _ = host.mark()
    host.fill_and_submit_form("#twoFactor form", {"code": "000000"})
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert failed["errorDescription"] == texts["error.invalidSecondFactor"]
    assert text_of(host, "#capture_twoFactorForm_code_error") == texts["widget.secondFactorWrong"]

    _, signed_in = server.register()
    mark, _ = host.mark()
    host.run_js("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(signed_in["access_token"]))
    host.wait_for_event("onCaptureSessionFound", after=mark)
    show(host, "editProfile")
    assert text_of(host, "#passkeys_title") == texts["passkeys.title"]
    assert text_of(host, "#totp_title") == texts["totp.title"]
    assert text_of(host, "#editProfile [data-capture-totp-setup]") == texts["totp.setUp"]
    # "Passkeys" is German too: its title is left out here.
    keys = ["passkeys.lead", "passkeys.none", "passkeys.nameLabel", "passkeys.add", "totp.title",
            "totp.offLead", "totp.setUp"]
    assert_no_english(visible_text(host, "#editProfile"), keys, "%s profile factors" % locale)
