"""Fixtures: the real capture-server binary on loopback (one per session, its own SQLite file), a real
SMTP server (aiosmtpd) it delivers mail to, a fresh native host (web view) per test, and small HTTP helpers
an app backend would use."""

import base64
import contextlib
import email
import email.policy
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pyotp
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from capture_process import die_with_parent, free_port, stop, wait_until_ready  # noqa: E402
from capture_store import Store  # noqa: E402
from soft_authenticator import SoftAuthenticator  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from janrain_site import JanrainSite  # noqa: E402

CLIENT_ID = "demo-mobile-app"
# A second client that refuses sign-in until the address is confirmed (code 112).
VERIFY_FIRST_CLIENT_ID = "verify-first-app"
PASSWORD = "correct horse battery"
# The codes the service mails: 8 characters of an alphabet without 0/O, 1/I.
CODE_PATTERN = re.compile(r"\b([2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4})\b")
JANRAIN_FLOW = ROOT / "Tests" / "Fixtures" / "janrain-flow-fernway.json"
# A second customer's flow (test_janrain_hidden_fields.py): an orchard's, with a hidden opt-in source, address parts, a
# province select and topic boxes; the attributes it needs are added to the schema (_test_settings).
ORCHARD_FLOW = ROOT / "Tests" / "Fixtures" / "janrain-flow-orchard.json"
# A third customer's own flow, which defines Janrain's reset forms itself (test_janrain_trailhead_reset.py).
TRAILHEAD_FLOW = ROOT / "Tests" / "Fixtures" / "janrain-flow-trailhead.json"
# A fourth, of Janrain's older generation, whose newPasswordForm both resets with a mailed link's code and changes the
# signed-in person's password (test_janrain_older_flow.py).
RIDGELINE_FLOW = ROOT / "Tests" / "Fixtures" / "janrain-flow-ridgeline.json"
LINK_PATTERN = re.compile(r"(https?://\S+#screen=\S+)")
# Screenshots are build output for a person to look at, never committed; CAPTURE_SCREENSHOTS puts a second run's
# (the PostgreSQL pass, beside the SQLite one) elsewhere.
SHOTS = pathlib.Path(os.environ.get("CAPTURE_SCREENSHOTS") or ROOT / ".build" / "screenshots")






class Server:
    """The running service: its base URL, its database (`store.location` is what --db takes) and log."""

    def __init__(self, base, store, log_path):
        self.base = base
        self.store = store
        self.log_path = log_path

    def url(self, path):
        return self.base + path

    def page(self, flow, **query):
        query.setdefault("client_id", CLIENT_ID)
        return "%s/flows/%s?%s" % (self.base, flow, urllib.parse.urlencode(query))

    def post(self, path, fields, headers=None):
        """POST a form body; returns (status, parsed JSON or text, headers)."""
        request = urllib.request.Request(
            self.base + path,
            data=urllib.parse.urlencode(fields).encode(),
            headers=dict({"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
                         **(headers or {})),
            method="POST",
        )
        return _send(request)

    def get(self, path, headers=None):
        return _send(urllib.request.Request(self.base + path, headers=headers or {}))

    def register(self, email=None, password=PASSWORD, display_name="API User"):
        """Registers a user straight through the API (as a native SDK would); returns (email, reply)."""
        email = email or new_email()
        status, reply, _ = self.post("/oauth/register_native_traditional", {
            "client_id": CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm",
            "locale": "en-US", "response_type": "token",
            "emailAddress": email, "displayName": display_name,
            "newPassword": password, "newPasswordConfirm": password,
        })
        assert status == 200 and reply.get("stat") == "ok", "API registration failed: %s %s" % (status, reply)
        return email, reply

    def add_passkey(self, token, authenticator, name="Phone"):
        """Adds a passkey made by `authenticator` (a SoftAuthenticator) to the account of `token` through the API, as
        another device of the person's would have; returns the service's passkey record."""
        _, options, _ = self.post("/passkey/registration_options", {"access_token": token})
        assert options.get("stat") == "ok", options
        credential = authenticator.create(options["options"], self.base)
        _, added, _ = self.post("/passkey/register", {"access_token": token, "credential": json.dumps(credential),
                                                      "name": name})
        assert added.get("stat") == "ok", added
        return added["passkey"]

    def set_up_authenticator(self, token):
        """Turns the authenticator app on for the account of `token` through the API; returns (AuthenticatorApp,
        the ten recovery codes)."""
        _, setup, _ = self.post("/second_factor/setup", {"access_token": token})
        assert setup.get("stat") == "ok", setup
        app = AuthenticatorApp(setup["otpauth_uri"])
        _, confirmed, _ = self.post("/second_factor/confirm", {
            "access_token": token, "setup_ticket": setup["setup_ticket"], "code": app.fresh()})
        assert confirmed.get("stat") == "ok", confirmed
        return app, confirmed["recovery_codes"]

    def factors(self, token):
        _, reply, _ = self.post("/factors", {"access_token": token})
        assert reply.get("stat") == "ok", reply
        return reply

    def log(self):
        try:
            return pathlib.Path(self.log_path).read_text(errors="replace")[-4000:]
        except OSError:
            return ""


def _send(request):
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, error.headers, error.read()
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        body = text
    return status, body, headers


class AuthenticatorApp:
    """An authenticator app holding an account's secret (pyotp, from the otpauth:// link), as a phone shows its codes.
    The service takes each 30-second step once, and one step either side of its clock: `fresh()` is the code of a step
    not handed out yet (now's, else the next one); `last` the last code handed out."""

    def __init__(self, otpauth_uri):
        self.totp = pyotp.parse_uri(otpauth_uri)
        self.step = None
        self.last = None

    def fresh(self):
        now = int(time.time() // self.totp.interval)
        step = now if self.step is None or self.step < now else self.step + 1
        if step > now + 1:  # two codes of this window are spent: wait for the next one
            time.sleep((step - 1) * self.totp.interval - time.time() + 0.05)
        self.step = step
        self.last = self.totp.at(step * self.totp.interval)
        return self.last


class PasskeyPlatform:
    """The host's platform passkey API (ASAuthorization on iOS, Credential Manager on Android), played by a
    SoftAuthenticator: takes the page's onCapturePasskeyRequest, runs the ceremony for `origin` (the service's, unless
    a test says otherwise) and hands the result back with janrain.capture.ui.completePasskey, as a host does."""

    def __init__(self, host, origin, authenticator=None):
        self.host = host
        self.origin = origin
        self.authenticator = authenticator or SoftAuthenticator()
        self.last = None  # the last answer handed to the page

    def request(self, after=0, timeout=15):
        """The next onCapturePasskeyRequest's result (queue transport) after the mark."""
        return self.host.wait_for_event("onCapturePasskeyRequest", after=after, timeout=timeout).result

    def answer(self, after=0, origin=None, credential=None, as_text=True):
        """Waits for a request, runs it, answers; returns (the request, the answer as a dict)."""
        request = self.request(after)
        if request["kind"] == "create":
            answer = self.authenticator.create(request["options"], origin or self.origin)
        else:
            answer = self.authenticator.get(request["options"], origin or self.origin, credential=credential)
        assert self.host.complete_passkey(answer, as_text=as_text) == ("boolean", True)
        self.last = answer
        return request, answer

    def reply(self, answer, after=0, as_text=True):
        """Waits for a request and answers it with `answer` as it is (None: the person cancelled)."""
        request = self.request(after)
        assert self.host.complete_passkey(answer, as_text=as_text) == ("boolean", True)
        return request


def new_email():
    return "webview-%s@example.com" % uuid.uuid4().hex[:12]


def stored_key(token):
    """What the tokens table keeps for a token (TokenMinter.key): a 44-character token's mint time (its first six
    bytes, in hex) and then its SHA-256; the SHA-256 alone for older, 43-character tokens."""
    digest = hashlib.sha256(token.encode()).hexdigest()
    if len(token) != 44:
        return digest
    return base64.urlsafe_b64decode(token[:8])[:6].hex() + digest


class OIDCProvider:
    """A real OpenID Connect provider (PyPI's oidc-provider-mock, Authlib) on loopback: its issuer, and its API for
    setting a user's claims before they sign in there."""

    name = "mock"
    display_name = "Mock ID"
    client_id = "capture-bridge-webview"
    secret = "webview-s3cret"

    def __init__(self, port):
        self.port = port
        self.issuer = "http://localhost:%d" % port

    def set_user(self, subject, claims):
        """PUT /users/<sub> with the claims the provider will put in that user's ID token and userinfo."""
        request = urllib.request.Request(
            "%s/users/%s" % (self.issuer, urllib.parse.quote(subject, safe="")),
            data=json.dumps(claims).encode(), headers={"Content-Type": "application/json"}, method="PUT")
        status, body, _ = _send(request)
        assert status == 204, "the provider refused the user %s: %s %s" % (subject, status, body)

    def live_refresh_tokens(self, subject):
        """The refresh tokens the provider itself holds live for its user (the fixture's `/_refresh_tokens`)."""
        status, body, _ = _send(urllib.request.Request(
            "%s/_refresh_tokens?sub=%s" % (self.issuer, urllib.parse.quote(subject, safe=""))))
        assert status == 200, "the provider did not list its tokens: %s %s" % (status, body)
        return body["live"]

    @contextlib.contextmanager
    def fault(self, name):
        """Within the block, the provider's token endpoint answers with the named fault (oidc_provider.py lists
        them: bad_signature, wrong_audience, expired, wrong_nonce, slow, oversized, no_reply); cleared after."""
        request = urllib.request.Request(self.issuer + "/_faults", data=json.dumps({"token": name}).encode(),
                                         headers={"Content-Type": "application/json"}, method="PUT")
        status, body, _ = _send(request)
        assert status == 204, "the provider's fault layer refused %r: %s %s" % (name, status, body)
        try:
            yield
        finally:
            status, body, _ = _send(urllib.request.Request(self.issuer + "/_faults", method="DELETE"))
            assert status == 204, "the fault %r was not cleared: %s %s" % (name, status, body)


def pytest_collection_modifyitems(items):
    """The walks over every screen are the longest tests by far: started first, the workers share the rest around
    them instead of one worker starting a walk when the others are nearly done."""
    items.sort(key=lambda item: item.path.name != "test_every_screen.py")


@pytest.fixture(scope="session")
def oidc_provider():
    """Tests/CaptureServerTests/Fixtures/oidc_provider.py (the Swift suite's provider), started as it starts it: the
    port on its first line of output, running until its standard input closes."""
    script = ROOT / "Tests" / "CaptureServerTests" / "Fixtures" / "oidc_provider.py"
    process = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent)
    line = process.stdout.readline().decode().strip()
    if not line.isdigit():
        process.kill()
        pytest.fail("the OpenID Connect provider did not start (scripts/install-deps.sh installs oidc-provider-mock): "
                    "%r" % line, pytrace=False)
    try:
        yield OIDCProvider(int(line))
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _test_settings(work, smtp_port, provider=None, site=None):
    """The shipped Settings with these changes: every test registers and asks for codes from 127.0.0.1, so the
    per-address registration and code-request allowances are raised (the sign-in limits and the per-address code
    limit stay as shipped; test_lockout.py and test_account_lifecycle.py rely on them); mail goes to the
    session's SMTP server; a second client requires a confirmed address before sign-in; and the OpenID Connect
    provider, if given, is the one social provider."""
    settings = work / "Settings"
    shutil.copytree(ROOT / "Settings", settings)
    service = json.loads((settings / "service.json").read_text())
    service["registrationsPerAddress"] = 10000
    service["codeRequestsPerAddress"] = 10000
    service["webFlows"] = str(ROOT / "WebFlows")
    # The log checks read the one line per request (off by default).
    service["requestLogLevel"] = "info"
    service["mail"] = dict(service.get("mail") or {}, smtp={"host": "127.0.0.1", "port": smtp_port, "security": "none"})
    demo = next(client for client in service["clients"] if client["clientId"] == CLIENT_ID)
    service["clients"].append(dict(demo, clientId=VERIFY_FIRST_CLIENT_ID, name="Requires a confirmed address",
                                   requireVerifiedEmail=True))
    if site is not None:
        # A Janrain customer's own site on an origin of its own (janrain_site.py): its pages use the drop-in loader.
        service["clients"].append({"clientId": "janrain-site", "name": "A Janrain customer's site",
                                   "redirectUris": site.pages(), "allowedOrigins": [site.origin],
                                   "responseTypes": ["token", "code"], "siteName": "Fernway Rewards",
                                   "verifyEmailUrl": site.page("index.html"),
                                   "passwordRecoverUrl": site.page("index.html"),
                                   # OpenID Connect sign-ins for this client open its own page (docs/oidc.md).
                                   "settings": {"oidc_sign_in_url": site.page("index.html")}})
        # That customer's mailed links open its own flow's page.
        service["clients"].append({"clientId": "trailhead-site", "name": "Trailhead Outfitters",
                                   "redirectUris": site.pages(), "allowedOrigins": [site.origin],
                                   "responseTypes": ["token"], "siteName": "Trailhead Outfitters",
                                   "verifyEmailUrl": site.page("trailhead.html"),
                                   "passwordRecoverUrl": site.page("trailhead.html")})
        service["clients"].append({"clientId": "ridgeline-site", "name": "Ridgeline Guides",
                                   "redirectUris": site.pages(), "allowedOrigins": [site.origin],
                                   "responseTypes": ["token"], "siteName": "Ridgeline Guides",
                                   "verifyEmailUrl": site.page("ridgeline.html"),
                                   "passwordRecoverUrl": site.page("ridgeline.html")})
    if provider is not None:
        # The provider runs on loopback over plain http, which only allowPlainHTTP permits.
        service["socialProviders"] = [{
            "name": provider.name, "displayName": provider.display_name, "issuer": provider.issuer,
            "clientId": provider.client_id, "allowPlainHTTP": True,
        }]
    (settings / "service.json").write_text(json.dumps(service))
    if site is not None:
        # The orchard's attributes, added to the schema as its operator adds them (no code, no migration): where its
        # flow keeps the opt-in source and the topics a person follows.
        schema = json.loads((settings / "schema.json").read_text())
        schema["attributes"]["optIn"]["attributes"]["source"] = {"type": "string", "length": 64}
        schema["attributes"]["interests"] = {"type": "object", "attributes": {
            "harvest": {"type": "boolean"}, "recipes": {"type": "boolean"}}}
        (settings / "schema.json").write_text(json.dumps(schema, indent=2))
        # The sites' own Janrain flows, imported as their operator imports them (test_janrain_imported_flow.py,
        # test_janrain_hidden_fields.py, test_janrain_trailhead_reset.py, test_janrain_older_flow.py).
        for flow in (JANRAIN_FLOW, ORCHARD_FLOW, TRAILHEAD_FLOW, RIDGELINE_FLOW):
            subprocess.run([str(server_binary().parent / "capturectl"), "flows", "import", str(flow),
                            "--settings", str(settings)], check=True, stdout=subprocess.DEVNULL)
    return settings


class Message:
    """One message as the SMTP server received it: recipients, headers, decoded text, and what it carries."""

    def __init__(self, recipients, raw):
        self.recipients = [address.lower() for address in recipients]
        self.message = email.message_from_bytes(raw, policy=email.policy.default)
        self.subject = str(self.message["Subject"] or "")
        text = self.message.get_body(preferencelist=("plain",))
        html = self.message.get_body(preferencelist=("html",))
        self.text = text.get_content() if text is not None else ""  # quoted-printable/base64 decoded
        self.html = html.get_content() if html is not None else ""
        codes = CODE_PATTERN.findall(self.text)
        links = LINK_PATTERN.findall(self.text)
        self.code = codes[0] if codes else None
        self.link = links[0] if links else None

    def __repr__(self):
        return "<Message to %s: %r>" % (", ".join(self.recipients), self.subject)


class Mailbox:
    """What a real SMTP server (aiosmtpd, in this process) received, in order."""

    def __init__(self):
        self.messages = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd handler hook
        message = Message(envelope.rcpt_tos, envelope.original_content or envelope.content)
        with self._lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def count(self):
        with self._lock:
            return len(self.messages)

    def find(self, to, after=0, subject=None):
        with self._lock:
            for message in self.messages[after:]:
                if to.lower() in message.recipients and (subject is None or subject.lower() in message.subject.lower()):
                    return message
        return None

    def wait_for(self, to, host=None, after=0, subject=None, timeout=20):
        """The first message to `to` received at index >= after, waiting while the host's main loop runs."""
        found = lambda: self.find(to, after, subject)  # noqa: E731
        if host is not None:
            return host.wait_for(found, timeout, "a message to %s (received: %s)" % (to, self.messages))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = found()
            if message:
                return message
            time.sleep(0.02)
        raise AssertionError("no message to %s after %ss (received: %s)" % (to, timeout, self.messages))


@pytest.fixture(scope="session")
def mailbox():
    """A real SMTP server on a free loopback port; the test server's settings point at it."""
    from aiosmtpd.controller import Controller

    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    box.port = controller.port
    try:
        yield box
    finally:
        controller.stop()


def server_binary():
    """CAPTURE_SERVER_BIN, else the debug build; the test fails, saying so, when it is not there."""
    binary = pathlib.Path(os.environ.get("CAPTURE_SERVER_BIN", ".build/debug/capture-server"))
    if not binary.is_absolute():
        binary = ROOT / binary
    if not binary.exists():
        pytest.fail("capture-server binary not found at %s: build it first (swift build), "
                    "or point CAPTURE_SERVER_BIN at it" % binary, pytrace=False)
    return binary


@pytest.fixture(scope="session")
def server(mailbox, oidc_provider):
    binary = server_binary()
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-webview-"))
    store = Store(work)
    log_path = work / "server.log"
    port = free_port()
    site = JanrainSite()
    settings = _test_settings(work, mailbox.port, oidc_provider, site)
    env = dict(os.environ)
    env["CAPTURE_PROVIDER_%s_SECRET" % oidc_provider.name.upper()] = oidc_provider.secret
    env.setdefault("CAPTURE_BCRYPT_COST", "10")  # the test suite's own users; keeps sign-ins quick
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", str(port),
             "--db", store.location, "--settings", str(settings)],
            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent,
        )
    running = Server("http://127.0.0.1:%d" % port, store, str(log_path))
    site.capture_server = running.base
    running.janrain_site = site
    try:
        wait_until_ready(process, running.base, running.log)
        yield running
    finally:
        stop(process)
        site.stop()


class OwnServer:
    """A capture-server of a test module's own, beside the session's: the suite's settings (_test_settings, with the
    OpenID Connect provider) plus `extra` service.json keys, its own database, its own port. `restart(extra)` stops it
    and starts it again with other keys on the same database and port, as an operator changes the settings;
    `server` (a Server) stays valid across restarts."""

    def __init__(self, mailbox, oidc_provider, extra):
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="capture-own-"))
        self.mailbox = mailbox
        self.provider = oidc_provider
        self.store = Store(self.work)
        self.port = free_port()
        self.server = Server("http://127.0.0.1:%d" % self.port, self.store, str(self.work / "server.log"))
        self.process = None
        self.extra = None
        self._start(extra)

    def _start(self, extra):
        settings = self.work / "Settings"
        if settings.exists():
            shutil.rmtree(settings)
        settings = _test_settings(self.work, self.mailbox.port, self.provider)
        service = json.loads((settings / "service.json").read_text())
        service.update(extra)
        (settings / "service.json").write_text(json.dumps(service))
        env = dict(os.environ)
        env["CAPTURE_PROVIDER_%s_SECRET" % self.provider.name.upper()] = self.provider.secret
        env.setdefault("CAPTURE_BCRYPT_COST", "10")
        with open(self.server.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [str(server_binary()), "--host", "127.0.0.1", "--port", str(self.port),
                 "--db", self.store.location, "--settings", str(settings)],
                cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=die_with_parent)
        wait_until_ready(self.process, self.server.base, self.server.log)
        self.extra = extra

    def restart(self, extra):
        stop(self.process)
        self._start(extra)

    def stop(self):
        if self.process is not None:
            stop(self.process)


@pytest.fixture
def janrain_site(server):
    """The Janrain customer's site whose pages load the service's drop-in loader (client `janrain-site`)."""
    return server.janrain_site


@pytest.fixture
def platform(server, host):
    """The host's passkey platform (PasskeyPlatform) for the `host` web view and the service's origin."""
    return PasskeyPlatform(host, server.base)


@pytest.fixture
def store(server):
    """The database the server writes, for tests that inspect what it stores."""
    return server.store


def _make_host(**options):
    from host import Host

    return Host(**options)


@pytest.fixture
def host():
    """A fresh native host: phone-sized web view, bridge user agent, janrainBridge handler, empty storage."""
    native = _make_host()
    try:
        yield native
    finally:
        native.close()


@pytest.fixture
def make_host():
    """For tests that need a host configured differently (e.g. without the bridge user agent)."""
    made = []

    def factory(**options):
        native = _make_host(**options)
        made.append(native)
        return native

    yield factory
    for native in made:
        native.close()


@pytest.fixture
def dark_scheme_reset():
    """For tests that switch the system's colour scheme: light again afterwards, whatever happened."""
    yield
    from host import set_dark_scheme

    set_dark_scheme(False)
