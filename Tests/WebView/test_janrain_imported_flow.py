"""A site's own Janrain flow, exported from Janrain (Tests/Fixtures/janrain-flow-fernway.json) and imported with
`capturectl flows import` (conftest), serving the site's page (janrain_site/hiking.html): its own fields, select
options, buttons, text tags, rules and translations, in the page and at the service."""

from conftest import SHOTS, new_email

PASSWORD = "ten chars or more"


def open_hiking(host, janrain_site, query="screenToRender=traditionalRegistration"):
    host.load(janrain_site.page("hiking.html", query))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("traditionalRegistration")


def test_the_sites_own_flow_registers_with_its_own_fields_and_rules(host, janrain_site, server):
    open_hiking(host, janrain_site)
    page = host.run_js("""(function(){
        var screen = document.getElementById('traditionalRegistration');
        return {
            tagsLeft: document.body.innerHTML.indexOf('{*') >= 0,
            heading: screen.querySelector('h1').textContent,
            trailLabel: screen.querySelector('label[for=capture_traditionalRegistration_favouriteTrail]').textContent,
            options: [].map.call(screen.querySelectorAll('select[name=favouriteTrail] option'), function(o){ return o.value; }),
            tip: (screen.querySelector('#capture_traditionalRegistration_form_item_displayName .capture_tip') || {}).textContent,
            button: screen.querySelector('button[name=joinButton]').textContent
        };
    })()""")
    assert page == {"tagsLeft": False, "heading": "Welcome to the Fernway hiking club", "trailLabel": "Favourite trail",
                    "options": ["", "ridge", "valley"], "tip": "How other hikers see you.",
                    "button": "Join the club"}, page
    # The flow's own rule and message, checked in the page first.
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": new_email(), "displayName": "Ridge Runner", "newPassword": "nine char", "newPasswordConfirm": "nine char"})
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).arguments[0]
    assert failed["invalidFields"] == {"newPassword": ["At least 10 characters, please."]}, failed
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-imported-registration.png")

    email = new_email()
    mark, _ = host.mark()
    host.run_js("document.querySelector('select[name=favouriteTrail]').value = 'ridge', true")
    # Janrain's date select: month, day and year chosen as a person chooses them; the form sends the date.
    assert host.choose_date("capture_traditionalRegistration_birthdate", 1990, 4, 1) == "1990-04-01"
    # A radio collection, chosen by a tap on its label; the chosen item is capture_toggled, as Janrain marked it.
    host.click("label[for=capture_traditionalRegistration_gender_2]")
    toggled = host.run_js("""[].map.call(document.querySelectorAll(
        '#capture_traditionalRegistration_gender .capture_form_collection_elem'), function (item) {
            return item.className.indexOf('capture_toggled') >= 0; })""")
    assert toggled == [False, False, True], toggled
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Ridge Runner", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    success = host.wait_for_event("onCaptureRegistrationSuccess", after=mark, timeout=20).arguments[0]
    assert success["flow"] == "fernway", success
    # The flow's own next rule: an address not confirmed yet is told to check its mail.
    host.wait_for_screen("registrationNewVerification")
    _, entity, _ = server.post("/entity", {"access_token": success["accessToken"]})
    assert entity["result"]["currentLocation"] == "ridge" and entity["result"]["email"] == email, entity
    assert entity["result"]["birthday"] == "1990-04-01", entity
    assert entity["result"]["gender"] == "other", entity
    assert entity["result"]["primaryAddress"]["country"] == "NZ", entity  # the flow's hidden input

    # The service holds the flow's rules too: a value the select does not offer is refused with its label.
    _, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": "janrain-site", "flow": "fernway", "form": "registrationForm", "response_type": "token",
        "emailAddress": new_email(), "displayName": "Cliff", "favouriteTrail": "cliff",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    assert reply["stat"] == "error" and list(reply["invalid_fields"]) == ["favouriteTrail"], reply
    # Nor a hidden input's value other than the flow's.
    _, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": "janrain-site", "flow": "fernway", "form": "registrationForm", "response_type": "token",
        "emailAddress": new_email(), "displayName": "Cliff", "siteCountry": "US",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    assert reply["stat"] == "error" and list(reply["invalid_fields"]) == ["siteCountry"], reply


def test_the_sites_own_flow_speaks_its_translations(host, janrain_site):
    open_hiking(host, janrain_site, "screenToRender=traditionalRegistration&lang=de")
    texts = host.run_js("""(function(){
        var screen = document.getElementById('traditionalRegistration');
        return [screen.querySelector('h1').textContent,
                screen.querySelector('label[for=capture_traditionalRegistration_displayName]').textContent,
                screen.querySelector('#capture_traditionalRegistration_form_item_displayName .capture_tip').textContent,
                [].map.call(screen.querySelectorAll('select[name=favouriteTrail] option'), function(o){
                    return o.textContent; })];
    })()""")
    assert texts[0] == "Willkommen im Wanderclub Fernway" and texts[1].startswith("Wandername"), texts
    # Tips and option labels in the page's language too.
    assert texts[2:] == ["So sehen dich andere Wanderer.", ["Wähle einen", "Gratwanderung", "Talrunde"]], texts
