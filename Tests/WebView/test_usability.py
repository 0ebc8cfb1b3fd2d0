"""The phone-user defects of issue 10, each as a person meets it in the web view: where focus goes after a failed
submit and while a form is sent, the error summary, password rules shown up front and a show-password toggle, the
profile page waiting for the host's token instead of flashing a sign-in form, a native sign-out with no error
banner, and a window title that names the screen."""

import json

from conftest import CLIENT_ID

ACTIVE = "(function(e){return e?(e.name||e.id||e.tagName):null;})(document.activeElement)"


def test_a_failed_registration_focuses_the_first_field_on_screen_and_sums_up_the_errors(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    host.wait_for_screen("traditionalRegistration")
    queue_mark, _ = host.mark()
    # Three fields wrong; their names sort as displayName < emailAddress < newPassword, but on screen the address
    # comes first.
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": "not-an-address", "displayName": "", "newPassword": "short", "newPasswordConfirm": "short"})
    failed = host.wait_for_event("onCaptureValidationFailed", after=queue_mark).result
    assert set(failed["invalidFields"]) >= {"emailAddress", "displayName", "newPassword"}
    host.settle()
    assert host.run_js(ACTIVE) == "emailAddress"
    summary = host.run_js("""(function(){var n=document.querySelector('#traditionalRegistration .capture_form_error');
        var links=n.querySelectorAll('[data-capture-focus]');var out=[];
        for(var i=0;i<links.length;i++){out.push(links[i].textContent);}
        return {role:n.getAttribute('role'),hidden:n.hidden,text:n.firstChild.textContent,links:out};})()""")
    assert summary["role"] == "alert" and not summary["hidden"]
    assert summary["text"].startswith("Please fix these 3 fields") or summary["text"].startswith("Please fix these")
    assert summary["links"][:3] == ["Email address", "Display name", "Password"], "in screen order"
    # A summary link takes focus to its field.
    host.run_js("(document.querySelectorAll('#traditionalRegistration [data-capture-focus]')[2].click(), true)")
    assert host.run_js(ACTIVE) == "newPassword"


def test_focus_stays_on_the_button_while_a_form_is_sent(server, host):
    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    state = host.run_js("""(function(email){var f=document.querySelector('#signIn form');
        f.elements.signInEmailAddress.value=email;f.elements.currentPassword.value='wrong password here';
        var b=f.querySelector('button[type=submit]');b.focus();b.click();
        return {active:document.activeElement===b,busy:b.getAttribute('aria-disabled'),disabled:b.disabled};})(%s)"""
                        % json.dumps(email))
    assert state == {"active": True, "busy": "true", "disabled": False}
    host.wait_for_event("onCaptureLoginFailed")
    assert host.run_js("document.activeElement.tagName") != "BODY"
    assert host.run_js("document.querySelector('#signIn button[type=submit]').getAttribute('aria-disabled')") is None


def test_password_rules_show_before_they_fail_and_the_password_can_be_shown(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    field = host.run_js("""(function(){var i=document.querySelector('#traditionalRegistration input[name=newPassword]');
        var hint=document.getElementById(i.id+'_hint');var t=i.parentNode.querySelector('[data-capture-reveal]');
        return {described:i.getAttribute('aria-describedby'),hint:hint&&!hint.hidden&&hint.textContent,hintId:hint&&hint.id,
                toggle:t.textContent,tag:t.tagName,type:t.type,pressed:t.getAttribute('aria-pressed'),
                controls:t.getAttribute('aria-controls'),id:i.id,height:t.getBoundingClientRect().height};})()""")
    assert field["hint"] == "Use at least 8 characters." and field["hintId"] in field["described"].split()
    assert field["toggle"] == "Show password" and field["tag"] == "BUTTON" and field["type"] == "button"
    assert field["pressed"] == "false" and field["controls"] == field["id"] and field["height"] >= 44
    toggle = "document.querySelector('#traditionalRegistration [aria-controls=%s]')" % field["id"]
    host.run_js("(%s.click(), true)" % toggle)
    assert host.run_js("[document.getElementById(%s).type, %s.getAttribute('aria-pressed'), %s.textContent]"
                       % (json.dumps(field["id"]), toggle, toggle)) == ["text", "true", "Show password"]
    host.run_js("(%s.click(), true)" % toggle)
    assert host.run_js("document.getElementById(%s).type" % json.dumps(field["id"])) == "password"
    # Sign-in's current password has the toggle too, but no rules (they are for new passwords).
    assert host.run_js("!!document.querySelector('#signIn [data-capture-reveal]')") is True
    assert host.run_js("document.querySelector('#signIn .capture_hint')") is None


def test_the_profile_page_waits_for_the_hosts_token_instead_of_flashing_sign_in(server, host):
    email, reply = server.register(display_name="Waiting")
    host.load(server.page("webViewProfile", session="pending"))
    done = host.wait_for_event("onCaptureRenderComplete").result
    assert done["screen"] is None
    assert host.visible_screen() == [] and host.run_js("!document.getElementById('capture_loading').hidden")
    queue_mark, _ = host.mark()
    assert host.command("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(reply["access_token"])) \
        == ("boolean", True)
    host.wait_for_screen("editProfile")
    host.wait_for_event("onCaptureScreenShow", "message", after=0)
    shown = [e.result["screen"] for e in host.message_events if e.name == "onCaptureScreenShow"]
    assert shown == ["editProfile"], "no sign-in form before the profile"
    assert host.run_js("document.title").startswith("Your profile")


def test_a_native_sign_out_clears_the_page_quietly(server, host):
    email, reply = server.register()
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureRenderComplete")
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % reply["access_token"])
    host.wait_for_screen("editProfile")
    # The app signs out natively: it revokes its tokens itself, then tells the page.
    status, _, _ = server.post("/oauth/revoke", {"token": reply["refresh_token"], "client_id": CLIENT_ID})
    assert status == 200
    queue_mark, _ = host.mark()
    assert host.command("janrain.capture.ui.clearCaptureSession()") == ("boolean", True)
    ended = host.wait_for_event("onCaptureSessionEnded", after=queue_mark).result
    assert ended["statusMessage"] == "sessionCleared"
    host.wait_for_screen("signIn")
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None
    notice = "(function(n){return n&&!n.hidden;})(document.getElementById('capture_notice'))"
    assert host.run_js(notice) in (False, None)
    # Loading the page again later: no "your session has ended" banner either.
    host.reload()
    host.wait_for_screen("signIn")
    assert host.run_js(notice) in (False, None)
    assert host.command("janrain.capture.ui.clearCaptureSession()") == ("boolean", False)


def test_the_window_title_names_the_screen(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    assert host.run_js("document.title") == "Sign in"
    host.run_js("janrain.capture.ui.renderScreen('traditionalRegistration')")
    assert host.run_js("document.title") == "Create your account – Sign in"


def test_a_birthdate_error_speaks_of_dates_not_of_the_wire_format(server, host):
    _, reply = server.register()
    host.load(server.page("webViewProfile", session="pending"))
    host.wait_for_event("onCaptureRenderComplete")
    host.command("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(reply["access_token"]))
    host.wait_for_screen("editProfile")
    queue_mark, _ = host.mark()
    host.fill_and_submit("editProfile", {"birthdate": "2999-01-01"})
    host.wait_for_event("onCaptureProfileSaveFailed", after=queue_mark)
    tip = host.run_js("document.getElementById(document.querySelector('#editProfile input[name=birthdate]').id"
                      "+'_error').textContent")
    assert tip == "Enter a date in the past." and "YYYY" not in tip
