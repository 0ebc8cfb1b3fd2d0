"""The merge for an account without a password (issue 8): a social sign-in whose address belongs to an account made
by a provider is answered 380 with `existing_provider` naming that provider, so mergeAccounts offers "Continue with
<provider>" instead of a password nobody has; the person signs in there as the account's own provider account and
the page sends the first sign-in's one-time token along as merge_token. In the real web view against the real
provider (one configured provider, "mock": two different accounts at it), redirect mode and the hand-off."""

from test_screenshots import LAYOUT_CHECK
from test_social_handoff import APP_RETURN, SystemBrowser, complete, tap_for_handoff
from test_social_linking import notice
from test_social_sign_in import (SHOTS, answer_at_provider, back_on_page, entity, new_subject, social_events,
                                 tap_provider)

MERGE_BUTTON = "#mergeAccounts [data-capture-merge-with]"

MERGE_SCREEN = """(function(s){function shown(e){return !!e && !e.hidden && e.getBoundingClientRect().height > 0;}
    var b=s.querySelector('[data-capture-merge-with]');var r=b.getBoundingClientRect();
    return {text:s.innerText,button:b.textContent.trim(),buttonShown:shown(b),height:r.height,width:r.width,
            provider:b.getAttribute('data-capture-merge-with'),
            strong:[].map.call(s.querySelectorAll('[data-capture-merge-lead] strong'),function(e){return e.textContent;}),
            password:shown(s.querySelector('[data-capture-merge="password"][data-capture-screen]'))};
})(document.getElementById('mergeAccounts'))"""


def provider_user(oidc_provider, email=None):
    """A new subject at the provider with `email` (its own address when None); returns (subject, email)."""
    subject = new_subject()
    email = email or "%s@example.com" % subject
    oidc_provider.set_user(subject, {"email": email, "email_verified": True, "name": "Person %s" % subject[-4:]})
    return subject, email


def sign_up_with_the_provider(server, host, oidc_provider, subject):
    """A first sign-in with the provider (thin registration: an account without a password), then signed out."""
    loaded, _ = host.mark()
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete", after=loaded)
    queue_mark, _ = host.mark()
    tap_provider(host, host.visible_screen()[0])
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    made = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert made["statusMessage"] == "registered", made
    record = entity(server, made["accessToken"])
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    return record


def sign_in_until_merge(server, host, oidc_provider, subject):
    """From the sign-in screen, signs in with the provider as `subject` and waits for mergeAccounts."""
    screen = host.visible_screen()[0]
    tap_provider(host, screen)
    answer_at_provider(host, oidc_provider, subject)
    back_on_page(host, server)
    host.wait_for_screen("mergeAccounts")


def test_an_account_made_by_the_provider_is_merged_by_signing_in_with_it(server, host, oidc_provider):
    first, email = provider_user(oidc_provider)
    record = sign_up_with_the_provider(server, host, oidc_provider, first)
    assert [p["identifier"] for p in record["profiles"]] == ["mock:" + first]
    second, _ = provider_user(oidc_provider, email)

    sign_in_until_merge(server, host, oidc_provider, second)
    shown = host.run_js(MERGE_SCREEN)
    # Plain words: the account exists, sign in to it with Mock ID; no password is asked for.
    assert email in shown["text"] and "Sign in to it with Mock ID" in shown["text"], shown["text"]
    assert "password" not in shown["text"].lower(), shown["text"]
    assert shown["strong"] == [email, "Mock ID", "Mock ID"]
    assert shown["button"] == "Continue with Mock ID" and shown["buttonShown"] and shown["provider"] == "mock"
    assert shown["password"] is False, "the password merge's Continue is hidden"
    assert shown["height"] >= 44 and shown["width"] >= 375 * 0.8
    assert host.run_js(LAYOUT_CHECK) == []
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "mergeAccounts-provider.png")

    queue_mark, message_mark = host.mark()
    host.click(MERGE_BUTTON)
    answer_at_provider(host, oidc_provider, first)
    back_on_page(host, server)
    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    posted = host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result
    host.wait_for_screen("signedIn")
    assert posted == queued
    assert queued["authProvider"] == "mock" and queued["statusMessage"] == "loggedIn"
    assert queued["userData"]["uuid"] == record["uuid"], "signed in to the account the address belongs to"
    queue_names, message_names = social_events(host, queue_mark, message_mark)
    assert queue_names == message_names
    assert queue_names.index("onProviderLoginStart") < queue_names.index("onProviderLoginSuccess") \
        < queue_names.index("onCaptureLoginStart") < queue_names.index("onCaptureLoginSuccess"), queue_names
    assert "onCaptureLoginFailed" not in queue_names and "onCaptureRegistrationSuccess" not in queue_names
    started = next(e for e in host.queue_events[queue_mark:] if e.name == "onProviderLoginStart").result
    assert started["purpose"] == "merge" and started["provider"] == "mock"
    # The first sign-in's token crossed the reload in sessionStorage, and is gone from it and from the address.
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialMerge')") is None
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialPurpose')") is None
    assert host.run_js("location.hash") == ""
    merged = entity(server, queued["accessToken"])
    assert merged["uuid"] == record["uuid"] and merged["email"] == email
    assert sorted(p["identifier"] for p in merged["profiles"]) == sorted(["mock:" + first, "mock:" + second])

    # Linked: the second provider account now signs in alone, to the same account.
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    queue_mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, second)
    back_on_page(host, server)
    again = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert again["userData"]["uuid"] == record["uuid"] and again["authProvider"] == "mock"


def test_the_wrong_account_at_the_provider_links_nothing(server, host, oidc_provider):
    first, email = provider_user(oidc_provider)
    record = sign_up_with_the_provider(server, host, oidc_provider, first)
    # Someone else's account, also made by the provider.
    other, other_email = provider_user(oidc_provider)
    other_record = sign_up_with_the_provider(server, host, oidc_provider, other)
    second, _ = provider_user(oidc_provider, email)

    # Cancelled at the provider: back on mergeAccounts, gently; the first sign-in still waits.
    sign_in_until_merge(server, host, oidc_provider, second)
    queue_mark, _ = host.mark()
    host.click(MERGE_BUTTON)
    answer_at_provider(host, oidc_provider, deny=True)
    back_on_page(host, server)
    error = host.wait_for_event("onProviderLoginError", after=queue_mark).result
    assert error["statusMessage"] == "cancelled" and error["purpose"] == "merge"
    host.wait_for_screen("mergeAccounts")
    shown = notice(host)
    assert shown["role"] == "status" and "cancelled" in shown["text"] and "nothing was linked" in shown["text"]
    assert host.run_js(MERGE_SCREEN)["button"] == "Continue with Mock ID"
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialMerge')") is None
    assert host.run_js(LAYOUT_CHECK) == []
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "mergeAccounts-provider-cancelled.png")

    # Then the other person's provider account: the service refuses the merge token, nothing is linked.
    queue_mark, message_mark = host.mark()
    host.click(MERGE_BUTTON)
    answer_at_provider(host, oidc_provider, other)
    back_on_page(host, server)
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert host.wait_for_event("onCaptureLoginFailed", "message", after=message_mark).result == failed
    assert failed["code"] == 200 and failed["authProvider"] == "mock" and "merge_token" in failed["errorDescription"]
    host.settle()
    assert host.visible_screen()[0] in ("signIn", "returnTraditional")
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    shown = notice(host)
    assert shown["role"] == "alert" and "Nothing was linked" in shown["text"] and email in shown["text"], shown
    names, _ = social_events(host, queue_mark, message_mark)
    assert "onCaptureLoginSuccess" not in names and "onCaptureSessionCreated" not in names
    host.snapshot(SHOTS / "mergeAccounts-provider-refused.png")

    # A provider account with no account here: the merge is refused (200 on merge_token) and no account is made.
    newcomer, _ = provider_user(oidc_provider)
    sign_in_until_merge(server, host, oidc_provider, second)
    queue_mark, _ = host.mark()
    host.click(MERGE_BUTTON)
    answer_at_provider(host, oidc_provider, newcomer)
    back_on_page(host, server)
    failed = host.wait_for_event("onCaptureLoginFailed", after=queue_mark).result
    assert failed["code"] == 200 and "merge_token" in failed["errorDescription"]
    host.settle()
    assert "Nothing was linked" in notice(host)["text"]
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
    names = host.names(host.queue_events[queue_mark:])
    assert "onCaptureRegistrationSuccess" not in names and "onCaptureLoginSuccess" not in names

    # "Cancel" on mergeAccounts still drops the waiting sign-in.
    sign_in_until_merge(server, host, oidc_provider, second)
    host.click('#mergeAccounts [data-capture-action="cancelSocial"]')
    host.wait_for(lambda: host.visible_screen()[0] in ("signIn", "returnTraditional"), 10, "the sign-in screen")

    # Nothing was linked by any of it: the right account finishes the merge, and only its two are listed.
    sign_in_until_merge(server, host, oidc_provider, second)
    queue_mark, _ = host.mark()
    host.click(MERGE_BUTTON)
    answer_at_provider(host, oidc_provider, first)
    back_on_page(host, server)
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    merged = entity(server, success["accessToken"])
    assert merged["uuid"] == record["uuid"]
    assert sorted(p["identifier"] for p in merged["profiles"]) == sorted(["mock:" + first, "mock:" + second])
    # The other person's account is untouched, and the newcomer's first own sign-in makes its account only now.
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    queue_mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, other)
    back_on_page(host, server)
    theirs = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    assert theirs["userData"]["uuid"] == other_record["uuid"] and theirs["userData"]["email"] == other_email
    assert [p["identifier"] for p in entity(server, theirs["accessToken"])["profiles"]] == ["mock:" + other]
    host.run_js("janrain.capture.ui.endCaptureSession()")
    host.wait_for_screen("returnTraditional")
    queue_mark, _ = host.mark()
    tap_provider(host, "returnTraditional")
    answer_at_provider(host, oidc_provider, newcomer)
    back_on_page(host, server)
    assert host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result["statusMessage"] == "registered"


def test_the_merge_through_the_provider_in_the_system_browser(server, host, make_host, oidc_provider):
    first, email = provider_user(oidc_provider)
    record = sign_up_with_the_provider(server, host, oidc_provider, first)
    second, _ = provider_user(oidc_provider, email)
    host.load(server.page("webViewSignIn", app_return_uri=APP_RETURN))
    host.wait_for_screen("returnTraditional")
    host.run_js("janrain.capture.ui.renderScreen('signIn')")
    host.wait_for_screen("signIn")
    handed = tap_for_handoff(host)
    complete(host, SystemBrowser(make_host).sign_in(handed["url"], oidc_provider, second))
    host.wait_for_screen("mergeAccounts")
    assert host.run_js(MERGE_SCREEN)["button"] == "Continue with Mock ID"

    # The browser sheet closed before the provider answered: back on mergeAccounts, the first sign-in kept.
    queue_mark, _ = host.mark()
    host.click(MERGE_BUTTON)
    handed = host.wait_for_event("onProviderLoginHandoff", after=queue_mark).result
    assert handed["purpose"] == "merge" and handed["provider"] == "mock"
    assert host.run_js("sessionStorage.getItem('captureBridgeSocialMerge')") is None, "kept in memory only"
    assert host.command("janrain.capture.ui.completeProviderLogin(null)") == ("boolean", True)
    assert host.wait_for_event("onProviderLoginError", after=queue_mark).result["purpose"] == "merge"
    host.wait_for_screen("mergeAccounts")
    assert "cancelled" in notice(host)["text"]

    queue_mark, message_mark = host.mark()
    host.click(MERGE_BUTTON)
    handed = host.wait_for_event("onProviderLoginHandoff", after=queue_mark).result
    complete(host, SystemBrowser(make_host).sign_in(handed["url"], oidc_provider, first))
    success = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark)
    host.wait_for_screen("signedIn")
    assert success["authProvider"] == "mock" and success["userData"]["uuid"] == record["uuid"]
    merged = entity(server, success["accessToken"])
    assert sorted(p["identifier"] for p in merged["profiles"]) == sorted(["mock:" + first, "mock:" + second])
