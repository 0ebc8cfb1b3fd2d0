"""The documents a client requires (service.json's legalDocuments; docs/bridge-protocol.md, "Terms and their versions")
in the real web view, against a service of this module's own whose settings list one for the demo client (and one for
another client, which the demo's pages must not ask for). Registration asks for it with a box (refused in the page
while the box is unticked, and by the service without it), and the record keeps the version accepted in
legalAcceptances. A new version (the service restarted with it, on the same database) is asked for at the next sign-in
of any kind: termsAgreement after a password, a provider (a first sign-in too), the authenticator app's code or a
passkey; "Continue" without the box says so beside it, with it the sign-in finishes (onCaptureTermsAccepted, then the
sign-in's own events and token), and "Cancel" goes back to sign-in. A registration page left open across the new
version asks for it again. axe-core, the phone's layout rules and screenshots (light, dark, Arabic) in
.build/screenshots/terms/."""

import json

import pytest

from conftest import CLIENT_ID, PASSWORD, SHOTS, VERIFY_FIRST_CLIENT_ID, OwnServer, PasskeyPlatform, new_email
from screens import CONTROLS_JS, checked_at_phone_size, checked_light_and_dark, fail_requests, text_of, use_scheme
from test_languages import catalog
from test_social_sign_in import new_subject, sign_in_with_provider, sign_out_and_back_in_with_the_provider

TEXTS = catalog("en")
FOLDER = SHOTS / "terms"
URL = "https://example.com/legal/terms"
TITLES = {"en": "Terms of Service", "de": "Nutzungsbedingungen", "fr": "Conditions d’utilisation",
          "ar": "شروط الخدمة"}
BOX = "[data-capture-document]"
TERMS_FORM = "#termsAgreement form[data-capture-terms]"
# What /oauth/accept_terms answers for a ticket it does not take (unknown, expired, used).
SPENT_TICKET = {"stat": "error", "code": 200, "error": "invalid_argument", "argument": "ticket",
                "error_description": "ticket: is unknown, expired or already used"}
WATCHED = ("onCaptureLoginStart", "onCaptureLoginSuccess", "onCaptureLoginFailed", "onCaptureSessionCreated",
           "onCaptureRegistrationStart", "onCaptureRegistrationSuccess", "onCaptureRegistrationFailed",
           "onCaptureValidationFailed", "onCaptureTermsAgreementRequired", "onCaptureTermsAccepted",
           "onProviderLoginSuccess")


def settings_at(version):
    """service.json's legalDocuments: the demo client's terms at `version`, and a notice only another client asks for."""
    return {"legalDocuments": [
        {"id": "terms", "version": version, "title": TITLES, "url": URL, "clients": [CLIENT_ID]},
        {"id": "privacy", "version": "7", "title": {"en": "Privacy Notice"}, "url": "https://example.com/legal/privacy",
         "clients": [VERIFY_FIRST_CLIENT_ID]},
    ]}


class Terms:
    """The module's service and the version of its terms; `at(version)` restarts it with another (same database)."""

    def __init__(self, own):
        self.own = own
        self.server = own.server

    @property
    def version(self):
        return self.own.extra["legalDocuments"][0]["version"]

    def at(self, version):
        if self.version != version:
            self.own.restart(settings_at(version))
        return self.server


@pytest.fixture(scope="module")
def terms(mailbox, oidc_provider):
    own = OwnServer(mailbox, oidc_provider, settings_at("1"))
    try:
        yield Terms(own)
    finally:
        own.stop()


def listed(version, language="en"):
    """The terms as the page's settings and the service's refusals name them."""
    return {"id": "terms", "version": version, "title": TITLES[language], "url": URL}


def registration_fields(email):
    return {"emailAddress": email, "displayName": "Ada", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD}


def api_register(server, version, email=None):
    """An account registered through the API, accepting the terms at `version`: (email, reply)."""
    email = email or new_email()
    status, reply, _ = server.post("/oauth/register_native_traditional", dict({
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "accept_documents": "terms:%s" % version}, **registration_fields(email)))
    assert status == 200 and reply.get("stat") == "ok", reply
    return email, reply


def api_sign_in(server, email):
    return server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": PASSWORD})[1]


def acceptances(server, token):
    """The record's legalAcceptances as (id, version, clientId), checking each has its date."""
    status, reply, _ = server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})
    assert status == 200 and reply["stat"] == "ok", reply
    found = reply["result"].get("legalAcceptances") or []
    assert all(entry.get("dateAccepted") for entry in found), found
    return sorted((entry["legalAcceptanceId"], entry["version"], entry["clientId"]) for entry in found)


def events_after(host, mark, transport="queue"):
    """[(name, result)] of the watched events after the mark, once everything fired so far arrived."""
    host.settle()
    host.sync()
    events = host.queue_events if transport == "queue" else host.message_events
    return [(e.name, e.result) for e in events[mark:] if e.name in WATCHED]


def names(events):
    return [name for name, _ in events]


def box_state(host, root):
    """The first box under `root`: what a person and a screen reader get of it."""
    return host.run_js("""(function(root){
        var box = document.querySelector(root + ' [data-capture-document]');
        if (!box) return null;
        var label = document.querySelector('label[for="' + box.id + '"]');
        var link = label.querySelector('a');
        var described = (box.getAttribute('aria-describedby') || '').split(' ').map(function(id){
            var node = document.getElementById(id); return node && !node.hidden ? node.textContent.trim() : null; });
        return {document: box.getAttribute('data-capture-document'), type: box.type, name: box.name,
                checked: box.checked, required: box.required, invalid: box.getAttribute('aria-invalid'),
                label: label.textContent.replace(/\\s+/g, ' ').trim(), link: link && link.textContent,
                href: link && link.getAttribute('href'), target: link && link.target, rel: link && link.rel,
                described: described, focused: document.activeElement === box};
    })(%s)""" % json.dumps(root))


def small_tap_targets(host):
    """The page's shown controls under 44 x 44 px (test_appearance.py holds every other screen to it)."""
    return [c for c in host.run_js(CONTROLS_JS) if c["width"] < 44 or c["height"] < 44]


def blur(host):
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")


def sign_in(host, email, screen="signIn"):
    """A password sign-in on `screen`; returns the marks from before it."""
    marks = host.mark()
    host.fill_and_submit(screen, {"signInEmailAddress": email, "currentPassword": PASSWORD})
    return marks


def asked_for_the_terms(host, mark, version, provider="capture", language="en", after=("onCaptureLoginStart",)):
    """termsAgreement is up after the sign-in that started at the mark: its events (`after`, the refusal with 280, the
    documents), the heading focused, one unticked box for the terms at `version`. Returns the events."""
    host.wait_for_screen("termsAgreement")
    events = events_after(host, mark)
    assert names(events) == list(after) + ["onCaptureLoginFailed", "onCaptureTermsAgreementRequired"], events
    failed, required = events[-2][1], events[-1][1]
    assert failed["code"] == 280 and failed["error"] == "terms_not_accepted", failed
    assert failed["statusMessage"] == "terms_not_accepted", failed
    assert required["status"] == "success" and required["statusMessage"] == "termsAgreementRequired", required
    assert required["documents"] == [listed(version, language)], required
    assert required["authProvider"] == provider and required["transactionId"] == failed["transactionId"], required
    # The ticket stays in the page's memory: no event carries it.
    assert "ticket" not in json.dumps([result for _, result in events]).lower()
    assert host.run_js("document.activeElement.id") == "termsAgreement_title"
    state = box_state(host, "#termsAgreement")
    assert state["document"] == "terms:%s" % version and state["checked"] is False and state["required"] is True
    return events


def accept_and_continue(host, version, provider="capture", registered=False):
    """Ticks the box and taps Continue; returns (the events, onCaptureLoginSuccess's result)."""
    host.click("#termsAgreement " + BOX)
    mark, message_mark = host.mark()
    host.fill_and_submit_form(TERMS_FORM, {})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    events = events_after(host, mark)
    expected = ["onCaptureLoginStart", "onCaptureTermsAccepted", "onCaptureSessionCreated"]
    expected += ["onCaptureRegistrationSuccess"] if registered else []
    assert names(events) == expected + ["onCaptureLoginSuccess"], events
    assert names(events_after(host, message_mark, "message")) == names(events)
    assert len({result["transactionId"] for _, result in events}) == 1, "one submission"
    accepted = events[1][1]
    assert accepted["statusMessage"] == "termsAccepted" and accepted["form"] == "termsAgreementForm", accepted
    assert accepted["documents"] == [listed(version)] and accepted["authProvider"] == provider, accepted
    assert success["authProvider"] == provider and success["accessToken"], success
    assert success["statusMessage"] == ("registered" if registered else "loggedIn"), success
    return events, success


def test_registration_asks_for_the_terms_and_the_record_keeps_the_version(terms, host, dark_scheme_reset):
    server = terms.at("1")
    # The service refuses an account without them, and makes nothing.
    email = new_email()
    status, refused, _ = server.post("/oauth/register_native_traditional", dict({
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token"}, **registration_fields(email)))
    assert refused["code"] == 280 and refused["error"] == "terms_not_accepted", (status, refused)
    assert refused["documents"] == [listed("1")] and "terms_ticket" not in refused and "access_token" not in refused
    assert api_sign_in(server, email)["code"] == 210, "no account was made"

    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    # The demo client's document only, in the page's language.
    assert host.run_js("janrain.settings.capture.legalDocuments") == [listed("1")]
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    state = box_state(host, "#traditionalRegistration")
    assert state == {"document": "terms:1", "type": "checkbox", "name": "", "checked": False, "required": True,
                     "invalid": None, "label": TEXTS["widget.acceptDocument"].replace("%s", TITLES["en"]),
                     "link": TITLES["en"], "href": URL, "target": "_blank", "rel": "noopener",
                     "described": [TEXTS["widget.documentVersion"].replace("%s", "1"), None], "focused": False}
    # After the fields, before the button.
    assert host.run_js("document.querySelector('#traditionalRegistration [data-capture-documents]').nextElementSibling"
                       ".getAttribute('type')") == "submit"

    # Unticked: the page does not send the form, and says why beside the box (focused, in the form's summary).
    mark, message_mark = host.mark()
    host.fill_and_submit("traditionalRegistration", registration_fields(email))
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).result
    events = events_after(host, mark)
    assert names(events) == ["onCaptureValidationFailed"], events
    assert failed["form"] == "registrationForm" and failed["status"] == "error", failed
    assert failed["invalidFields"] == {"accept_documents": [TEXTS["widget.acceptDocumentMissing"]]}, failed
    state = box_state(host, "#traditionalRegistration")
    assert state["invalid"] == "true" and state["focused"] is True, state
    assert state["described"] == [TEXTS["widget.documentVersion"].replace("%s", "1"),
                                  TEXTS["widget.acceptDocumentMissing"]], state
    summary = text_of(host, "#traditionalRegistration .capture_form_error")
    assert summary.startswith(TEXTS["widget.fixOneField"]) and summary.endswith(state["label"]), summary
    assert api_sign_in(server, email)["code"] == 210
    assert small_tap_targets(host) == []
    checked_light_and_dark(host, FOLDER, "traditionalRegistration-unticked")

    # Ticked: the message goes at once, and the account is made with the version it accepted.
    host.click("#traditionalRegistration " + BOX)
    assert box_state(host, "#traditionalRegistration")["described"][1] is None
    blur(host)
    host.snapshot(FOLDER / "traditionalRegistration-ticked.png")
    mark, message_mark = host.mark()
    host.fill_and_submit("traditionalRegistration", {})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert names(events_after(host, mark)) == ["onCaptureRegistrationStart", "onCaptureSessionCreated",
                                               "onCaptureRegistrationSuccess", "onCaptureLoginSuccess"]
    assert success["statusMessage"] == "registered" and success["userData"]["email"] == email
    host.wait_for_screen("signedIn")
    assert acceptances(server, success["accessToken"]) == [("terms", "1", CLIENT_ID)]
    # Accepted once: the next sign-in goes straight through.
    assert api_sign_in(server, email)["stat"] == "ok"


def test_a_new_version_is_asked_for_at_the_next_sign_in(terms, host, dark_scheme_reset):
    server = terms.at("1")
    email, _ = api_register(server, "1")
    arabic, _ = api_register(server, "1")
    server = terms.at("2")
    refused = api_sign_in(server, email)
    assert refused["code"] == 280 and refused["terms_ticket"] and "access_token" not in refused, refused

    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    mark, message_mark = sign_in(host, email)
    events = asked_for_the_terms(host, mark, "2")
    assert names(events_after(host, message_mark, "message")) == names(events)
    assert host.run_js("document.querySelector('#signIn input[name=currentPassword]').value") == ""
    assert host.run_js("document.title").startswith(TEXTS["termsAgreement.title"])
    assert text_of(host, "#termsAgreement_title") == TEXTS["termsAgreement.title"]
    assert text_of(host, "#termsAgreement .capture_lead") == TEXTS["termsAgreement.lead"]
    assert text_of(host, TERMS_FORM + " button[type=submit]") == TEXTS["termsAgreement.submit"]
    assert text_of(host, "#termsAgreement [data-capture-terms-cancel]") == TEXTS["termsAgreement.cancel"]
    state = box_state(host, "#termsAgreement")
    assert state["label"] == TEXTS["widget.acceptDocument"].replace("%s", TITLES["en"]) and state["href"] == URL
    assert state["described"] == [TEXTS["widget.documentVersion"].replace("%s", "2"), None], state
    assert small_tap_targets(host) == []
    checked_light_and_dark(host, FOLDER, "termsAgreement")

    # Continue without the box: said beside it, nothing sent.
    mark, _ = host.mark()
    host.fill_and_submit_form(TERMS_FORM, {})
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).result
    assert names(events_after(host, mark)) == ["onCaptureValidationFailed"]
    assert failed["form"] == "termsAgreementForm", failed
    assert failed["invalidFields"] == {"accept_documents": [TEXTS["widget.acceptDocumentMissing"]]}, failed
    state = box_state(host, "#termsAgreement")
    assert state["invalid"] == "true" and state["focused"] is True, state
    assert state["described"][1] == TEXTS["widget.acceptDocumentMissing"], state
    use_scheme(host, False)
    checked_at_phone_size(host, FOLDER / "termsAgreement-unticked.png")

    # With it: the sign-in finishes as any, and the record keeps both versions.
    _, success = accept_and_continue(host, "2")
    host.wait_for_screen("signedIn")
    assert success["userData"]["email"] == email
    assert acceptances(server, success["accessToken"]) == [("terms", "1", CLIENT_ID), ("terms", "2", CLIENT_ID)]
    assert api_sign_in(server, email)["stat"] == "ok", "asked once per version"

    # In Arabic: the page's words, the title in its language, the box on the right.
    texts = catalog("ar")
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.load(server.page("webViewSignIn", locale="ar-SA"))
    host.wait_for_screen("returnTraditional")  # the page remembers the last address
    mark, _ = sign_in(host, arabic, "returnTraditional")
    asked_for_the_terms(host, mark, "2", language="ar")
    assert host.run_js("[document.documentElement.lang, document.documentElement.dir]") == ["ar-SA", "rtl"]
    assert text_of(host, "#termsAgreement_title") == texts["termsAgreement.title"]
    assert text_of(host, "#termsAgreement .capture_lead") == texts["termsAgreement.lead"]
    state = box_state(host, "#termsAgreement")
    assert state["label"] == texts["widget.acceptDocument"].replace("%s", TITLES["ar"]), state
    assert state["described"][0] == texts["widget.documentVersion"].replace("%s", "2"), state
    placed = host.run_js("""(function(){ var box = document.querySelector('#termsAgreement [data-capture-document]');
        var label = document.querySelector('label[for="' + box.id + '"]'); var b = box.getBoundingClientRect(),
        l = label.getBoundingClientRect(); return [b.left >= l.right - 0.5, Math.abs(b.top + b.height / 2 -
        (l.top + 10 + 12)) < 4]; })()""")
    assert placed == [True, True], "the box to the right of its sentence, level with its first line: %s" % placed
    assert small_tap_targets(host) == []
    checked_light_and_dark(host, FOLDER, "termsAgreement-ar")
    host.fill_and_submit_form(TERMS_FORM, {})
    host.wait_for(lambda: box_state(host, "#termsAgreement")["invalid"] == "true", 10, "the box's message")
    assert box_state(host, "#termsAgreement")["described"][1] == texts["widget.acceptDocumentMissing"]
    use_scheme(host, False)
    checked_at_phone_size(host, FOLDER / "termsAgreement-ar-unticked.png")


def test_a_registration_page_open_across_a_new_version_asks_for_the_new_one(terms, host):
    server = terms.at("1")
    email = new_email()
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    host.click("#traditionalRegistration " + BOX)
    # The operator publishes version 2 while the form is filled in.
    terms.at("2")
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", registration_fields(email))
    host.wait_for_event("onCaptureRegistrationFailed", after=mark)
    events = events_after(host, mark)
    assert names(events) == ["onCaptureRegistrationStart", "onCaptureValidationFailed",
                             "onCaptureRegistrationFailed"], events
    failed = events[1][1]
    assert failed["code"] == 280 and failed["invalidFields"] == {
        "accept_documents": [TEXTS["widget.documentChanged"]]}, failed
    state = box_state(host, "#traditionalRegistration")
    assert state["document"] == "terms:2" and state["checked"] is False and state["focused"] is True, state
    assert state["described"] == [TEXTS["widget.documentVersion"].replace("%s", "2"),
                                  TEXTS["widget.documentChanged"]], state
    assert api_sign_in(server, email)["code"] == 210, "no account was made"
    blur(host)
    host.snapshot(FOLDER / "traditionalRegistration-new-version.png")

    host.click("#traditionalRegistration " + BOX)
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert acceptances(server, success["accessToken"]) == [("terms", "2", CLIENT_ID)]


def test_a_provider_sign_in_asks_for_the_terms_once(terms, host, oidc_provider):
    """A first sign-in with a provider (the account made from its profile) stops for the terms too; accepted, the
    account is registered and signed in, and the next sign-in with the provider goes straight through."""
    server = terms.server
    version = terms.version
    subject = new_subject()
    email = "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Pat Provider"})
    mark, message_mark = sign_in_with_provider(host, server, oidc_provider, subject)
    events = asked_for_the_terms(host, mark, version, provider="mock",
                                 after=("onProviderLoginSuccess", "onCaptureLoginStart"))
    assert names(events_after(host, message_mark, "message")) == names(events)
    assert events[-2][1]["authProvider"] == "mock"
    _, success = accept_and_continue(host, version, provider="mock", registered=True)
    host.wait_for_screen("signedIn")
    assert success["userData"]["email"] == email
    assert acceptances(server, success["accessToken"]) == [("terms", version, CLIENT_ID)]

    again = sign_out_and_back_in_with_the_provider(host, server, oidc_provider, subject)
    assert again["statusMessage"] == "loggedIn" and again["authProvider"] == "mock"
    host.wait_for_screen("signedIn")


def test_the_social_registration_form_asks_for_the_terms(terms, host, oidc_provider):
    server = terms.server
    version = terms.version
    subject = new_subject()
    oidc_provider.set_user(subject, {"name": "No Mail", "given_name": "Nomi"})
    sign_in_with_provider(host, server, oidc_provider, subject)
    host.wait_for_screen("socialRegistration")
    assert box_state(host, "#socialRegistration")["document"] == "terms:%s" % version
    email = "%s@example.com" % subject
    mark, _ = host.mark()
    host.fill_and_submit("socialRegistration", {"emailAddress": email})
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).result
    assert failed["form"] == "socialRegistrationForm", failed
    assert failed["invalidFields"] == {"accept_documents": [TEXTS["widget.acceptDocumentMissing"]]}, failed
    assert names(events_after(host, mark)) == ["onCaptureValidationFailed"]
    blur(host)
    checked_at_phone_size(host, FOLDER / "socialRegistration-unticked.png")

    host.click("#socialRegistration " + BOX)
    mark, _ = host.mark()
    host.fill_and_submit("socialRegistration", {})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark).result
    assert success["authProvider"] == "mock" and success["statusMessage"] == "registered", success
    assert acceptances(server, success["accessToken"]) == [("terms", version, CLIENT_ID)]


def test_the_second_factor_and_a_passkey_reach_the_terms_too_and_the_screen_copes_with_refusals(terms, host):
    server = terms.at("1")
    two_step, registered = api_register(server, "1")
    app, _ = server.set_up_authenticator(registered["access_token"])
    platform = PasskeyPlatform(host, server.base)
    with_passkey, registered = api_register(server, "1")
    server.add_passkey(registered["access_token"], platform.authenticator, name="Phone")
    server = terms.at("2")

    # /oauth/accept_terms: first the network is down, then the service answers, later a ticket it no longer takes
    # (its reply as the service words it).
    fail_requests(host, {"/oauth/accept_terms": [None, False, (200, SPENT_TICKET)]})

    # The password, then the app's code: the terms come last, before any token.
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    sign_in(host, two_step)
    host.wait_for_screen("twoFactor")
    mark, _ = host.mark()
    host.fill_and_submit_form("#twoFactor form[data-capture-factor=twoFactor]", {"code": app.fresh()})
    asked_for_the_terms(host, mark, "2", after=("onCaptureLoginStart",))
    # Offline: said in the form; the screen and its ticket stay for another try.
    host.click("#termsAgreement " + BOX)
    mark, _ = host.mark()
    host.fill_and_submit_form(TERMS_FORM, {})
    lost = host.wait_for_event("onCaptureLoginFailed", after=mark).result
    assert lost["statusMessage"] == "networkError" and lost["form"] == "termsAgreementForm", lost
    assert text_of(host, "#termsAgreement .capture_form_error") == TEXTS["widget.network"]
    assert host.visible_screen() == ["termsAgreement"]
    host.click("#termsAgreement " + BOX)  # untick: accept_and_continue ticks it again
    _, success = accept_and_continue(host, "2")
    assert success["userData"]["email"] == two_step
    assert acceptances(server, success["accessToken"]) == [("terms", "1", CLIENT_ID), ("terms", "2", CLIENT_ID)]

    # A passkey: "Cancel" goes back to sign-in, and the screen is gone with the sign-in it belonged to.
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    host.click('#returnTraditional [data-capture-action="forgetEmail"]')
    host.wait_for_screen("signIn")
    host.run_js("(document.querySelector('#signIn input[name=signInEmailAddress]').value = %s, true)"
                % json.dumps(with_passkey))
    mark, _ = host.mark()
    host.click("#signIn [data-capture-passkey-sign-in]")
    platform.answer(after=mark)
    events = asked_for_the_terms(host, mark, "2")
    assert events[-2][1]["form"] == "passkey"
    host.click("#termsAgreement [data-capture-terms-cancel]")
    host.wait_for_screen("signIn")
    assert host.run_js("janrain.capture.ui.renderScreen('termsAgreement')") is True
    assert host.visible_screen() == ["signIn"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False

    # A ticket the service no longer takes: back to sign-in, saying so; the next sign-in asks again.
    mark, _ = host.mark()
    host.click("#signIn [data-capture-passkey-sign-in]")
    platform.answer(after=mark)
    asked_for_the_terms(host, mark, "2")
    host.click("#termsAgreement " + BOX)
    mark, _ = host.mark()
    host.fill_and_submit_form(TERMS_FORM, {})
    host.wait_for_screen("signIn")
    events = events_after(host, mark)
    assert names(events) == ["onCaptureLoginStart", "onCaptureLoginFailed"], events
    assert events[1][1]["code"] == 200 and events[1][1]["form"] == "termsAgreementForm", events
    assert text_of(host, "#capture_notice") == TEXTS["widget.termsExpired"]

    mark, _ = host.mark()
    host.click("#signIn [data-capture-passkey-sign-in]")
    platform.answer(after=mark)
    asked_for_the_terms(host, mark, "2")
    _, success = accept_and_continue(host, "2")
    assert success["userData"]["email"] == with_passkey
    assert acceptances(server, success["accessToken"]) == [("terms", "1", CLIENT_ID), ("terms", "2", CLIENT_ID)]
