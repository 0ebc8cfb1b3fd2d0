"""The bridge (docs/contract.md §4) in a real web view: a registration hands the token to the host on every
transport, the token works and is stored only as a hash, and no event is lost or repeated."""

import hashlib
import pathlib

from conftest import CLIENT_ID, PASSWORD, new_email, stored_key

REGISTRATION_ORDER = [
    "onCaptureRegistrationStart", "onCaptureSessionCreated",
    "onCaptureRegistrationSuccess", "onCaptureLoginSuccess",
]


def register_in_page(host, email, password=PASSWORD):
    host.click('#signIn [data-capture-screen="traditionalRegistration"]')
    host.wait_for_screen("traditionalRegistration")
    host.fill_and_submit("traditionalRegistration", {
        "emailAddress": email, "displayName": "Web View", "firstName": "Web", "lastName": "View",
        "newPassword": password, "newPasswordConfirm": password,
    })


def test_registration_hands_the_token_to_the_host_on_every_transport(server, host, store):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    email = new_email()
    queue_mark, message_mark = host.mark()
    register_in_page(host, email)

    queued = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result
    posted = host.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result
    host.wait_for(lambda: host.token_urls, 10, "the janrain:accessToken= navigation")
    host.settle()

    token = queued["accessToken"]
    assert token and len(token) >= 22
    assert posted == queued, "the message handler gets the same result as the queue"
    assert host.token_urls == [token], "legacy token URL: once, with the same token"
    assert queued["status"] == "success"
    assert queued["oneTime"] is False and "authorizationCode" not in queued
    assert queued["keepMeLoggedIn"] is False
    assert queued["authProvider"] == "capture"
    assert queued["flow"] == "webViewSignIn" and queued["version"] and queued["screen"]
    assert queued["userData"]["email"] == email and queued["userData"]["uuid"]
    assert queued["userData"]["displayName"] == "Web View"

    # The registration's events, in order, each once, sharing one transaction id.
    after = [e for e in host.queue_events[queue_mark:] if e.name in REGISTRATION_ORDER]
    assert [e.name for e in after] == REGISTRATION_ORDER
    assert len({e.result["transactionId"] for e in after}) == 1
    assert host.names(host.queue_events) == host.names(host.message_events)
    assert all(s.startswith("janrain:eventsAvailable?") and s.split("?")[1].isdigit() for s in host.signals)
    assert not host.drain_errors
    assert host.visible_screen() == ["signedIn"]
    assert email in host.run_js("document.getElementById('signedIn').textContent")

    # The page keeps the session in Janrain's localStorage keys, and the token nowhere else.
    storage = host.run_js("(function(){var o={};for(var i=0;i<localStorage.length;i++){"
                          "var k=localStorage.key(i);o[k]=localStorage.getItem(k);}return o;})()")
    assert storage["janrainCaptureToken"] == token
    assert storage["janrainCaptureToken_Expires"].endswith("GMT")
    assert '"email":"%s"' % email in storage["janrainCaptureProfileData"]
    assert storage["janrainLastEmail"] == email
    assert [k for k, v in storage.items() if token in v] == ["janrainCaptureToken"]
    assert token not in host.run_js("document.documentElement.outerHTML + document.cookie")

    # The host (or its backend) uses the token on the Capture API.
    status, entity, _ = server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})
    assert status == 200 and entity["stat"] == "ok", entity
    assert entity["result"]["email"] == email

    # The database holds the token's SHA-256 (after its mint time), never the token.
    hashes = [row[0] for row in store.rows("SELECT hash FROM tokens", "SELECT hash FROM tokens")]
    assert stored_key(token) in hashes and stored_key(token).endswith(hashlib.sha256(token.encode()).hexdigest())
    assert token not in store.dump()
    if store.is_sqlite:
        for suffix in ("", "-wal"):
            path = pathlib.Path(store.location + suffix)
            if path.exists():
                assert token.encode() not in path.read_bytes(), "token bytes in %s" % path.name


def test_a_burst_in_one_tick_arrives_once_each_in_order(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    host.settle()
    queue_mark, message_mark = host.mark()
    page_seen = host.run_js("""(function(){
        var seen = [];
        for (var e in janrain.events) (function(name){
            janrain.events[name].addHandler(function(r){ seen.push(name + ':' + r.screen); });
        })(e);
        var ui = janrain.capture.ui;
        ui.renderScreen('traditionalRegistration'); ui.renderScreen('signIn');
        ui.renderScreen('returnTraditional'); ui.renderScreen('traditionalRegistration');
        ui.renderScreen('signIn');
        return seen;
    })()""")
    assert len(page_seen) >= 5, page_seen
    host.wait_for(lambda: len(host.queue_events) - queue_mark >= len(page_seen), 10, "the burst's events")
    host.settle()
    queued = ["%s:%s" % (e.name, e.result["screen"]) for e in host.queue_events[queue_mark:]]
    posted = ["%s:%s" % (e.name, e.result["screen"]) for e in host.message_events[message_mark:]]
    assert queued == page_seen, "queue transport: every event once, in order"
    assert posted == page_seen, "message handler: every event once, in order"
    ids = [e.result["transactionId"] for e in host.queue_events[queue_mark:]]
    assert len(set(ids)) == len(ids)
    assert host.run_js("createJanrainBridge.eventQueue.length") == 0


def test_creating_the_bridge_twice_does_not_double_events(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    host.settle()
    queue_mark, message_mark = host.mark()
    host.run_js("(createJanrainBridge(), createJanrainBridge(), janrain.capture.ui.renderScreen('signIn'))")
    host.wait_for_event("onCaptureScreenShow", after=queue_mark)
    host.settle()
    assert host.names(host.queue_events[queue_mark:]) == ["onCaptureScreenShow"]
    assert host.names(host.message_events[message_mark:]) == ["onCaptureScreenShow"]


def test_unserialisable_arguments_are_queued_as_error_entries(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    host.settle()
    queue_mark, _ = host.mark()
    # A page handler may fire an event with anything; a cyclic object cannot be JSON-encoded.
    host.run_js("(function(){var r={status:'success'};r.self=r;"
                "janrain.events.onCaptureEmailSent.handlers.forEach(function(h){h(r);});return 1;})()")
    host.settle()
    entries = [e for e in host.queue_events[queue_mark:] if e.name == "onCaptureEmailSent"]
    assert len(entries) == 1 and entries[0].error and not entries[0].arguments


def test_without_the_user_agent_flag_only_message_handlers_are_used(server, make_host):
    plain = make_host(bridge_user_agent=False)
    plain.load(server.page("webViewSignIn"))
    plain.wait_for_event("onCaptureRenderComplete", "message")
    email, _ = server.register()
    _, message_mark = plain.mark()
    plain.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    success = plain.wait_for_event("onCaptureLoginSuccess", "message", after=message_mark).result
    assert success["accessToken"]
    plain.settle()
    assert plain.intercepted == [], "no janrain: navigation without janrainNativeAppBridgeEnabled"
    assert plain.queue_events == [] and plain.token_urls == []
    assert plain.run_js("createJanrainBridge.eventQueue.length") == 0


def test_legacy_token_url_fires_once_per_page_load(server, host):
    email, _ = server.register()
    host.load(server.page("webViewDemo"))
    host.wait_for_event("onCaptureRenderComplete")
    for attempt in range(2):
        queue_mark, _ = host.mark()
        host.run_js("janrain.capture.ui.renderScreen('signIn')")
        host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
        host.wait_for_event("onCaptureLoginSuccess", after=queue_mark)
    host.settle()
    successes = [e for e in host.queue_events if e.name == "onCaptureLoginSuccess"]
    assert len(successes) == 2
    assert host.token_urls == [successes[0].result["accessToken"]]
