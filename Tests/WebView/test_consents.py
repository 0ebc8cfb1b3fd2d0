"""Marketing consent (issue 31; Janrain's consents object) in the real web view against the real service: registration
and editProfile carry a box, "Email me news and offers" (marketingConsent, bound to consents.marketing.granted). Ticked
at registration, the record says granted with the time and the demo client; editProfile shows the box as the record
has it, and unticking it withdraws the consent (a new time), which the reloaded page shows. The box in German, French
and Arabic; axe-core and the phone's layout rules light and dark; screenshots in .build/screenshots/consents/."""

import json

from conftest import CLIENT_ID, SHOTS, new_email
from screens import checked_light_and_dark, open_profile, text_of
from test_account_lifecycle import event
from test_languages import catalog, english_field_texts
from test_terms import registration_fields

FOLDER = SHOTS / "consents"
BOX = "input[name=marketingConsent]"


def marketing(server, token):
    """The record's consents.marketing, as /entity answers it."""
    _, reply, _ = server.post("/entity", {"access_token": token})
    assert reply["stat"] == "ok", reply
    return (reply["result"].get("consents") or {}).get("marketing") or {}


def box(host, screen):
    """The box on `screen`: its type, state, value and its label's text."""
    return host.run_js(
        "(function(input){ return input && {type: input.type, checked: input.checked, value: input.value,"
        " label: input.labels.length ? input.labels[0].textContent.trim() : null}; })"
        "(document.querySelector(%s))" % json.dumps("#%s %s" % (screen, BOX)))


def test_the_choice_made_at_registration_is_shown_and_withdrawn_on_the_profile(server, host, dark_scheme_reset):
    label = english_field_texts()["field.marketingConsent.label"]
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    assert box(host, "traditionalRegistration") == {"type": "checkbox", "checked": False, "value": "true",
                                                    "label": label}
    # After the password fields, before the button.
    assert host.run_js("document.querySelector('#traditionalRegistration [data-capture-field=newPasswordConfirm]')"
                       ".nextElementSibling.getAttribute('data-capture-field')") == "marketingConsent"

    host.click("#traditionalRegistration " + BOX)
    email = new_email()
    mark = host.mark()
    host.fill_and_submit("traditionalRegistration", registration_fields(email))
    token = event(host, "onCaptureLoginSuccess", mark)["accessToken"]
    given = marketing(server, token)
    assert given["granted"] is True and given["clientId"] == CLIENT_ID and given["updated"], given

    open_profile(server, host, token)
    assert box(host, "editProfile") == {"type": "checkbox", "checked": True, "value": "true", "label": label}
    checked_light_and_dark(host, FOLDER, "editProfile")

    host.click("#editProfile " + BOX)
    mark = host.mark()
    host.fill_and_submit("editProfile", {})
    event(host, "onCaptureProfileSaveSuccess", mark)
    withdrawn = marketing(server, token)
    assert withdrawn["granted"] is False and withdrawn["clientId"] == CLIENT_ID, withdrawn
    assert withdrawn["updated"] >= given["updated"]

    open_profile(server, host, token)
    assert box(host, "editProfile")["checked"] is False, "the page shows what the record says"


def test_the_box_speaks_each_language(server, host):
    email, reply = server.register()
    for locale, tag in (("de-DE", "de"), ("fr-FR", "fr"), ("ar-SA", "ar")):
        open_profile(server, host, reply["access_token"], locale=locale)
        assert box(host, "editProfile")["label"] == catalog(tag)["field.marketingConsent.label"], locale
        assert box(host, "editProfile")["checked"] is False, "never asked: not ticked"
        if tag == "ar":
            checked_light_and_dark(host, FOLDER, "editProfile-ar")
    assert text_of(host, "#editProfile [data-capture-field=marketingConsent] label") is not None
