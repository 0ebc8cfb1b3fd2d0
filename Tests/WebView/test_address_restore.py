"""An address change undone from the old address (issue 27): someone with a fresh session moves the account to
their mailbox in the web view's profile screen; the owner's old address gets a notice whose link, opened in the
app's web view, puts the address back, sets a new password and ends the intruder's session."""

from conftest import PASSWORD
from test_account_lifecycle import NEW_PASSWORD, entity, event, register
from test_lockout import api_sign_in

CHANGED_SUBJECT = "email address of your account was changed"


def test_the_old_addresss_link_undoes_a_change_made_in_the_profile_screen(server, host, mailbox):
    email, registered = register(server, mailbox, display_name="Owner")
    thief = "thief-" + email
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureRenderComplete")
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % registered["access_token"])
    host.wait_for_screen("editProfile")
    inbox_mark = mailbox.count()
    saved = host.mark()
    host.fill_and_submit("editProfile", {"emailAddress": thief})
    assert event(host, "onCaptureProfileSaveSuccess", saved)["userData"]["email"] == thief

    notice = mailbox.wait_for(email, host, after=inbox_mark, subject=CHANGED_SUBJECT)
    assert thief in notice.text and notice.link and "#screen=resetPassword&" in notice.link
    assert notice.link.split("#")[1] not in notice.link.split("#")[0], "the code travels only in the fragment"

    # The owner taps the link in the app: the reset screen, with the old address and the code filled in.
    host.load(notice.link)
    host.wait_for_screen("resetPassword")
    assert host.run_js("document.querySelector('#resetPassword [name=email]').value") == email
    host.fill_and_submit("resetPassword", {"newPassword": NEW_PASSWORD, "newPasswordConfirm": NEW_PASSWORD})
    host.wait_for_screen("resetPasswordSuccess")

    assert entity(server, registered["access_token"])["stat"] == "error", "the intruder's session ended"
    assert api_sign_in(server, thief, NEW_PASSWORD)["code"] == 210, "the account left the intruder's address"
    assert api_sign_in(server, email, PASSWORD)["code"] == 210, "the password the intruder knew is gone"
    back = api_sign_in(server, email, NEW_PASSWORD)
    assert back["stat"] == "ok" and back["capture_user"]["email"] == email
    assert back["capture_user"]["emailVerified"], "the link proved the old address"
