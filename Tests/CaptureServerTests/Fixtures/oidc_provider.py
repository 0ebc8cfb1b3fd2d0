"""A real OpenID Connect provider (PyPI's oidc-provider-mock, built on Authlib) on loopback for the tests.

Prints its port, serves until its standard input closes (the test's stop()), then exits. The issuer is
http://localhost:<port>. Nonces are required, as a provider in the field would have them.

A test may name one fault for the token endpoint's reply (`PUT /_faults` with `{"token": "<fault>"}`,
`DELETE /_faults` to clear it); until then every request, the token endpoint's included, reaches the provider and
comes back untouched. The provider still does its part (checks the code, signs the ID token); a fault only
alters what it answered, or how:

  bad_signature   the ID token's signature bytes altered
  wrong_audience  the ID token for another client      } decoded, the one claim changed,
  expired         an ID token that expired an hour ago } and signed again with the
  wrong_nonce     an ID token for another sign-in      } provider's own key
  slow            the reply after SLOW_SECONDS (longer than the service's 10 s for a provider call)
  oversized       the reply padded past the service's 256 KiB cap (still valid JSON)
  no_reply        the connection closed with no reply (a provider that went down mid-request)

`POST /_rotate_key` makes the provider rotate its signing key, as providers do: it signs with a new key (a new
`kid`) and publishes only that one from then on.

The provider also revokes tokens (RFC 7009, Authlib's RevocationEndpoint over the provider's own token store) at
`/oauth2/revoke`, published as `revocation_endpoint` in its discovery document as Sign in with Apple publishes
its own. `PUT /_faults` with `{"revoke": "unavailable"}` makes it answer 503 until cleared. `GET
/_refresh_tokens?sub=<subject>` lists the refresh tokens the provider holds live for one of its users.
"""
import base64
import json
import socket
import sys
import threading
import time

import flask
import oidc_provider_mock
import oidc_provider_mock._storage
import werkzeug.serving
from authlib import jose
from authlib.oauth2.rfc7009 import RevocationEndpoint
from urllib.parse import parse_qs

SLOW_SECONDS = 12
OVERSIZED_BYTES = 300 * 1024
TOKEN_FAULTS = {"bad_signature", "wrong_audience", "expired", "wrong_nonce", "slow", "oversized", "no_reply"}
REVOKE_FAULTS = {"unavailable"}


def _b64decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _b64encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Faults:
    """WSGI middleware in front of the provider's app: the control endpoint, and the named fault, if any."""

    def __init__(self, app):
        self.app = app
        self.token_fault = None
        # The provider's signing key lives in its per-app storage, which the app hands to each request; one
        # request context is enough to reach it (the key is made once, with the app).
        with app.test_request_context():
            app.preprocess_request()
            self.storage = oidc_provider_mock._storage.storage._get_current_object()
        self.key = self.storage.jwk
        self.revoke_fault = None
        add_revocation(app, self.storage)

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == "/_faults":
            return self.control(environ, start_response)
        if path == "/_refresh_tokens":
            subject = parse_qs(environ.get("QUERY_STRING", "")).get("sub", [""])[0]
            live = [token for token in self.storage.refresh_tokens() if token.user_id == subject]
            body = json.dumps({"live": [token.token for token in live]}).encode()
            start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        if path == "/oauth2/revoke" and self.revoke_fault == "unavailable":
            start_response("503 Service Unavailable", [("Content-Type", "text/plain"), ("Retry-After", "1")])
            return [b"down for maintenance"]
        if path == "/.well-known/openid-configuration":
            return self.publishing_revocation(environ, start_response)
        if path == "/_rotate_key" and environ["REQUEST_METHOD"] == "POST":
            self.key = self.storage.jwk = jose.RSAKey.generate_key(is_private=True)
            start_response("204 No Content", [])
            return [b""]
        fault = self.token_fault if path == "/oauth2/token" else None
        if fault is None:
            return self.app(environ, start_response)
        if fault == "no_reply":
            connection = environ["werkzeug.socket"]
            connection.shutdown(socket.SHUT_RDWR)
            raise ConnectionResetError("fault no_reply")  # werkzeug drops the request quietly
        if fault == "slow":
            time.sleep(SLOW_SECONDS)
            return self.app(environ, start_response)
        # The provider's own reply, caught, altered, then sent.
        caught = {}

        def catch(status, headers, exc_info=None):
            caught.update(status=status, headers=headers)
        body = b"".join(self.app(environ, catch))
        if caught["status"].startswith("200"):
            body = self.alter(fault, body)
        headers = [(name, value) for name, value in caught["headers"] if name.lower() != "content-length"]
        start_response(caught["status"], headers + [("Content-Length", str(len(body)))])
        return [body]

    def publishing_revocation(self, environ, start_response):
        caught = {}

        def catch(status, headers, exc_info=None):
            caught.update(status=status, headers=headers)
        document = json.loads(b"".join(self.app(environ, catch)))
        document["revocation_endpoint"] = document["token_endpoint"].replace("/oauth2/token", "/oauth2/revoke")
        body = json.dumps(document).encode()
        headers = [(name, value) for name, value in caught["headers"] if name.lower() != "content-length"]
        start_response(caught["status"], headers + [("Content-Length", str(len(body)))])
        return [body]

    def alter(self, fault, body):
        if fault == "oversized":
            return body + b" " * OVERSIZED_BYTES
        reply = json.loads(body)
        header, payload, signature = reply["id_token"].split(".")
        if fault == "bad_signature":
            altered = bytearray(_b64decode(signature))
            altered[len(altered) // 2] ^= 0x01
            reply["id_token"] = "%s.%s.%s" % (header, payload, _b64encode(bytes(altered)))
        else:
            claims = json.loads(_b64decode(payload))
            if fault == "wrong_audience":
                claims["aud"] = "someone-elses-client"
            elif fault == "expired":
                claims["iat"] = int(time.time()) - 7200
                claims["exp"] = int(time.time()) - 3600
            elif fault == "wrong_nonce":
                claims["nonce"] = "a-nonce-from-another-sign-in"
            signed = jose.JsonWebSignature().serialize_compact(
                json.loads(_b64decode(header)), json.dumps(claims).encode(), self.key)
            reply["id_token"] = signed.decode() if isinstance(signed, bytes) else signed
        return json.dumps(reply).encode()

    def control(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        if method == "DELETE":
            self.token_fault = self.revoke_fault = None
        elif method == "PUT":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            asked = json.loads(environ["wsgi.input"].read(length) or b"{}")
            if "revoke" in asked and asked["revoke"] in REVOKE_FAULTS:
                self.revoke_fault = asked["revoke"]
            elif asked.get("token") in TOKEN_FAULTS:
                self.token_fault = asked["token"]
            else:
                start_response("400 Bad Request", [("Content-Type", "text/plain")])
                known = sorted(TOKEN_FAULTS) + ["revoke: " + name for name in sorted(REVOKE_FAULTS)]
                return [b"unknown fault; one of: " + ", ".join(known).encode()]
        else:
            start_response("405 Method Not Allowed", [("Allow", "PUT, DELETE")])
            return [b""]
        start_response("204 No Content", [])
        return [b""]


def add_revocation(app, storage):
    """RFC 7009 at /oauth2/revoke: Authlib's endpoint, registered on the provider's own authorization server, finds
    and removes tokens in the provider's own store (a refresh token with the access token it came with)."""

    class Revocation(RevocationEndpoint):
        CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

        def query_token(self, token_string, token_type_hint):
            if token_type_hint == "access_token":
                return None  # only refresh tokens are kept by a client that revokes
            return storage.get_refresh_token(token_string)

        def revoke_token(self, token, request):
            storage.remove_refresh_token(token.token)
            storage.remove_access_token(token.access_token)

    with app.test_request_context():
        app.preprocess_request()
        server = flask.g._authlib_authorization_server
    server.register_endpoint(Revocation)
    app.add_url_rule(
        "/oauth2/revoke", "revoke", lambda: server.create_endpoint_response("revocation"), methods=["POST"])


def main() -> None:
    app = Faults(oidc_provider_mock.app(require_nonce=True))
    # As oidc_provider_mock.run_server_in_thread serves it, with the fault layer in front.
    server = werkzeug.serving.make_server("localhost", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, args=(0.1,), daemon=True).start()
    print(server.server_port, flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
