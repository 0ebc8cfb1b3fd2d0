"""Webhook listeners on loopback for the tests: a real HTTP server that verifies every delivery with the
`standardwebhooks` library from PyPI (the Standard Webhooks reference implementation, not this service's code) and
records it. Each path behaves as told: "ok" (204), "fail" (500), "hang" (answers nothing for a minute), "gone" (410),
"busy" (429 with Retry-After: 1). Ed25519 (`v1a`) deliveries are verified with `cryptography`."""

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


class Delivery:
    def __init__(self, path, headers, body, verified_with):
        self.path = path
        self.headers = headers
        self.body = body
        self.id = headers.get("webhook-id")
        self.timestamp = headers.get("webhook-timestamp")
        self.signature = headers.get("webhook-signature", "")
        # The secrets (of those the test gave for this path) that verified it.
        self.verified_with = verified_with
        self.payload = json.loads(body) if body else None

    @property
    def type(self):
        return (self.payload or {}).get("type")

    @property
    def user(self):
        return ((self.payload or {}).get("data") or {}).get("uuid")


def verify_v1a(public_key, body, headers):
    """Standard Webhooks' Ed25519 scheme: `v1a,<base64 signature>` of id.timestamp.body, under a `whpk_` key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key[len("whpk_"):]))
    signed = ("%s.%s.%s" % (headers["webhook-id"], headers["webhook-timestamp"], body)).encode()
    for part in headers.get("webhook-signature", "").split(" "):
        version, _, signature = part.partition(",")
        if version != "v1a":
            continue
        try:
            key.verify(base64.b64decode(signature), signed)
            return True
        except Exception:
            continue
    return False


class Listener:
    def __init__(self):
        self.lock = threading.Lock()
        self.deliveries = []
        self.modes = {}
        self.secrets = {}  # path -> [whsec_… or whpk_…]
        self.in_flight = {}  # webhook-id -> deliveries of it under way now
        self.overlaps = []  # (path, webhook-id) of events delivered twice at once
        self.hung = threading.Event()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode()
                headers = {key.lower(): value for key, value in self.headers.items()}
                listener.receive(self, self.path, headers, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.server.server_address[1], path)

    def set(self, path, mode=None, secrets=None):
        with self.lock:
            if mode is not None:
                self.modes[path] = mode
            if secrets is not None:
                self.secrets[path] = list(secrets)

    def receive(self, handler, path, headers, body):
        with self.lock:
            mode = self.modes.get(path, "ok")
            secrets = list(self.secrets.get(path, []))
            message = headers.get("webhook-id")
            if self.in_flight.get(message):
                self.overlaps.append((path, message))
            self.in_flight[message] = self.in_flight.get(message, 0) + 1
        verified = []
        for secret in secrets:
            if secret.startswith("whpk_"):
                if verify_v1a(secret, body, headers):
                    verified.append(secret)
                continue
            try:
                Webhook(secret).verify(body, headers)
                verified.append(secret)
            except WebhookVerificationError:
                pass
        try:
            if mode == "hang":
                self.hung.set()
                time.sleep(60)
                return
            status = {"ok": 204, "fail": 500, "gone": 410, "busy": 429}[mode]
            if mode == "ok":
                # Held a moment, so that a second delivery of the same event at once would overlap it.
                time.sleep(0.05)
            handler.send_response(status)
            if mode == "busy":
                handler.send_header("Retry-After", "1")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        finally:
            with self.lock:
                self.in_flight[message] -= 1
                if mode in ("ok",) and verified:
                    self.deliveries.append(Delivery(path, headers, body, verified))
                elif mode == "ok":
                    # Recorded unverified: the test fails on it.
                    self.deliveries.append(Delivery(path, headers, body, []))

    def received(self, path=None):
        with self.lock:
            return [d for d in self.deliveries if path is None or d.path == path]

    def wait_for(self, predicate, timeout=60, what="deliveries"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.1)
        raise AssertionError("timed out waiting for %s; received %s" % (
            what, [(d.path, d.type, d.user, d.id) for d in self.received()]))

    def close(self):
        self.server.shutdown()
        self.server.server_close()
