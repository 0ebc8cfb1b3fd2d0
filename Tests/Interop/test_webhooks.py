"""Webhooks for real (issue 55): listeners started here on loopback verify every delivery with the `standardwebhooks`
library from PyPI (Tests/PythonSupport/webhook_listener.py), never with this service's code. Changes made through
the pages' Capture API calls, the SDK's /entity.update, Janrain's server API and capturectl each arrive once and in
order per user; a failing listener gets everything once it works; a 410 disables its subscription; a rotation signs
with both secrets; failed events are redelivered by id and by time range; an instance killed mid-delivery loses
nothing; two instances on one database never deliver an event twice at once; a listener that hangs does not slow
registrations. Runs on SQLite and (CAPTURE_TEST_BACKEND=postgres) PostgreSQL."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time
import uuid as uuidlib

import httpx
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from capture_instance import CaptureInstance  # noqa: E402
from capture_process import die_with_parent, free_port, stop, wait_until_ready  # noqa: E402
from janrain_capture_client import CaptureClient  # noqa: E402
from webhook_listener import Listener  # noqa: E402

from conftest import HTTP_TIMEOUT, PASSWORD, PUBLIC_CLIENT_ID, ROOT, _binary, _test_settings  # noqa: E402

ENTITY_EVENTS = ["entityCreated", "entityUpdated", "entityDeleted"]


def compressed_retries(service, _settings_dir):
    """Standard Webhooks' schedule squeezed into seconds, plain http to loopback, short timeouts, a quick poll."""
    service["webhooks"] = {"retrySchedule": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5], "allowPlainHTTP": True,
                           "connectTimeoutSeconds": 1, "totalTimeoutSeconds": 2, "pollSeconds": 0.2}


def new_instance(name):
    server_bin = _binary("CAPTURE_SERVER_BIN", ".build/debug/capture-server")
    capturectl = _binary("CAPTURECTL_BIN", str(server_bin.parent / "capturectl"))
    return CaptureInstance(server_bin, capturectl, ROOT, _test_settings, name, configure=compressed_retries)


@pytest.fixture(scope="module")
def listener():
    running = Listener()
    yield running
    running.close()


@pytest.fixture(scope="module")
def instance():
    made = new_instance("webhooks")
    try:
        made.add_client("hooks-direct", ["direct_access"])
        made.start()
        yield made
    finally:
        made.close()


def ctl(instance, *args):
    done = instance.capturectl(*args, "--json", timeout=120)
    assert done.returncode == 0, "capturectl %s: %s %s" % (" ".join(args), done.stdout, done.stderr)
    return json.loads(done.stdout) if done.stdout.strip() else None


def subscribe(instance, listener, path, events, *extra):
    added = ctl(instance, "webhook", "add", "--title", "%s %s" % (path, uuidlib.uuid4().hex[:6]), "--endpoint",
                listener.url(path), *[arg for event in events for arg in ("--event", event)], *extra)
    assert added["secret"].startswith("whsec_") or added["secret"].startswith("whsk_"), added
    listener.set(path, secrets=[added.get("public_key") or added["secret"]])
    return added


def register(instance, email=None):
    email = email or "hook-%s@example.com" % uuidlib.uuid4().hex[:12]
    reply = instance.post("/oauth/register_native_traditional", {
        "client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": email, "displayName": "Hooked", "newPassword": PASSWORD,
        "newPasswordConfirm": PASSWORD}).json()
    assert reply["stat"] == "ok", reply
    return reply["capture_user"]["uuid"], reply["access_token"]


def types_for(listener, path, user):
    return [d.type for d in listener.received(path) if d.user == user]


def test_changes_from_every_path_arrive_once_in_order_and_verified(instance, listener):
    hook = subscribe(instance, listener, "/all", ENTITY_EVENTS + ["accountDeactivated"])
    try:
        user, token = register(instance)  # the pages' Capture API call
        sdk = httpx.post(instance.base + "/entity.update", data={
            "access_token": token, "attributes": json.dumps({"givenName": "Sdk"})}, timeout=HTTP_TIMEOUT).json()
        assert sdk["stat"] == "ok", sdk
        server_api = CaptureClient(instance.base, "hooks-direct", instance.secrets["hooks-direct"], timeout=HTTP_TIMEOUT)
        updated = server_api.call("entity.update", type_name="user", uuid=user, attributes={"familyName": "Server"})
        assert updated.ok, updated
        ctl(instance, "user", "disable", user)
        ctl(instance, "user", "delete", user)
        wanted = ["entityCreated", "entityUpdated", "entityUpdated", "accountDeactivated", "entityDeleted"]
        listener.wait_for(lambda: len(types_for(listener, "/all", user)) >= len(wanted), what="5 events of one user")
        time.sleep(1)  # nothing more comes
        deliveries = [d for d in listener.received("/all") if d.user == user]
        assert [d.type for d in deliveries] == wanted
        assert all(d.verified_with for d in deliveries), "every delivery verifies with standardwebhooks"
        assert len({d.id for d in deliveries}) == len(deliveries), "each event once"
        assert deliveries[1].payload["data"]["attributes"] == ["givenName"]
        assert deliveries[2].payload["data"]["attributes"] == ["familyName"]
        assert deliveries[2].payload["data"]["client_id"] == "hooks-direct"
        assert deliveries[0].payload["data"]["client_id"] == PUBLIC_CLIENT_ID
        for delivery in deliveries:
            assert PASSWORD not in delivery.body and "$2" not in delivery.body and token not in delivery.body
        # The erasure took the user's events delivered by then out of the history; its own stays.
        left = [e["type"] for e in ctl(instance, "webhook", "events", hook["id"]) if e["user"] == user]
        assert "entityDeleted" in left, left
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def test_a_failing_listener_gets_every_event_once_it_works_again(instance, listener):
    listener.set("/flaky", mode="fail")
    hook = subscribe(instance, listener, "/flaky", ["entityCreated"])
    try:
        users = [register(instance)[0] for _ in range(3)]
        time.sleep(1.2)  # a few failed attempts each
        listener.set("/flaky", mode="ok")
        listener.wait_for(lambda: {d.user for d in listener.received("/flaky")} >= set(users), what="3 registrations")
        assert sorted(d.user for d in listener.received("/flaky")) == sorted(users)
        events = ctl(instance, "webhook", "events", hook["id"])
        assert all(e["status"] == "delivered" and e["attempts"] >= 2 for e in events), events
        # The history names each attempt: the listener's 500s, then its 204.
        history = ctl(instance, "webhook", "event", events[0]["id"])["items"][0]["history"]
        assert [a["status"] for a in history][-1] == 204 and 500 in [a["status"] for a in history], history
        assert all(a["milliseconds"] >= 0 for a in history) and history[0]["error"] == "HTTP 500"
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def test_a_410_disables_the_subscription(instance, listener):
    listener.set("/gone", mode="gone")
    hook = subscribe(instance, listener, "/gone", ["entityCreated"])
    try:
        register(instance)
        deadline = time.monotonic() + 30
        while ctl(instance, "webhook", "show", hook["id"])["enabled"] and time.monotonic() < deadline:
            time.sleep(0.2)
        shown = ctl(instance, "webhook", "show", hook["id"])
        assert shown["enabled"] is False and "410" in shown["disabled_reason"]
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def test_a_rotated_secret_and_the_old_one_both_verify(instance, listener):
    hook = subscribe(instance, listener, "/rotated", ["entityCreated"])
    try:
        old = hook["secret"]
        rotated = ctl(instance, "webhook", "rotate-secret", hook["id"], "--keep-old-hours", "1")
        assert rotated["secret"] != old
        listener.set("/rotated", secrets=[old, rotated["secret"]])
        user, _ = register(instance)
        listener.wait_for(lambda: types_for(listener, "/rotated", user) == ["entityCreated"])
        delivery = listener.received("/rotated")[0]
        assert sorted(delivery.verified_with) == sorted([old, rotated["secret"]])
        assert len(delivery.signature.split(" ")) == 2
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def test_failed_events_are_redelivered_by_id_and_by_time_range(instance, listener):
    listener.set("/later", mode="fail")
    hook = subscribe(instance, listener, "/later", ["entityCreated"])
    try:
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
        first, _ = register(instance)
        second, _ = register(instance)

        def failed():
            return ctl(instance, "webhook", "events", hook["id"], "--status", "failed")
        deadline = time.monotonic() + 60
        while len(failed()) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        gone = failed()
        assert len(gone) == 2 and all(e["attempts"] == 7 for e in gone), gone  # 1 + the 6 retries of the schedule
        listener.set("/later", mode="ok")
        by_id = next(e for e in gone if e["user"] == first)
        assert ctl(instance, "webhook", "redeliver", "--event", by_id["id"])["redelivered"] == 1
        listener.wait_for(lambda: types_for(listener, "/later", first) == ["entityCreated"])
        assert types_for(listener, "/later", second) == []
        assert ctl(instance, "webhook", "redeliver", "--subscription", hook["id"], "--since", since)["redelivered"] == 1
        listener.wait_for(lambda: types_for(listener, "/later", second) == ["entityCreated"])
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def test_v1a_deliveries_verify_with_the_public_key_and_a_test_send_arrives(instance, listener):
    hook = subscribe(instance, listener, "/ed25519", ["entityCreated"], "--signing", "v1a")
    try:
        assert hook["public_key"].startswith("whpk_") and hook["secret"].startswith("whsk_")
        ctl(instance, "webhook", "test", hook["id"])
        listener.wait_for(lambda: [d.type for d in listener.received("/ed25519")] == ["ping"])
        user, _ = register(instance)
        listener.wait_for(lambda: types_for(listener, "/ed25519", user) == ["entityCreated"])
        assert all(d.verified_with for d in listener.received("/ed25519"))
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def registration_rate(instance, count):
    start = time.monotonic()
    for _ in range(count):
        register(instance)
    return count / (time.monotonic() - start)


def test_a_hanging_listener_does_not_slow_registrations(instance, listener):
    registration_rate(instance, 3)  # warm
    # The better of two runs each: the machine is shared, and one run can meet another process's burst.
    without = max(registration_rate(instance, 10) for _ in range(2))
    listener.hung.clear()
    listener.set("/hang", mode="hang")
    hook = subscribe(instance, listener, "/hang", ["entityCreated"])
    try:
        with_hanging = max(registration_rate(instance, 10) for _ in range(3))
        assert listener.hung.is_set(), "the hanging listener was being delivered to"
        print("\nregistrations per second: no listener %.2f, a listener that never answers %.2f" % (
            without, with_hanging))
        # On the request's path each registration would wait out the 2 s delivery timeout: at most 0.5 a second.
        # Off it, the rate is the machine's (bcrypt dominates): quiet, the two match (7.16 and 7.60 a second); beside
        # make test's other lane a burst can cut one phase's rate several times, so what is asserted is the on-path
        # ceiling with a margin, not the quiet ratio.
        assert with_hanging > 0.75, (without, with_hanging)
    finally:
        ctl(instance, "webhook", "remove", hook["id"])


def second_process(instance, port):
    log = open(instance.work / ("server-%d.log" % port), "ab")
    process = subprocess.Popen(
        [str(instance.server_bin), "--host", "127.0.0.1", "--port", str(port), "--db", instance.store.location,
         "--settings", str(instance.settings)], cwd=str(ROOT), env=instance.env, stdout=log, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
    wait_until_ready(process, "http://127.0.0.1:%d" % port, instance.log)
    return process


def test_an_instance_killed_mid_delivery_loses_nothing(listener):
    made = new_instance("webhooks-kill")
    try:
        made.start()
        listener.hung.clear()
        listener.set("/killed", mode="hang")
        hook = subscribe(made, listener, "/killed", ["entityCreated"])
        user, _ = register(made)
        assert listener.hung.wait(30), "the delivery started"
        os.kill(made.process.pid, signal.SIGKILL)
        made.process.wait()
        made.process = None
        listener.set("/killed", mode="ok")
        made.start()
        # Delivered once the dead instance's claim has lapsed (twice the total timeout and 5 s).
        listener.wait_for(lambda: types_for(listener, "/killed", user) == ["entityCreated"], timeout=60)
        events = ctl(made, "webhook", "events", hook["id"])
        assert [e["status"] for e in events] == ["delivered"]
        # The killed instance's attempt is the one repeated: it was in flight (the listener still holds it).
        assert [o for o in listener.overlaps if o[0] == "/killed"] in ([], [("/killed", events[0]["id"])])
    finally:
        made.close()


def test_two_instances_on_one_database_never_deliver_an_event_twice_at_once(listener):
    made = new_instance("webhooks-pair")
    other = None
    try:
        made.start()
        other = second_process(made, free_port())
        hook = subscribe(made, listener, "/pair", ["entityCreated", "entityUpdated"])
        users = []
        for _ in range(8):
            user, token = register(made)
            users.append(user)
            reply = httpx.post(made.base + "/entity.update", data={
                "access_token": token, "attributes": json.dumps({"givenName": "Pair"})}, timeout=HTTP_TIMEOUT).json()
            assert reply["stat"] == "ok", reply
        listener.wait_for(lambda: len(listener.received("/pair")) >= 16, what="16 events")
        time.sleep(1)
        deliveries = listener.received("/pair")
        assert len(deliveries) == 16 and len({d.id for d in deliveries}) == 16, "each event once"
        assert not [o for o in listener.overlaps if o[0] == "/pair"], "no event delivered twice at once"
        for user in users:
            assert types_for(listener, "/pair", user) == ["entityCreated", "entityUpdated"]
        _ = hook
    finally:
        if other is not None:
            stop(other)
        made.close()


def test_capturectl_over_the_admin_api_and_the_gauges(instance, listener):
    key = ctl(instance, "admin-key", "add", "webhooks-remote")["key"]
    env = dict(instance.env, CAPTURE_ADMIN_KEY=key)

    def remote(*args):
        done = subprocess.run([str(instance.capturectl_bin), *args, "--server", instance.base, "--json"],
                              cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, "capturectl --server %s: %s %s" % (" ".join(args), done.stdout, done.stderr)
        return json.loads(done.stdout)

    added = remote("webhook", "add", "--title", "Remote %s" % uuidlib.uuid4().hex[:6], "--endpoint",
                   listener.url("/remote"), "--event", "entityCreated")
    listener.set("/remote", secrets=[added["secret"]])
    try:
        assert any(hook["id"] == added["id"] for hook in remote("webhook", "list"))
        shown = remote("webhook", "show", added["id"])
        assert "secret" not in shown and shown["title"] == added["title"]
        user, _ = register(instance)
        listener.wait_for(lambda: types_for(listener, "/remote", user) == ["entityCreated"])
        assert remote("webhook", "events", added["id"])[0]["status"] == "delivered"
        bad = subprocess.run([str(instance.capturectl_bin), "webhook", "add", "--title", "x" * 300, "--endpoint",
                              "http://10.0.0.1/in", "--event", "entityCreated", "--server", instance.base],
                             cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and "title" in bad.stderr, bad  # refused as a bad argument
        metrics = httpx.get(instance.base + "/metrics", headers={"Authorization": "Bearer " + key},
                            timeout=HTTP_TIMEOUT).text
        assert "capture_webhook_events_pending" in metrics and "capture_webhook_oldest_pending_seconds" in metrics
        assert 'capture_webhook_attempts_total{outcome="delivered"}' in metrics
    finally:
        remote("webhook", "remove", added["id"])
