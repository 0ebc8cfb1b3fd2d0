"""Fixtures for the interop suite: the real capture-server binary on a free loopback port with its own SQLite file
and a temporary copy of Settings/, a confidential client made with capturectl (as an operator would), and the
public demo client. Libraries nobody here wrote (Authlib, schemathesis) then talk to it as third parties do."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import httpx
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from capture_process import die_with_parent, free_port, stop, wait_until_ready  # noqa: E402
from capture_store import Store  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]

PUBLIC_CLIENT_ID = "demo-mobile-app"
BACKEND_CLIENT_ID = "interop-backend"
PASSWORD = "correct horse battery"
# Seconds a test waits for an answer. Password hashes run below the event loops' priority (HashingPool), so beside the
# web view's browsers on this 2-core machine one registration can take several seconds; httpx's default (5 s) is not
# a bound on the service, only on the machine's load. A service that stops answering still fails the test.
HTTP_TIMEOUT = 60






def _binary(variable, default):
    path = pathlib.Path(os.environ.get(variable, default))
    if not path.is_absolute():
        path = ROOT / path
    if not path.exists():
        pytest.fail("%s not found at %s: build it first (swift build), or point %s at it" % (path.name, path, variable),
                    pytrace=False)
    return path


class Server:
    """The running service: base URL, its files, and the confidential client's credentials."""

    def __init__(self, base, work, settings, db_path, log_path, backend_secret, capturectl=None, env=None):
        self.capturectl = capturectl
        self.env = env
        self.base = base
        self.work = work
        self.settings = settings
        self.db_path = db_path
        self.log_path = log_path
        self.backend_client_id = BACKEND_CLIENT_ID
        self.backend_secret = backend_secret

    def url(self, path):
        return self.base + path

    def post(self, path, **kwargs):
        return httpx.post(self.url(path), **{"timeout": HTTP_TIMEOUT, **kwargs})

    def get(self, path, **kwargs):
        return httpx.get(self.url(path), **{"timeout": HTTP_TIMEOUT, **kwargs})

    def admin_key(self):
        """A new admin API key, made on the database file as an operator makes one (printed once)."""
        made = subprocess.run(
            [str(self.capturectl), "admin-key", "add", "interop", "--db", self.db_path, "--settings",
             str(self.settings), "--json"], cwd=str(ROOT), env=self.env, capture_output=True, text=True, timeout=60)
        assert made.returncode == 0, "capturectl admin-key add failed: %s %s" % (made.stdout, made.stderr)
        return json.loads(made.stdout)["key"]

    def log(self):
        try:
            return pathlib.Path(self.log_path).read_text(errors="replace")[-4000:]
        except OSError:
            return ""


def _test_settings(work):
    """The shipped Settings with what many sign-ups from one address need: the per-address registration and code
    allowances raised, the lowest bcrypt cost the settings allow (10), and the pages from the checkout."""
    settings = work / "Settings"
    shutil.copytree(ROOT / "Settings", settings)
    service = json.loads((settings / "service.json").read_text())
    service["registrationsPerAddress"] = 100000
    service["codeRequestsPerAddress"] = 100000
    service["bcryptCost"] = 10
    service["webFlows"] = str(ROOT / "WebFlows")
    service["socialProviders"] = []
    (settings / "service.json").write_text(json.dumps(service))
    return settings


@pytest.fixture(scope="module")
def server():
    """One service per test module: schemathesis's thousands of requests (and the sign-in limits they use up) do not
    reach the Authlib tests' service."""
    binary = _binary("CAPTURE_SERVER_BIN", ".build/debug/capture-server")
    capturectl = _binary("CAPTURECTL_BIN", str(binary.parent / "capturectl"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-interop-"))
    db_path = Store(work).location
    log_path = work / "server.log"
    settings = _test_settings(work)
    env = {key: value for key, value in os.environ.items() if not key.startswith("CAPTURE_")}
    # An app backend, registered as an operator registers one: its secret is printed once.
    added = subprocess.run(
        [str(capturectl), "client", "add", BACKEND_CLIENT_ID, "--confidential", "--name", "Interop backend",
         "--redirect-uri", "/flows/webViewSignIn", "--response-type", "code", "--response-type", "token",
         "--db", db_path, "--settings", str(settings), "--json"],
        cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, "capturectl client add failed: %s %s" % (added.stdout, added.stderr)
    secret = json.loads(added.stdout)["client_secret"]
    port = free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", str(port), "--db", db_path, "--settings", str(settings)],
            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent)
    running = Server("http://127.0.0.1:%d" % port, work, settings, db_path, log_path, secret, capturectl, env)
    try:
        wait_until_ready(process, running.base, running.log)
        yield running
    finally:
        stop(process)
        shutil.rmtree(work, ignore_errors=True)
