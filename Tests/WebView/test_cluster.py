"""Two capture-server instances on one PostgreSQL database behind Debian's nginx as a round-robin balancer, as
docs/operations.md describes a scaled-out deployment: the web view's whole loop runs through the balancer with its
requests spread over both instances, a revocation through one instance is refused by the other at once, and a
kill -9 of one instance during a burst of registrations loses no registration that was acknowledged. The tests run
in file order on one cluster; the last one kills an instance."""

import http.client
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from unittest import mock

import pytest

from capture_process import die_with_parent, free_port, stop, wait_until_ready
from capture_store import Store
from conftest import CLIENT_ID, PASSWORD, ROOT, Server, _test_settings, new_email, server_binary
from test_bridge import register_in_page

NGINX = "/usr/sbin/nginx"
SIGN_IN_FAILURES_PER_ADDRESS = 10  # the least the settings allow (signInMaxFailures)
# The response header nginx adds: the upstream (or upstreams, when it passed a request on) that answered.
UPSTREAM_HEADER = "X-Capture-Upstream"


class Instance:
    """One capture-server process of the cluster, reached directly (not through the balancer)."""

    def __init__(self, name, process, server):
        self.name = name
        self.process = process
        self.server = server
        self.address = server.base[len("http://"):]  # host:port, as nginx's $upstream_addr names it


class Cluster:
    def __init__(self, store, instances, balancer, access_log):
        self.store = store
        self.instances = instances
        self.balancer = balancer  # a conftest Server whose base is nginx
        self.access_log = access_log

    def log_mark(self):
        """A position in nginx's access log, to read only what was served after it."""
        return self.access_log.stat().st_size

    def served(self, mark=0):
        """The requests nginx logged after `mark`: dicts of method, uri, status, upstream, upstream_status."""
        with open(self.access_log, "rb") as log:
            log.seek(mark)
            return [json.loads(line) for line in log.read().decode().splitlines() if line.strip()]


NGINX_CONF = """\
# The cluster's balancer (Tests/WebView/test_cluster.py); everything it writes stays in its work directory.
{user}
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log info;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {work}/nginx-temp/body;
    proxy_temp_path {work}/nginx-temp/proxy;
    fastcgi_temp_path {work}/nginx-temp/fastcgi;
    uwsgi_temp_path {work}/nginx-temp/uwsgi;
    scgi_temp_path {work}/nginx-temp/scgi;
    log_format cluster escape=json '{{"method":"$request_method","uri":"$request_uri","status":"$status",'
                                   '"upstream":"$upstream_addr","upstream_status":"$upstream_status"}}';
    access_log {work}/nginx-access.log cluster;
    # Round robin (nginx's default) over both instances. proxy_next_upstream stays at its default (error timeout),
    # so a POST that reached an instance is never sent to the other one.
    upstream capture {{
        server {first};
        server {second};
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://capture;
            proxy_set_header Host $http_host;
            # The client's own X-Forwarded-For (a CDN's, say) plus the address nginx saw: the instances trust only
            # nginx, and count each attempt against the nearest address nginx does not stand for.
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            add_header {header} $upstream_addr always;
        }}
    }}
}}
"""


@pytest.fixture(scope="module")
def cluster(mailbox):
    binary = server_binary()
    assert os.access(NGINX, os.X_OK), "nginx is not installed at %s (scripts/install-deps.sh installs it)" % NGINX
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-cluster-"))
    # The cluster needs PostgreSQL whatever CAPTURE_TEST_BACKEND says (SQLite is one process's file).
    with mock.patch.dict(os.environ, {"CAPTURE_TEST_BACKEND": "postgres"}):
        store = Store(work)

    # The suite's settings, with the balancer (on loopback) as a trusted proxy: the instances take the client's
    # address from its X-Forwarded-For, as per-address limits behind a balancer must (README, "Behind a reverse proxy").
    suite_settings = _test_settings(work, mailbox.port)
    service = json.loads((suite_settings / "service.json").read_text())
    service["trustedProxies"] = ["127.0.0.1"]
    # Low enough for a test to reach: failed sign-ins from one client address, over all accounts, across instances.
    service["signInMaxFailuresPerAddress"] = SIGN_IN_FAILURES_PER_ADDRESS
    settings = work / "ClusterSettings"
    shutil.copytree(suite_settings, settings)
    (settings / "service.json").write_text(json.dumps(service))

    balancer_port = free_port()
    public_origin = "http://127.0.0.1:%d" % balancer_port  # what pages and clients see: the balancer
    env = dict(os.environ)
    env.setdefault("CAPTURE_BCRYPT_COST", "10")
    instances, nginx = [], None
    try:
        for name in ("a", "b"):
            port = free_port()
            log_path = work / ("server-%s.log" % name)
            with open(log_path, "wb") as log:
                process = subprocess.Popen(
                    [str(binary), "--host", "127.0.0.1", "--port", str(port), "--db", store.location,
                     "--settings", str(settings), "--public-origin", public_origin],
                    cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    preexec_fn=die_with_parent)
            instances.append(Instance(name, process, Server("http://127.0.0.1:%d" % port, store, str(log_path))))
        for instance in instances:
            wait_until_ready(instance.process, instance.server.base, instance.server.log)

        for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (work / "nginx-temp" / temp).mkdir(parents=True)
        conf = work / "nginx.conf"
        conf.write_text(NGINX_CONF.format(
            # As root the workers would otherwise run as nobody, who cannot enter the (0700) work directory.
            user="user root;" if os.geteuid() == 0 else "", work=work, port=balancer_port,
            first=instances[0].address, second=instances[1].address, header=UPSTREAM_HEADER))
        command = [NGINX, "-p", str(work), "-c", str(conf), "-e", str(work / "nginx-error.log")]
        checked = subprocess.run(command + ["-t"], capture_output=True, text=True)
        assert checked.returncode == 0, "nginx refuses the cluster's configuration:\n%s" % checked.stderr
        access_log = work / "nginx-access.log"
        nginx = subprocess.Popen(command + ["-g", "daemon off;"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
        balancer = Server(public_origin, store, str(work / "nginx-error.log"))
        wait_until_ready(nginx, balancer.base, lambda: "(nginx, not capture-server) " + balancer.log())
        yield Cluster(store, instances, balancer, access_log)
    finally:
        if nginx is not None and nginx.poll() is None:
            nginx.terminate()  # SIGTERM: nginx's fast shutdown, the worker goes with the master
            try:
                nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait(timeout=5)
        for instance in instances:
            stop(instance.process)  # the one the last test killed is already gone


def _entity(server, token):
    return server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})


def test_the_web_view_core_loop_runs_through_the_balancer(cluster, host):
    balancer = cluster.balancer
    mark = cluster.log_mark()

    # Register in the sign-in page, loaded through the balancer; the host receives the token.
    host.load(balancer.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete")
    email = new_email()
    queue_mark, _ = host.mark()
    register_in_page(host, email)
    token = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result["accessToken"]
    host.wait_for_screen("signedIn")

    # The host's backend uses it through the balancer: a few calls, so round robin sends some to each instance.
    answered_by = set()
    for _ in range(8):
        status, entity, headers = _entity(balancer, token)
        assert status == 200 and entity["stat"] == "ok" and entity["result"]["email"] == email, (status, entity)
        answered_by.add(headers[UPSTREAM_HEADER])
        if len(answered_by) == len(cluster.instances) and len(answered_by) > 1:
            break
    assert answered_by == {instance.address for instance in cluster.instances}, \
        "round robin sent the token to both instances and both accept it: %s" % answered_by

    # The profile page, given the token by the host, finds the session; its "Sign out" ends it on both instances.
    host.load(balancer.page("webViewProfile"))
    host.wait_for_event("onCaptureRenderComplete")
    queue_mark, _ = host.mark()
    assert host.command("janrain.capture.ui.createCaptureSession(%s)" % json.dumps(token)) == ("boolean", True)
    assert host.wait_for_event("onCaptureSessionFound", after=queue_mark).result["userData"]["email"] == email
    host.wait_for_screen("editProfile")
    queue_mark, _ = host.mark()
    host.click('#editProfile [data-capture-action="signOut"]')
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    host.wait_for(lambda: _entity(balancer, token)[1].get("stat") == "error", 10, "the signed-out token to be refused")
    for instance in cluster.instances:
        assert _entity(instance.server, token)[1]["stat"] == "error", "instance %s still accepts it" % instance.name

    # Signing in again in the page (it remembers the address: "welcome back") gives a new token that works through
    # the balancer.
    host.load(balancer.page("webViewSignIn"))
    host.wait_for_screen("returnTraditional")
    queue_mark, _ = host.mark()
    host.fill_and_submit("returnTraditional", {"currentPassword": PASSWORD})
    again = host.wait_for_event("onCaptureLoginSuccess", after=queue_mark).result["accessToken"]
    assert again != token
    for _ in range(2):
        status, entity, _ = _entity(balancer, again)
        assert status == 200 and entity["stat"] == "ok" and entity["result"]["email"] == email, (status, entity)

    # nginx's log of this loop: pages and API calls, spread over both instances, none failed at the balancer.
    served = cluster.served(mark)
    pages = [entry for entry in served if entry["method"] == "GET" and entry["uri"].startswith("/flows/webView")]
    api = [entry for entry in served if entry["method"] == "POST"]
    assert {entry["uri"].split("?")[0] for entry in pages} == {"/flows/webViewSignIn", "/flows/webViewProfile"}, served
    assert not [entry for entry in served if entry["status"].startswith("5")], served
    instances = {instance.address for instance in cluster.instances}
    assert {entry["upstream"] for entry in served} == instances, served
    assert [entry for entry in api if entry["upstream"] != pages[0]["upstream"]], \
        "API calls of the loop also landed on the instance that did not serve the page: %s" % served
    # The page's registration went to one instance; the other one accepted the token it issued (answered_by above).
    registration = [entry for entry in api if entry["uri"] == "/oauth/register_native_traditional"]
    assert len(registration) == 1 and registration[0]["status"] == "200", api
    assert answered_by - {registration[0]["upstream"]}, served


def test_a_revocation_through_one_instance_is_refused_by_the_other(cluster):
    a, b = (instance.server for instance in cluster.instances)
    for issuer, other in ((a, b), (b, a)):
        email, reply = issuer.register()
        token = reply["access_token"]
        status, entity, _ = _entity(other, token)
        assert status == 200 and entity["stat"] == "ok" and entity["result"]["email"] == email, (status, entity)

        status, revoked, _ = issuer.post("/oauth/revoke", {"client_id": CLIENT_ID, "token": token})  # RFC 7009
        assert status == 200, (status, revoked)
        # The revoking instance refuses at once; the other once the change notice reaches it, within a second as
        # docs/threat-model.md bounds it ("A revoked token still let through by another instance"): on a loaded
        # machine the notice can take longer than the next request (Janrain's error, in an HTTP 200).
        status, refused, _ = _entity(issuer, token)
        assert refused["stat"] == "error" and refused["error"] == "invalid_access_token", (status, refused)
        deadline = time.monotonic() + 1.0
        while True:
            status, refused, _ = _entity(other, token)
            if refused.get("stat") == "error" or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert refused["stat"] == "error" and refused["error"] == "invalid_access_token", (status, refused)


def _sign_in(server, email, password, address):
    """A sign-in over the API from a client at `address`, as a further proxy in front of the balancer reports it."""
    status, reply, headers = server.post("/oauth/auth_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": email, "currentPassword": password,
    }, headers={"X-Forwarded-For": address})
    return reply, headers.get(UPSTREAM_HEADER)


def test_per_address_limits_count_each_client_across_both_instances(cluster):
    balancer = cluster.balancer
    owner, _ = balancer.register()
    attacker, neighbour = "203.0.113.7", "203.0.113.8"
    answered_by = set()
    # Wrong passwords for as many different accounts as one address may fail, alternating between the instances.
    for _ in range(SIGN_IN_FAILURES_PER_ADDRESS):
        reply, upstream = _sign_in(balancer, new_email(), "a wrong guess", attacker)
        assert reply["stat"] == "error" and reply["code"] == 210, reply
        answered_by.add(upstream)
    assert answered_by == {instance.address for instance in cluster.instances}, answered_by
    # The address's failures, counted on both instances together, now refuse it on either one, even with the right
    # password; the next address behind the same balancer is a different client and signs in.
    for _ in range(2):
        reply, _ = _sign_in(balancer, owner, PASSWORD, attacker)
        assert reply["stat"] == "error" and reply["error"] == "rate_limit_exceeded", reply
    reply, _ = _sign_in(balancer, owner, PASSWORD, neighbour)
    assert reply["stat"] == "ok" and reply["access_token"], reply


def _wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out after %ss waiting for %s" % (timeout, what)
        time.sleep(0.02)


IN_FLIGHT_SLACK = 1.0


def test_kill_9_of_one_instance_during_a_registration_burst_loses_no_acknowledged_registration(cluster):
    balancer = cluster.balancer
    victim, survivor = cluster.instances[1], cluster.instances[0]
    mark = cluster.log_mark()
    records, lock, stopping = [], threading.Lock(), threading.Event()

    def register_until_stopped():
        while not stopping.is_set():
            email, started = new_email(), time.monotonic()
            record = {"email": email, "started": started, "status": None, "token": None, "upstream": None}
            try:
                status, reply, headers = balancer.post("/oauth/register_native_traditional", {
                    "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm",
                    "locale": "en-US", "response_type": "token", "emailAddress": email, "displayName": "Burst",
                    "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD})
                # The instance that answered: the last one nginx tried (it passes a request on, unsent, when it cannot
                # connect; $upstream_addr then lists both).
                record.update(status=status, upstream=headers.get(UPSTREAM_HEADER, "").split(",")[-1].strip())
                if status == 200 and isinstance(reply, dict) and reply.get("stat") == "ok":
                    record["token"] = reply.get("access_token")
            except (OSError, http.client.HTTPException) as problem:  # urllib's errors are OSErrors
                record["status"] = type(problem).__name__
            record["finished"] = time.monotonic()
            with lock:
                records.append(record)

    def acknowledged_by(instance, started_after=0.0):
        with lock:
            return sum(1 for record in records if record["token"] and record["upstream"] == instance.address
                       and record["started"] > started_after)

    threads = [threading.Thread(target=register_until_stopped, daemon=True) for _ in range(16)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    # About a second into the burst (and once the victim has acknowledged a few, however slow the machine is).
    _wait_until(lambda: time.monotonic() - began >= 1.0 and acknowledged_by(victim) >= 3, 60,
                "the victim to acknowledge registrations")
    kill_sent = time.monotonic()
    os.kill(victim.process.pid, signal.SIGKILL)
    victim.process.wait(timeout=5)
    victim_gone = time.monotonic()  # reaped: its listening socket is closed
    _wait_until(lambda: time.monotonic() - victim_gone >= 1.5 and acknowledged_by(survivor, victim_gone) >= 3, 60,
                "the survivor to acknowledge registrations sent after the kill")
    stopping.set()
    for thread in threads:
        thread.join(timeout=30)
    assert not [thread for thread in threads if thread.is_alive()], "a registration thread hung"

    acknowledged = [record for record in records if record["token"]]
    before = [record for record in acknowledged if record["finished"] < kill_sent]
    after = [record for record in acknowledged if record["started"] > victim_gone]
    failed = [record for record in records if not record["token"]]
    summary = "%d requests, %d acknowledged (%d before the kill, %d by the victim; %d sent after it), %d failed: %s" % (
        len(records), len(acknowledged), len(before), sum(record["upstream"] == victim.address for record in before),
        len(after), len(failed), sorted({str(record["status"]) for record in failed}))
    assert {record["upstream"] for record in after} == {survivor.address}, "the survivor took over: " + summary
    # What was in flight at the victim failed (nginx's 502), and nothing else did. ("In flight" with a second of slack:
    # on a loaded machine a request the client stamped just after the reap has been seen to reach the victim still.)
    assert all(record["status"] == 502 and record["upstream"] == victim.address
               and record["started"] < victim_gone + IN_FLIGHT_SLACK for record in failed), \
        [(record["status"], record["upstream"], round(record["started"] - victim_gone, 3)) for record in failed]

    # Every acknowledged registration is in the database.
    stored = {row[0] for row in cluster.store.rows("SELECT email FROM users", "SELECT email FROM users")}
    missing = [record["email"] for record in acknowledged if record["email"] not in stored]
    assert not missing, "acknowledged but not stored: %s (%s)" % (missing, summary)
    # (A failed one may or may not be stored: the victim may have committed it and died before it answered.)
    print("\n%s; %d of the failed ones stored all the same" % (
        summary, sum(record["email"] in stored for record in failed)))

    # The survivor serves the tokens the victim issued, directly and through the balancer.
    issued_by_victim = [record for record in acknowledged if record["upstream"] == victim.address]
    assert issued_by_victim, summary
    for record in issued_by_victim[:10]:
        for server in (survivor.server, balancer):
            status, entity, _ = _entity(server, record["token"])
            assert status == 200 and entity["stat"] == "ok" and entity["result"]["email"] == record["email"], \
                (status, entity)

    # nginx logged each request of the burst once, with what the client got.
    served = [entry for entry in cluster.served(mark) if entry["uri"] == "/oauth/register_native_traditional"]
    assert sorted(entry["status"] for entry in served) == sorted(str(record["status"]) for record in records)
    print("nginx: %d answered by the victim, %d by the survivor, %d passed on to the survivor, %d 502" % (
        sum(entry["upstream"] == victim.address for entry in served),
        sum(entry["upstream"] == survivor.address for entry in served),
        sum("," in entry["upstream"] for entry in served),
        sum(entry["status"] == "502" for entry in served)))
