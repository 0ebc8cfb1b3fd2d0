"""Pages from older Janrain sites and apps (janrain_site/appview.html, account.html): a flow of the site's own that
this service has not imported, the loader under the site's own app id, the older field names, a form that holds a
field its flow does not give it, and the web-view profile flow's screens that each save part of the profile."""

import json
import urllib.parse

from conftest import PASSWORD, new_email


def navigated_events(host, after=0):
    """The events Janrain's first bridge sent as `janrain:<event>?arguments=<JSON>` navigations: [(name, result)]."""
    events = []
    for uri in host.intercepted[after:]:
        name, _, query = uri[len("janrain:"):].partition("?")
        if query.startswith("arguments="):
            events.append((name, json.loads(urllib.parse.unquote(query[len("arguments="):]))["0"]))
    return events


def test_an_app_page_with_its_own_flow_registers_through_the_janrain_fallback(host, janrain_site, server):
    email = new_email()
    host.load(janrain_site.page("appview.html", "screenToRender=traditionalRegistration"))
    # Each event reaches the app as a navigation of its own, though several are fired together.
    host.wait_for(lambda: "onCaptureRenderComplete" in [n for n, _ in navigated_events(host)], 20, "render complete")
    host.wait_for_screen("traditionalRegistration")
    assert [n for n, _ in navigated_events(host)][:2] == ["onCaptureRenderStart", "onCaptureSessionNotFound"]
    assert host.run_js("document.body.innerHTML.indexOf('{*') < 0")
    mark = len(host.intercepted)
    # One password field (the flow's confirmation is the same value) and a birthdate the form does not take.
    host.fill_and_submit("traditionalRegistration", {
        "traditionalRegistration_firstName": "Fern", "traditionalRegistration_lastName": "Gully",
        "traditionalRegistration_emailAddress": email, "traditionalRegistration_password": PASSWORD,
        "traditionalRegistration_displayName": "Fern", "birthdate": "1990-04-01"})
    host.wait_for(lambda: "onCaptureLoginSuccess" in [n for n, _ in navigated_events(host, mark)], 20, "signed in")
    sent = dict(navigated_events(host, mark))
    assert {"onCaptureRegistrationStart", "onCaptureSessionCreated", "onCaptureRegistrationSuccess"} <= set(sent), sent
    success = sent["onCaptureRegistrationSuccess"]
    assert success["flow"] == "webViewDemo" and success["accessToken"], success
    _, entity, _ = server.post("/entity", {"access_token": success["accessToken"]})
    assert entity["result"]["email"] == email and entity["result"]["givenName"] == "Fern", entity
    assert entity["result"]["birthday"] is None, entity


def test_a_profile_page_opens_its_own_first_screen_and_saves_part_of_the_profile(host, janrain_site, server):
    email = new_email()
    _, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": "janrain-site", "flow": "standard", "form": "registrationForm", "response_type": "token",
        "emailAddress": email, "displayName": "Fern", "firstName": "Fern", "lastName": "Gully",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    host.load(janrain_site.page("account.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%s), true)" % json.dumps(reply["access_token"]))
    host.wait_for_event("onCaptureSessionFound", after=mark, timeout=20)
    # The flow's own first screen (editProfile) is not on this page: its first screen for a signed-in person shows.
    host.wait_for_screen("editProfileLanding")
    host.click('#editProfileLanding [data-capturescreen="editPersonalInfo"]')
    host.wait_for_screen("editPersonalInfo")
    assert host.run_js("document.getElementById('capture_editPersonalInfo_edit_lastName').value") == "Gully"
    birthday = "capture_editPersonalInfo_edit_birthdate"
    assert host.choose_date(birthday, 1990, 4, 1) == "1990-04-01"
    mark, _ = host.mark()
    host.fill_and_submit("editPersonalInfo", {"edit_firstName": "Fernanda"})
    host.wait_for_event("onCaptureProfileSaveSuccess", after=mark, timeout=20)
    _, entity, _ = server.post("/entity", {"access_token": reply["access_token"]})
    record = entity["result"]
    assert (record["givenName"], record["familyName"], record["displayName"], record["email"], record["birthday"]) == (
        "Fernanda", "Gully", "Fern", email, "1990-04-01"), record
    # Shown again, the date select shows the record's date.
    host.click('#editPersonalInfo .capture_backButton')
    host.wait_for_screen("editProfileLanding")
    host.click('#editProfileLanding [data-capturescreen="editPersonalInfo"]')
    host.wait_for_screen("editPersonalInfo")
    shown = host.run_js("""(function(id){ return ['year', 'month', 'day'].map(function(part){
        return document.getElementById(id + '_dateselect_' + part).value; }); })(%s)""" % json.dumps(birthday))
    assert shown == ["1990", "4", "1"], shown
