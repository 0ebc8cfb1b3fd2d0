"""A small HTTP proxy in front of the instance that plays the old Janrain app, so the tests can make that app slow,
strange or gone without touching it: `mode` is "pass" (forward as is), "slow" (wait `delay` seconds, then forward),
"garbage" (answer 200 with an HTML page), "wrong-shape" (answer Janrain's "ok" without what the call returns),
or "closed" (the listening port is closed: connections are refused). `calls` counts the requests by path that
reached the proxy."""

import collections
import http.server
import socket
import threading
import time

import httpx


class LegacyAppProxy:
    def __init__(self, target, port):
        self.target = target.rstrip("/")
        self.port = port
        self.mode = "pass"
        self.delay = 0.0
        self.calls = collections.Counter()
        self._server = None
        self._thread = None
        self.open()

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.port

    def total(self):
        return sum(self.calls.values())

    def open(self):
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                proxy.calls[self.path] += 1
                if proxy.mode == "garbage":
                    return self.answer(200, b"<html><body>502 Bad Gateway (not JSON)</body></html>", "text/html")
                if proxy.mode == "wrong-shape":
                    return self.answer(200, b'{"stat": "ok", "result": "not a record", "capture_user": 7}',
                                       "application/json")
                if proxy.mode == "slow":
                    time.sleep(proxy.delay)
                headers = {name: value for name, value in self.headers.items()
                           if name.lower() in ("authorization", "content-type", "accept")}
                try:
                    reply = httpx.post(proxy.target + self.path, content=body, headers=headers, timeout=60)
                except httpx.HTTPError:
                    return
                self.answer(reply.status_code, reply.content, reply.headers.get("content-type", "application/json"))

            def answer(self, status, body, content_type):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the service gave up waiting (its timeout): nobody reads this any more

        class Server(http.server.ThreadingHTTPServer):
            allow_reuse_address = True
            daemon_threads = True

        self._server = Server(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self):
        """The port closed: a connection is refused at once, as with an app that is down."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def set_mode(self, mode, delay=0.0):
        self.delay = delay
        if mode == "closed":
            self.close()
        elif self._server is None:
            self.open()
        self.mode = "pass" if mode == "closed" else mode

    def refuses_connections(self):
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) != 0
