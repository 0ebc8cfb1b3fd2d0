"""A customer's Janrain flow with a hidden field (Tests/Fixtures/janrain-flow-orchard.json, imported by conftest as its
operator imports it; the pages janrain_site/orchard.html and orchard-profile.html): the opt-in source `optInSource`,
whose flow value is "orchard-web". A hidden field carries the flow's value, always: registration stores it, a profile
save keeps it, and a record whose value was changed elsewhere (an earlier app, the API) is set right by the next save
instead of failing it on a field the person cannot see (issue 49)."""

import json

from conftest import SHOTS, new_email
from test_social_sign_in import answer_at_provider, new_subject, tap_provider

PASSWORD = "windfall apples"
SOURCE = "orchard-web"


def hidden_value(host, screen):
    return host.run_js("(function(){ var i = document.querySelector('#%s input[name=optInSource]');"
                       " return i ? [i.type, i.value] : null; })()" % screen)


def entity(server, token):
    status, reply, _ = server.post("/entity", {"access_token": token})
    assert status == 200 and reply.get("stat") == "ok", reply
    return reply["result"]


def open_profile(host, janrain_site):
    mark, _ = host.mark()
    host.load(janrain_site.page("orchard-profile.html"))
    host.wait_for_event("onCaptureSessionFound", after=mark, timeout=20)
    host.wait_for_screen("editProfile")


def save_profile(host, values):
    """Submits the profile form with `values`; the save's success event, or the failure it met, as the test's failure."""
    mark, _ = host.mark()
    host.fill_and_submit("editProfile", values)
    outcome = host.wait_for(lambda: next((event for event in host.queue_events[mark:] if event.name in (
        "onCaptureProfileSaveSuccess", "onCaptureProfileSaveFailed", "onCaptureValidationFailed")), None), 20,
        "the save's outcome")
    assert outcome.name == "onCaptureProfileSaveSuccess", "the save was refused: %s %s" % (outcome.name, outcome.result)
    return outcome.result


def test_a_hidden_field_carries_the_flows_value_through_registration_and_every_profile_save(host, janrain_site,
                                                                                              server):
    host.load(janrain_site.page("orchard.html", "screenToRender=traditionalRegistration"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("traditionalRegistration")
    page = host.run_js("""(function(){
        var screen = document.getElementById('traditionalRegistration');
        return {
            tagsLeft: document.body.innerHTML.indexOf('{*') >= 0,
            provinces: [].map.call(screen.querySelectorAll('select[name=addressState_registration] option'),
                function (o) { return o.value; }),
            topics: [].map.call(screen.querySelectorAll('input.capture_input_checkbox'), function (box) {
                return box.name; }),
            wrapped: !!screen.querySelector('#capture_traditionalRegistration_optInSource')
                && !screen.querySelector('#capture_traditionalRegistration_form_item_optInSource')
        };
    })()""")
    assert page == {"tagsLeft": False, "provinces": ["", "BC", "ON", "NS", "QC"],
                    "topics": ["topicHarvest_registration", "topicRecipes_registration"], "wrapped": True}, page
    assert hidden_value(host, "traditionalRegistration") == ["hidden", SOURCE]

    # A script of the page's (or a restored form) puts something else in the hidden input: the flow's value is sent.
    host.run_js("(document.querySelector('#traditionalRegistration input[name=optInSource]').value = 'tampered', true)")
    email = new_email()
    mark, _ = host.mark()
    host.run_js("(document.querySelector('select[name=addressState_registration]').value = 'BC', true)")
    host.click("label[for=capture_traditionalRegistration_topicHarvest_registration]")
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress_registration": email, "firstName_registration": "Pippa", "lastName_registration": "Russet",
        "addressStreetAddress1_registration": "12 Orchard Lane", "addressCity_registration": "Kelowna",
        "addressPostalCode_registration": "V1Y 2A1",
        "newPassword_registration": PASSWORD, "newPasswordConfirm_registration": PASSWORD})
    success = host.wait_for_event("onCaptureRegistrationSuccess", after=mark, timeout=20).arguments[0]
    assert success["flow"] == "orchard", success
    host.wait_for_screen("registrationNewVerification")
    token = success["accessToken"]
    record = entity(server, token)
    assert record["optIn"]["source"] == SOURCE, record
    assert record["givenName"] == "Pippa" and record["familyName"] == "Russet", record
    assert record["primaryAddress"]["stateAbbreviation"] == "BC" and record["primaryAddress"]["city"] == "Kelowna", record
    assert record["interests"]["harvest"] is True and record["interests"]["recipes"] in (False, None), record

    # The profile page: the form filled from the record, the hidden field with the flow's value; a save keeps it.
    open_profile(host, janrain_site)
    filled = host.run_js("""(function(form){ return {
        firstName: form.elements.firstName.value, city: form.elements.addressCity.value,
        province: form.elements.addressState.value, harvest: form.elements.topicHarvest.checked,
        recipes: form.elements.topicRecipes.checked }; })(document.querySelector('#editProfile form'))""")
    assert filled == {"firstName": "Pippa", "city": "Kelowna", "province": "BC", "harvest": True, "recipes": False}, filled
    assert hidden_value(host, "editProfile") == ["hidden", SOURCE]
    host.click("label[for=capture_editProfile_topicRecipes]")
    save_profile(host, {"firstName": "Philippa"})
    record = entity(server, token)
    assert record["givenName"] == "Philippa" and record["interests"]["recipes"] is True, record
    assert record["optIn"]["source"] == SOURCE, record

    # An earlier app (here the API, with the person's own token) left another value in the record.
    status, updated, _ = server.post("/entity.update", {
        "access_token": token, "attributes": json.dumps({"optIn": {"source": "cider-app-2019"}})})
    assert status == 200 and updated.get("stat") == "ok", updated
    assert entity(server, token)["optIn"]["source"] == "cider-app-2019"

    # The profile opened again shows the record but keeps the flow's value in the hidden field; the save goes through
    # and the flow's value replaces the other one.
    open_profile(host, janrain_site)
    assert hidden_value(host, "editProfile") == ["hidden", SOURCE]
    assert host.run_js("document.querySelector('#editProfile form').elements.firstName.value") == "Philippa"
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-orchard-editProfile.png")
    save_profile(host, {"addressCity": "Summerland"})
    record = entity(server, token)
    assert record["optIn"]["source"] == SOURCE, record
    assert record["primaryAddress"]["city"] == "Summerland" and record["givenName"] == "Philippa", record
    # Nothing said against the form or a field.
    assert host.run_js("document.getElementById('capture_editProfile_editProfileForm_errorMessages').hidden"
                       " && !document.querySelector('#editProfile .capture_error')") is True

    # The service takes no other value either: sent by hand, another source is refused on the field.
    _, reply, _ = server.post("/oauth/update_profile_native", {
        "client_id": "janrain-site", "flow": "orchard", "form": "editProfileForm", "access_token": token,
        "emailAddress": record["email"], "firstName": "Philippa", "optInSource": "cider-app-2019"})
    assert reply["stat"] == "error" and list(reply["invalid_fields"]) == ["optInSource"], reply
    assert entity(server, token)["optIn"]["source"] == SOURCE


def test_a_profile_page_without_the_hidden_field_still_sends_the_flows_value(host, janrain_site, server):
    """Janrain's editPersonalForm style: the page's form shows part of the profile. The fields it leaves out keep the
    record's values, but the hidden one takes the flow's (the record's other value would be refused)."""
    email = new_email()
    _, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": "janrain-site", "flow": "orchard", "form": "registrationForm", "response_type": "token",
        "emailAddress_registration": email, "firstName_registration": "Bramley",
        "newPassword_registration": PASSWORD, "newPasswordConfirm_registration": PASSWORD})
    assert reply.get("stat") == "ok", reply
    token = reply["access_token"]
    # A registration that left the hidden field out (an older app of the site's) stored no source; then the API
    # stored another.
    status, updated, _ = server.post("/entity.update", {
        "access_token": token, "attributes": json.dumps({"optIn": {"source": "kiosk"}})})
    assert updated.get("stat") == "ok", updated
    host.load(janrain_site.page("orchard-profile.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    # The page's own script takes the hidden field out of its form before the session is found.
    host.run_js("(function(){ var i = document.querySelector('#editProfile input[name=optInSource]');"
                " i.parentNode.removeChild(i); return true; })()")
    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%s), true)" % json.dumps(token))
    host.wait_for_event("onCaptureSessionFound", after=mark, timeout=20)
    host.wait_for_screen("editProfile")
    save_profile(host, {"lastName": "Seedling"})
    record = entity(server, token)
    assert record["optIn"]["source"] == SOURCE and record["familyName"] == "Seedling", record
    assert record["givenName"] == "Bramley" and record["email"] == email, record


def test_social_registration_stores_the_flows_value_not_the_providers(host, janrain_site, server, oidc_provider):
    subject = new_subject()
    # A provider profile without an address: the page's socialRegistration form asks for it.
    oidc_provider.set_user(subject, {"name": "Cox Orange", "given_name": "Cox"})
    host.load(janrain_site.page("orchard.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    host.wait_for(lambda: (host.view.get_uri() or "").startswith(janrain_site.page("orchard.html")), 20,
                  "the orchard's page again")
    host.wait_for_screen("socialRegistration")
    assert hidden_value(host, "socialRegistration") == ["hidden", SOURCE]
    assert host.run_js("document.querySelector('#socialRegistration form').elements.firstName.value") == "Cox"
    host.run_js("(document.querySelector('#socialRegistration input[name=optInSource]').value = '', true)")
    email = "%s@example.com" % subject
    host.fill_and_submit("socialRegistration", {"emailAddress": email})
    success = host.wait_for_event("onCaptureRegistrationSuccess", after=mark, timeout=20).arguments[0]
    record = entity(server, success["accessToken"])
    assert record["email"] == email and record["optIn"]["source"] == SOURCE, record
