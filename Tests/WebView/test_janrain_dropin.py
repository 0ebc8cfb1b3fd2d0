"""A Janrain customer's own pages (janrain_site/), unchanged but for the loader URL and the service's address,
rendered and driven through the drop-in loader in the web view, as the customer's app embeds them: the JTL screens
become Janrain's markup, the forms talk to the service across origins, and events reach the host through the site's
own copy of Janrain's bridge."""

import json
import urllib.request

from conftest import PASSWORD, SHOTS, new_email
from test_social_sign_in import answer_at_provider, new_subject, tap_provider

# What Janrain's widget put in a page for a field, a form and a screen (customers' CSS and scripts select these).
JANRAIN_MARKUP_JS = """(function(){
    function has(selector){ return !!document.querySelector(selector); }
    return {
        tagsLeft: document.body.innerHTML.indexOf('{*') >= 0,
        input: has('#signIn input#capture_signIn_signInEmailAddress.capture_text_input[name=signInEmailAddress]'),
        item: has('#capture_signIn_form_item_signInEmailAddress.capture_form_item.capture_form_item_signInEmailAddress'),
        label: has('label[for=capture_signIn_currentPassword]'),
        form: has('form#capture_signIn_signInForm.capture_form.capture_signInForm[name=signInForm]'),
        formErrors: has('#capture_signIn_signInForm_errorMessages'),
        hidden: document.querySelectorAll('#capture_signIn_signInForm input[type=hidden][name=client_id]').length,
        tipError: has('#capture_signIn_form_item_currentPassword .capture_tip_error[data-elementname=currentPassword]'),
        screen: has('#signIn.capture_screen_container.janrain-capture-ui[data-capturescreenname=signIn]'),
        blockWithoutHash: has('#traditionalRegistration form#capture_traditionalRegistration_registrationForm'),
        misNestedClose: has('#forgotPassword form#capture_forgotPassword_forgotPasswordForm'),
        backButton: has('#forgotPassword a.capture_backButton'),
        button: (document.querySelector('#signIn button[type=submit]') || {}).textContent,
        status: window.janrain.engage && window.janrain.engage.signin.status,
        events: Object.keys(window.janrain.events).length
    };
})()"""


def open_site(host, janrain_site, page="index.html"):
    host.load(janrain_site.page(page))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)


def test_a_janrain_page_renders_its_own_screens_in_janrains_markup(host, janrain_site):
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    markup = host.run_js(JANRAIN_MARKUP_JS)
    assert markup == dict(markup, tagsLeft=False, input=True, item=True, label=True, form=True, formErrors=True,
                          hidden=1, tipError=True, screen=True, blockWithoutHash=True, misNestedClose=True,
                          backButton=True, button="Sign in", status="loaded"), markup
    assert markup["events"] >= 30, markup
    # The page's own stylesheet for Janrain's markup was injected (capture.stylesheets).
    assert host.run_js("[].some.call(document.querySelectorAll('link[rel=stylesheet]'),"
                       " function(l){ return /fernway-capture\\.css$/.test(l.href); })") is True


def test_registration_and_sign_in_on_a_janrain_page_reach_the_host(host, make_host, janrain_site, server):
    email = new_email()
    open_site(host, janrain_site)
    host.click('#signIn [data-capturescreen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Fern", "firstName": "Fern", "lastName": "Gully",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    registered = host.wait_for_event("onCaptureRegistrationSuccess", after=mark, timeout=20)
    result = registered.arguments[0]
    assert result["status"] == "success" and result["accessToken"], result
    # The token works at the service, for the address registered on the customer's page.
    status, entity, _ = server.post("/entity", {"access_token": result["accessToken"]})
    assert entity["stat"] == "ok" and entity["result"]["email"] == email, entity

    other = make_host()
    open_site(other, janrain_site)
    other.wait_for_screen("signIn")
    mark, _ = other.mark()
    other.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    success = other.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["accessToken"] and success["userData"]["email"] == email, success
    # The page's own handler ran too.
    assert other.run_js("document.getElementById('welcome').textContent") == "Welcome back"


def test_a_wrong_password_on_a_janrain_page_is_told_in_the_form(host, janrain_site, server):
    email, _ = server.register()
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": "not " + PASSWORD})
    failed = host.wait_for_event("onCaptureLoginFailed", after=mark, timeout=20).arguments[0]
    assert failed["status"] == "error", failed
    assert host.run_js("!document.getElementById('capture_signIn_signInForm_errorMessages').hidden") is True


def test_the_back_button_returns_to_the_screen_before(host, janrain_site):
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capturescreen="forgotPassword"]')
    host.wait_for_screen("forgotPassword")
    host.click("#forgotPassword .capture_backButton")
    host.wait_for_screen("signIn")


def test_the_service_answers_only_the_origins_clients_allow(server, janrain_site):
    def flow(origin):
        request = urllib.request.Request(
            server.url("/flows/standard/widget.json?client_id=janrain-site&locale=en-US"), headers={"Origin": origin})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.headers, json.loads(response.read())

    headers, document = flow(janrain_site.origin)
    assert headers["Access-Control-Allow-Origin"] == janrain_site.origin and "Origin" in headers["Vary"]
    assert "signInForm" in document["flow"]["forms"] and document["settings"]["capture"]["forms"]["signInForm"]
    headers, _ = flow("https://attacker.example")
    assert headers["Access-Control-Allow-Origin"] is None
    # A sign-in from the customer's origin for a client that does not allow it is refused, and readable as such.
    status, reply, headers = server.post("/oauth/auth_native_traditional", {
        "client_id": "demo-mobile-app", "flow": "standard", "form": "signInForm", "response_type": "token",
        "signInEmailAddress": new_email(), "currentPassword": PASSWORD}, headers={"Origin": janrain_site.origin})
    assert reply["stat"] == "error" and headers["Access-Control-Allow-Origin"] == janrain_site.origin, reply


def test_a_plugin_page_with_janrains_older_field_names_opens_the_screen_its_address_names(host, janrain_site, server):
    email, _ = server.register()
    host.load(janrain_site.page("plugin.html", "screenToRender=traditionalRegistration"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("traditionalRegistration")
    assert host.run_js("janrain.pluginReady === true && janrain.pluginModalReady === true && !!document.querySelector("
                       "'#signIn form#capture_signIn_userInformationForm #capture_signIn_traditionalSignIn_password')")
    host.click('#traditionalRegistration [data-capturescreen="signIn"]')
    host.wait_for_screen("signIn")
    # The older flows' "create account" button opens registration.
    host.click("#signIn button[name=traditionalSignIn_createButton]")
    host.wait_for_screen("traditionalRegistration")
    host.click('#traditionalRegistration [data-capturescreen="signIn"]')
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"traditionalSignIn_emailAddress": email, "traditionalSignIn_password": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["accessToken"] and success["userData"]["email"] == email, success


def test_a_profile_page_fills_its_form_from_the_record_and_saves_it(host, janrain_site, server):
    # The site's app signed the person in natively (the site's own client) and hands the page the token.
    email = new_email()
    status, reply, _ = server.post("/oauth/register_native_traditional", {
        "client_id": "janrain-site", "flow": "standard", "form": "registrationForm", "response_type": "token",
        "emailAddress": email, "displayName": "Fern", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
    assert reply["stat"] == "ok", reply
    host.load(janrain_site.page("profile.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    assert host.run_js("document.getElementById('status').textContent") == "Please sign in first"
    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.createCaptureSession(%s), true)" % json.dumps(reply["access_token"]))
    host.wait_for_event("onCaptureSessionFound", after=mark, timeout=20)
    host.wait_for_screen("editProfile")
    assert host.run_js("document.getElementById('capture_editProfile_displayName').value") == "Fern"
    assert host.run_js("document.querySelector('#editProfile h1 [data-capture-bind]').textContent") == "Fern"
    assert host.run_js("document.getElementById('capture_editProfile_emailAddressData').textContent") == email
    # Janrain's linked-accounts elements: the list, and the provider buttons of linkAccountContainer link.
    assert host.run_js("!!document.querySelector('#editProfile [data-capture-linked] [data-capture-linked-list]')"
                       " && !!document.querySelector('#editProfile .capture_linkAccountContainer"
                       " button[data-capture-link][data-capture-provider]')") is True
    mark, _ = host.mark()
    host.fill_and_submit("editProfile", {"firstName": "Fernanda"})
    host.wait_for_event("onCaptureProfileSaveSuccess", after=mark, timeout=20)
    status, entity, _ = server.post("/entity", {"access_token": reply["access_token"]})
    assert entity["result"]["givenName"] == "Fernanda" and entity["result"]["email"] == email, entity
    mark, _ = host.mark()
    host.click("#editProfile .capture_end_session")
    host.wait_for_event("onCaptureSessionEnded", after=mark, timeout=20)


def test_the_flows_rules_are_checked_in_the_page_with_the_services_own_messages(host, janrain_site):
    open_site(host, janrain_site)
    host.click('#signIn [data-capturescreen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    mark, _ = host.mark()
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": "not-an-address", "displayName": "  ", "newPassword": "short", "newPasswordConfirm": "other"})
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark).arguments[0]
    assert sorted(failed["invalidFields"]) == ["displayName", "emailAddress", "newPassword", "newPasswordConfirm"], failed
    shown = host.run_js("(function(){ var out = {}; [].forEach.call(document.querySelectorAll("
                        "'#traditionalRegistration .capture_tip_error:not([hidden])'), function(t){"
                        " out[t.getAttribute('data-elementname')] = t.textContent; }); return out; })()")
    assert shown == {"emailAddress": "Enter a valid email address, like name@example.com.",
                     "displayName": "Choose a display name.",
                     "newPassword": "Use at least 8 characters for your password.",
                     "newPasswordConfirm": "The passwords do not match."}, shown
    host.settle()
    assert "onCaptureRegistrationStart" not in [event.name for event in host.queue_events[mark:]], "nothing was sent"


def test_the_return_experience_is_remembered_as_janrain_remembered_it(host, janrain_site, server):
    email, _ = server.register(display_name="Fern")
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20)
    assert "janrainLastAuthMethod=traditionalSignin" in host.run_js("document.cookie")
    assert host.run_js("janrain.capture.ui.getReturnExperienceData('email')") == email
    # Signed out, the page offers the way back in for that address; "use another account" forgets it.
    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.endCaptureSession(), true)")
    host.wait_for_event("onCaptureSessionEnded", after=mark, timeout=20)
    host.wait_for_screen("returnTraditional")
    assert host.run_js("document.getElementById('capture_returnTraditional_signInEmailAddress').value") == email
    host.click('#returnTraditional [data-cancelcapturereturnexperience="true"]')
    host.wait_for_screen("signIn")
    assert "janrainLastAuthMethod" not in host.run_js("document.cookie")
    assert host.run_js("janrain.capture.ui.getReturnExperienceData('email')") is None


def test_a_provider_sign_in_from_a_janrain_page_comes_back_to_it_signed_in_and_returns_to_it(host, janrain_site,
                                                                                               oidc_provider):
    subject, email = new_subject(), new_email()
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Fern at Mock"})
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    host.wait_for(lambda: (host.view.get_uri() or "").startswith(janrain_site.page("index.html")), 20,
                  "the site's own page again")
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["authProvider"] == oidc_provider.name and success["userData"]["email"] == email, success
    assert "janrainLastAuthMethod=socialSignin" in host.run_js("document.cookie")
    # Signed out, returnSocial welcomes them by name and offers the provider they used; "use another account"
    # forgets it (the one provider offered here is the last one, so another is refused by name below).
    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.endCaptureSession(), true)")
    host.wait_for_event("onCaptureSessionEnded", after=mark, timeout=20)
    host.wait_for_screen("returnSocial")
    shown = host.run_js("""(function(s){ return {
        welcome: document.getElementById('capture_returnSocial_welcomeName').textContent,
        providers: [].map.call(s.querySelectorAll('[data-capture-provider]'), function (b) {
            return b.getAttribute('data-capture-provider'); }) }; })(document.getElementById('returnSocial'))""")
    assert shown == {"welcome": "Fern at Mock", "providers": [oidc_provider.name]}, shown
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-returnSocial.png")
    host.run_js("(localStorage.setItem('janrainCaptureReturnExperienceData', JSON.stringify({provider: 'gone'})),"
                " janrain.capture.ui.renderScreen('returnSocial'), true)")
    host.wait_for_screen("returnSocial")
    assert host.run_js("document.querySelectorAll('#returnSocial [data-capture-provider]').length") == 1, \
        "a provider no longer offered: every offered provider"
    host.click('#returnSocial [data-cancelcapturereturnexperience="true"]')
    host.wait_for_screen("signIn")
    assert "janrainLastAuthMethod" not in host.run_js("document.cookie")


def test_a_merge_fills_the_pages_own_template_and_links_after_the_password(host, janrain_site, server, oidc_provider):
    # A password account, then a provider account with the same address: the provider's sign-in is a merge (380).
    email, _ = server.register(display_name="Fern")
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Fern at Mock"})
    open_site(host, janrain_site)
    host.wait_for_screen("signIn")
    tap_provider(host)
    answer_at_provider(host, oidc_provider, subject)
    host.wait_for_screen("mergeAccounts", timeout=20)
    merge = host.run_js("""(function(s){ return {
        left: s.innerHTML.indexOf('{|') >= 0, address: s.querySelector('.merge-address').textContent,
        iconClass: s.querySelector('.merge-from').className, site: s.querySelector('.merge-site').textContent,
        connect: s.querySelector('[data-capture-screen=traditionalAuthenticateMerge]').textContent,
        notNow: !!s.querySelector('[data-capture-action=cancelSocial]') }; })(document.getElementById('mergeAccounts'))""")
    assert merge == {"left": False, "address": email, "iconClass": "merge-from janrain-provider-icon-%s" % oidc_provider.name,
                     "site": "The account you already have: Fernway Rewards", "connect": "Sign in to link",
                     "notNow": True}, merge
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-mergeAccounts.png")
    host.click("#mergeAccounts [data-capture-screen=traditionalAuthenticateMerge]")
    host.wait_for_screen("traditionalAuthenticateMerge")
    mark, _ = host.mark()
    host.fill_and_submit("traditionalAuthenticateMerge", {"traditionalSignIn_emailAddress": email, "mergePassword": PASSWORD})
    success = host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20).arguments[0]
    assert success["userData"]["email"] == email, success
    _, record, _ = server.post("/entity", {"access_token": success["accessToken"]})
    assert [p["identifier"] for p in record["result"]["profiles"]] == ["%s:%s" % (oidc_provider.name, subject)], record
