"""Plays a recorded Janrain reply set (Tests/Fixtures/janrain-replies) over HTTP, as the app those replies came from
answered: every reply with HTTP 200 and its `stat`, the recorded invalid-client error for any call whose Basic
credentials are not the recording's client, `entity.find` paging on `id > N` (the recorded page for the first call,
nothing after it). It plays Janrain, not the thing under test: the pull is the code that talks to it."""

import base64
import http.server
import json
import pathlib
import threading
import urllib.parse

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "Fixtures" / "janrain-replies"
CLIENT_ID = "recordedowner00000000000000000000"
CLIENT_SECRET = "recordedsecret0000000000000000000"


def reply(name):
    return json.loads((FIXTURES / name).read_text())


class Recording:
    """A running player on a loopback port; `calls` holds each call's path and form (the secret never in them)."""

    def __init__(self):
        self.calls = []
        # How many entity.find calls answer 503 first (a Janrain node being replaced), before the recorded reply.
        self.unavailable = 0
        recording = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                recording.calls.append((self.path, form, self.headers.get("Authorization", "")))
                if self.path == "/entity.find" and recording.unavailable > 0:
                    recording.unavailable -= 1
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                expected = "Basic " + base64.b64encode(("%s:%s" % (CLIENT_ID, CLIENT_SECRET)).encode()).decode()
                if self.headers.get("Authorization") != expected:
                    body = reply("error-invalid-client.json")
                elif self.path == "/entityType":
                    body = reply("entityType.json")
                elif self.path == "/entity.count":
                    body = reply("entity.count.json")
                elif self.path == "/entity.find":
                    first = form.get("filter", "").startswith("id > 0")
                    body = reply("entity.find.json" if first else "entity.find-empty.json")
                else:
                    body = {"stat": "error", "code": 404, "error": "not_found", "error_description": "not recorded"}
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
