"""Issue 32, item 7: an instance on PostgreSQL while its database restarts under load, and while it hangs. On a
PostgreSQL server of its own (scripts/with-postgres.sh, nested: restarting the suite's server would fail the other
tests), the real capture-server takes registrations and token checks from several clients while the server restarts
(pg_ctl's fast shutdown): every reply is a success or a 503 with Retry-After in the contract's shape, never a 500 or a
dropped connection; every acknowledged registration is stored; the instance serves again by itself, its token checks
kept in memory again once it hears the change notices. Then, with PostgreSQL frozen (SIGSTOP) under a request, SIGTERM
stops the instance within its grace period (shutdownGraceSeconds) and one second."""

import glob
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
import urllib.parse
from unittest import mock

import pytest

from capture_process import die_with_parent, free_port, stop, wait_until_ready
from capture_store import Store
from conftest import CLIENT_ID, PASSWORD, ROOT, Server, _test_settings, new_email, server_binary

GRACE_SECONDS = 3


class PrivatePostgres:
    """A PostgreSQL server for this file alone: with-postgres.sh runs a command that reports the server's URL and
    data directory, then waits for its standard input to close; the script then stops the server and removes it."""

    REPORT = "import os, sys; print(os.environ['CAPTURE_TEST_POSTGRES']); " \
             "print(os.environ['CAPTURE_TEST_POSTGRES_DATA']); sys.stdout.flush(); sys.stdin.read()"

    def __init__(self, work):
        env = dict(os.environ, TMPDIR=str(work))
        self.process = subprocess.Popen(
            [str(ROOT / "scripts/with-postgres.sh"), "/usr/bin/python3", "-c", self.REPORT], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            preexec_fn=die_with_parent)
        self.url = self.process.stdout.readline().strip()
        self.data = self.process.stdout.readline().strip()
        assert self.url.startswith("postgres://") and self.data, "with-postgres.sh did not start a server"
        self.pg_ctl = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]

    def as_server_user(self, *command):
        # PostgreSQL refuses root: as root, the cluster is the postgres user's (with-postgres.sh).
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(prefix + list(command), capture_output=True, text=True, cwd="/")

    def restart(self):
        """pg_ctl's fast shutdown (every backend ended, a checkpoint), then a start on the same port."""
        done = self.as_server_user(self.pg_ctl, "restart", "-D", self.data, "-m", "fast", "-w", "-t", "60",
                                   "-l", self.data + "/../restart.log")
        assert done.returncode == 0, "pg_ctl restart failed: %s %s" % (done.stdout, done.stderr)

    def processes(self):
        """The postmaster and every process it started."""
        postmaster = int(pathlib.Path(self.data, "postmaster.pid").read_text().split()[0])
        children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
        return [postmaster] + [int(pid) for pid in children]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def instance(mailbox):
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-restart-"))
    os.chmod(work, 0o755)  # the postgres user makes its cluster in here
    postgres = PrivatePostgres(work)
    process = None
    try:
        with mock.patch.dict(os.environ, {"CAPTURE_TEST_BACKEND": "postgres", "CAPTURE_TEST_POSTGRES": postgres.url}):
            store = Store(work)
        settings = work / "RestartSettings"
        shutil.copytree(_test_settings(work, mailbox.port), settings)
        service = json.loads((settings / "service.json").read_text())
        service["shutdownGraceSeconds"] = GRACE_SECONDS
        service["metricsPublic"] = True  # the test reads capture_token_checks_total
        (settings / "service.json").write_text(json.dumps(service))
        port = free_port()
        log_path = work / "server.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [str(server_binary()), "--host", "127.0.0.1", "--port", str(port), "--db", store.location,
                 "--settings", str(settings)],
                cwd=str(ROOT), env=dict(os.environ, CAPTURE_BCRYPT_COST="10"), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        server = Server("http://127.0.0.1:%d" % port, store, str(log_path))
        wait_until_ready(process, server.base, server.log)
        yield server, process, postgres
    finally:
        if process is not None:
            stop(process)
        postgres.close()


def _register(server, email):
    return server.post("/oauth/register_native_traditional", {
        "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": email, "displayName": "Restart", "newPassword": PASSWORD,
        "newPasswordConfirm": PASSWORD})


def _token_check_metrics(server):
    """capture_token_checks_total by answer ("kept", "read")."""
    status, text, _ = server.get("/metrics")
    counts = {"kept": 0.0, "read": 0.0}
    for line in (text if isinstance(text, str) else "").splitlines():
        if line.startswith("capture_token_checks_total{"):
            for answer in counts:
                if 'answer="%s"' % answer in line:
                    counts[answer] += float(line.rsplit(" ", 1)[1])
    return counts


def test_a_restart_under_load_answers_503_at_worst_and_loses_nothing_acknowledged(instance):
    server, process, postgres = instance
    _, first = server.register()
    token = first["access_token"]
    records, lock, stopping = [], threading.Lock(), threading.Event()

    def load(kind):
        while not stopping.is_set():
            record = {"kind": kind, "started": time.monotonic(), "email": None, "ok": False}
            try:
                if kind == "register":
                    record["email"] = new_email()
                    status, reply, headers = _register(server, record["email"])
                else:
                    status, reply, headers = server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})
                record.update(status=status, reply=reply, retry_after=headers.get("Retry-After"),
                              ok=status == 200 and isinstance(reply, dict) and reply.get("stat") == "ok")
            except (OSError, http.client.HTTPException) as problem:  # a dropped connection, a reset, no reply
                record.update(status=type(problem).__name__, reply=str(problem))
            record["finished"] = time.monotonic()
            with lock:
                records.append(record)

    threads = [threading.Thread(target=load, args=(kind,), daemon=True)
               for kind in ["register"] * 4 + ["entity"] * 2]
    def served(kind, since):
        return any(r["ok"] and r["kind"] == kind and r["started"] > since for r in list(records))

    for thread in threads:
        thread.start()
    # Under load: both kinds of request are answered before the restart.
    deadline = time.monotonic() + 60
    while not (served("register", 0) and served("entity", 0)):
        assert time.monotonic() < deadline, "the load was not served in 60 s before the restart"
        time.sleep(0.05)
    restart_began = time.monotonic()
    postgres.restart()
    restarted = time.monotonic()
    # Served again by itself: both kinds of request, begun after the server was back, are acknowledged.
    deadline = restarted + 30
    while not (served("register", restarted) and served("entity", restarted)):
        assert time.monotonic() < deadline, "no registration and token check acknowledged in 30 s after the restart"
        time.sleep(0.05)
    stopping.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not [thread for thread in threads if thread.is_alive()], "a load thread hung"

    by_status = {}
    for record in records:
        by_status[str(record["status"])] = by_status.get(str(record["status"]), 0) + 1
    summary = "%d requests, restart %.2f s: %s" % (len(records), restarted - restart_began, by_status)
    print("\n" + summary)
    refused = [r for r in records if not r["ok"]]
    # Anything but a success is a 503 that says when to try again, in the contract's shape (Janrain's error object).
    wrong = [(r["kind"], r["status"], r["reply"]) for r in refused
             if not (r["status"] == 503 and r["retry_after"] and isinstance(r["reply"], dict)
                     and r["reply"].get("stat") == "error")]
    assert not wrong, "%s; not a 503 with Retry-After: %s" % (summary, wrong[:5])
    assert any(r["ok"] for r in records if r["started"] < restart_began), summary

    # Every acknowledged registration is stored.
    stored = {row[0] for row in server.store.rows("SELECT email FROM users", "SELECT email FROM users")}
    missing = [r["email"] for r in records if r["ok"] and r["kind"] == "register" and r["email"] not in stored]
    assert not missing, "acknowledged but not stored: %s (%s)" % (missing, summary)

    # The change notices' listener is back: the instance keeps token checks in memory again.
    before = _token_check_metrics(server)["kept"]
    deadline = time.monotonic() + 10
    while _token_check_metrics(server)["kept"] <= before:
        assert time.monotonic() < deadline, "no token check answered from memory after the restart"
        for _ in range(3):
            server.post("/entity", {"access_token": token, "client_id": CLIENT_ID})
        time.sleep(0.1)


def _unread_by_postgres(port, other_than):
    """Whether the server's request is waiting on PostgreSQL: bytes sent to PostgreSQL's port that it has not read (a
    statement, on a connection whose client port is not in `other_than`), or a new connection it has not accepted.
    (/proc/net/tcp: `rx_queue` is what the socket holds unread, or for a listening one its accept queue.)"""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                local, remote, state, queues = fields[1], fields[2], fields[3], fields[4]
                if int(local.rsplit(":", 1)[1], 16) != port or int(queues.split(":")[1], 16) == 0:
                    continue
                if state == "0A" or int(remote.rsplit(":", 1)[1], 16) not in other_than:
                    return True
    return False


def test_sigterm_stops_the_instance_within_its_grace_period_while_postgresql_hangs(instance):
    server, process, postgres = instance
    # The change notices' listener asks its connection every second: its bytes are not the registration's.
    deadline = time.monotonic() + 60
    while True:
        listeners = {int(row[0]) for row in server.store.rows(
            "SELECT 1",
            "SELECT client_port FROM pg_stat_activity WHERE application_name LIKE 'capture-bridge changes%'")}
        if listeners:
            break
        assert time.monotonic() < deadline, "the instance never listened for change notices"
        time.sleep(0.05)
    postgres_port = urllib.parse.urlsplit(postgres.url).port
    frozen = postgres.processes()
    replies = []

    def stuck_registration():
        try:
            replies.append(_register(server, new_email())[0])
        except (OSError, http.client.HTTPException) as problem:
            replies.append(type(problem).__name__)

    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        caller = threading.Thread(target=stuck_registration, daemon=True)
        caller.start()
        deadline = time.monotonic() + 60
        while not _unread_by_postgres(postgres_port, listeners):
            assert time.monotonic() < deadline, "the registration never reached the frozen database"
            time.sleep(0.01)
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=GRACE_SECONDS + 10)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("still running %d s after SIGTERM (shutdownGraceSeconds %d):\n%s" % (
                GRACE_SECONDS + 10, GRACE_SECONDS, server.log()))
        took = time.monotonic() - sent
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    print("\nstopped %.2f s after SIGTERM, exit status %s; the waiting registration got %s" % (
        took, process.returncode, replies))
    assert took <= GRACE_SECONDS + 1.5, "stopped %.2f s after SIGTERM:\n%s" % (took, server.log())
    caller.join(timeout=5)
