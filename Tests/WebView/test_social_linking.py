"""Linked accounts on webViewProfile (issue 8): a signed-in user links a provider account from editProfile (the page
goes to the real provider and comes back), sees it listed, unlinks it; an account made by a provider keeps its only
way in; a provider account another user holds is not moved. Only an account whose address is proven links a provider
(docs/contract.md §15): the accounts here confirm theirs with the code registration mails first. Events on both transports, the
record through /entity."""

from conftest import CLIENT_ID
from test_account_lifecycle import register
from test_screenshots import LAYOUT_CHECK
from test_social_sign_in import SHOTS, answer_at_provider, back_on_page, entity, new_subject

LINK_BUTTON = '#editProfile [data-capture-provider="mock"][data-capture-link]'

LINKED_ITEMS = """(function(){var out=[];
    var items=document.querySelectorAll('#editProfile [data-capture-linked-list] .capture_linked_item');
    for(var i=0;i<items.length;i++){var b=items[i].querySelector('button');var r=b.getBoundingClientRect();
    out.push({text:items[i].querySelector('.capture_linked_text').textContent,label:b.getAttribute('aria-label'),
              identifier:b.getAttribute('data-capture-unlink'),height:r.height});}return out;})()"""


def notice(host):
    return host.run_js("(function(n){return n&&!n.hidden?{text:n.textContent,role:n.getAttribute('role')}:null;})"
                       "(document.getElementById('capture_notice'))")


def open_profile(server, host, access_token):
    host.load(server.page("webViewProfile"))
    host.wait_for_event("onCaptureRenderComplete")
    host.run_js("(janrain.capture.ui.createCaptureSession(%r), true)" % access_token)
    host.wait_for_screen("editProfile")


def register_verified(server, mailbox, **options):
    """Registers through the API and confirms the address with the code registration mailed (as the verifyEmail screen
    does, through /access/useVerificationCode); returns (email, registration reply)."""
    mark = mailbox.count()
    email, registered = register(server, mailbox, **options)
    message = mailbox.wait_for(email, after=mark, subject="confirm your email")
    status, reply, _ = server.post("/access/useVerificationCode", {
        "verification_code": message.code, "email": email, "client_id": CLIENT_ID, "locale": "en-US"})
    assert status == 200 and reply.get("stat") == "ok", reply
    assert entity(server, registered["access_token"])["emailVerified"], "the code proved the address"
    return email, registered


def link_with_provider(server, host, oidc_provider, subject):
    """Taps "Link Mock ID", answers at the provider, and waits for the page to be back; returns the queue mark."""
    queue_mark, message_mark = host.mark()
    host.click(LINK_BUTTON)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    return queue_mark, message_mark


def test_a_signed_in_user_links_a_provider_account_then_unlinks_it(server, host, oidc_provider, mailbox):
    email, registered = register_verified(server, mailbox, display_name="Lin Ked")
    token = registered["access_token"]
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": "%s@provider.example" % subject, "email_verified": True})
    open_profile(server, host, token)

    section = host.run_js("(function(s){return {hidden:s.hidden,title:s.querySelector('h2').textContent};})"
                          "(document.querySelector('#editProfile [data-capture-linked]'))")
    assert section == {"hidden": False, "title": "Linked accounts"}
    assert host.run_js(LINKED_ITEMS) == []
    button = host.run_js("(function(b){var r=b.getBoundingClientRect();return {name:b.textContent.trim(),"
                         "height:r.height,type:b.type};})(document.querySelector(%r))" % LINK_BUTTON)
    assert button == {"name": "Link Mock ID", "height": button["height"], "type": "button"} and button["height"] >= 44

    queue_mark, message_mark = link_with_provider(server, host, oidc_provider, subject)
    linked = host.wait_for_event("onCaptureLinkAccountSuccess", after=queue_mark).result
    assert host.wait_for_event("onCaptureLinkAccountSuccess", "message", after=message_mark).result == linked
    host.wait_for_screen("editProfile")
    assert linked["provider"] == "mock" and linked["statusMessage"] == "accountLinked"
    started = host.wait_for_event("onProviderLoginStart", after=queue_mark).result
    assert started["purpose"] == "link"
    names = host.names(host.queue_events[queue_mark:])
    assert "onCaptureLoginSuccess" not in names and "onCaptureLoginStart" not in names, "a link is no sign-in"
    assert "Mock ID is linked" in notice(host)["text"]
    items = host.run_js(LINKED_ITEMS)
    assert [item["identifier"] for item in items] == ["mock:" + subject]
    assert "Mock ID" in items[0]["text"] and "%s@provider.example" % subject in items[0]["text"]
    assert items[0]["label"].startswith("Unlink Mock ID") and items[0]["height"] >= 44
    assert host.run_js(LAYOUT_CHECK) == []
    # Still signed in as themselves, and the record lists the link (Janrain's `profiles`).
    record = entity(server, token)
    assert record["email"] == email and [p["identifier"] for p in record["profiles"]] == ["mock:" + subject]
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialPurpose')") is None
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "editProfile-linked.png")

    queue_mark, message_mark = host.mark()
    host.click("#editProfile [data-capture-unlink]")
    unlinked = host.wait_for_event("onCaptureUnlinkAccountSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureUnlinkAccountSuccess", "message", after=message_mark)
    assert unlinked["identifier"] == "mock:" + subject
    assert host.run_js(LINKED_ITEMS) == []
    assert "no longer linked" in notice(host)["text"]
    assert entity(server, token)["profiles"] == []


def test_an_account_made_by_a_provider_keeps_its_only_way_in_and_its_provider_account(server, host, make_host,
                                                                                        oidc_provider, mailbox):
    subject = new_subject()
    oidc_provider.set_user(subject, {"email": "%s@example.com" % subject, "email_verified": True})
    # Signed up through the provider on the profile page's own sign-in screen.
    host.load(server.page("webViewProfile"))
    host.wait_for_screen("signIn")
    host.click('#signIn [data-capture-provider="mock"]')
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_event("onCaptureLoginSuccess")
    host.wait_for_screen("editProfile")
    assert [item["identifier"] for item in host.run_js(LINKED_ITEMS)] == ["mock:" + subject]

    queue_mark, _ = host.mark()
    host.click("#editProfile [data-capture-unlink]")
    refused = host.wait_for_event("onCaptureUnlinkAccountError", after=queue_mark).result
    assert refused["code"] == 403
    shown = notice(host)
    assert "only way to sign in" in shown["text"] and shown["role"] == "alert"
    assert len(host.run_js(LINKED_ITEMS)) == 1

    # Someone else, signed in with a password (a proven address, so linking is open to them), cannot take that
    # provider account over.
    other = make_host()
    _, registered = register_verified(server, mailbox)
    open_profile(server, other, registered["access_token"])
    queue_mark, _ = link_with_provider(server, other, oidc_provider, subject)
    failed = other.wait_for_event("onCaptureLinkAccountError", after=queue_mark).result
    assert failed["code"] == 403 and failed["provider"] == "mock"
    other.wait_for_screen("editProfile")
    assert "already linked to another account" in notice(other)["text"]
    assert other.run_js(LINKED_ITEMS) == []
    assert entity(server, registered["access_token"])["profiles"] == []
