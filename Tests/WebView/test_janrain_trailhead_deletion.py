"""Deleting the account on a customer's own page whose flow, imported as it is (Tests/Fixtures/janrain-flow-trailhead.json,
janrain_site/trailhead.html, client `trailhead-site`), names the deletion's password field its own way
(`password_deactivateAccount` in deactivateAccountForm, on the flow's deleteAccount screen): a wrong password is that
field's error and deletes nothing; the right one fires onCaptureAccountDeactivateSuccess, ends the page's session, and
the service refuses the next sign-in as a deleted account's (account_deactivated, with the day until which it can come
back). Deletion is storage: this file runs on PostgreSQL (the Makefile's POSTGRES_ONLY). A screenshot at phone size in
.build/screenshots/janrain-trailhead/."""

from conftest import PASSWORD, SHOTS

FOLDER = SHOTS / "janrain-trailhead"


def sign_in(server, email, password=PASSWORD):
    return server.post("/oauth/auth_native_traditional", {
        "client_id": "trailhead-site", "flow": "trailhead", "form": "signInForm", "response_type": "token",
        "signInEmailAddress": email, "currentPassword": password})[1]


def events_after(host, mark, name):
    host.settle()
    host.sync()
    return [event.result for event in host.queue_events[mark:] if event.name == name]


def test_a_signed_in_person_deletes_the_account_on_the_customers_page(host, janrain_site, server):
    email, _ = server.register()
    host.load(janrain_site.page("trailhead.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.wait_for_screen("signIn")
    mark, _ = host.mark()
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20)
    host.wait_for_screen("signedIn", timeout=20)
    host.click('#signedIn [data-capturescreen="deleteAccount"]')
    host.wait_for_screen("deleteAccount")
    FOLDER.mkdir(parents=True, exist_ok=True)
    host.run_js("(document.activeElement && document.activeElement.blur(), window.scrollTo(0, 0), true)")
    host.snapshot(FOLDER / "deleteAccount.png")

    # A wrong password: the flow's own field says so, and nothing is deleted.
    mark, _ = host.mark()
    assert host.fill_and_submit("deleteAccount", {"password_deactivateAccount": "wrong " + PASSWORD}) \
        == "deactivateAccountForm"
    failed = host.wait_for_event("onCaptureValidationFailed", after=mark, timeout=20).result
    assert failed["form"] == "deactivateAccountForm" and list(failed["invalidFields"]) == ["password_deactivateAccount"], \
        failed
    said = host.run_js("""(function(){
        var input = document.querySelector('#deleteAccount input[name="password_deactivateAccount"]');
        var box = document.getElementById(input.id + '_error');
        return [input.getAttribute('aria-invalid'), box && !box.hidden ? box.textContent.trim() : null]; })()""")
    assert said == ["true", failed["invalidFields"]["password_deactivateAccount"][0]], said
    assert events_after(host, mark, "onCaptureAccountDeactivateSuccess") == []
    assert host.visible_screen() == ["deleteAccount"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is True
    assert sign_in(server, email)["stat"] == "ok", "the account is there"
    host.snapshot(FOLDER / "deleteAccount-wrong-password.png")

    # The right one: deleted, the event says until when it can come back, the page's session ends.
    mark, _ = host.mark()
    host.fill_and_submit("deleteAccount", {"password_deactivateAccount": PASSWORD})
    deleted = host.wait_for_event("onCaptureAccountDeactivateSuccess", after=mark, timeout=20).result
    assert deleted["form"] == "deactivateAccountForm" and deleted["eraseAt"], deleted
    assert deleted["userData"]["email"] == email, deleted
    host.wait_for_screen("signIn", timeout=20)
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    refused = sign_in(server, email)
    assert refused["stat"] == "error" and refused["error"] == "account_deactivated" and refused["reactivate_until"], \
        refused
