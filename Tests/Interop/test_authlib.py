"""Authlib (PyPI's OAuth library, 1.x, over httpx) drives the OAuth surface as a third party would: discovery
(RFC 8414), authorization code + PKCE S256 (RFC 7636), refresh-token rotation, introspection (RFC 7662) by a
confidential client, and revocation (RFC 7009). Nothing here builds an OAuth request by hand: the library does."""

import urllib.parse
import uuid

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.httpx_client import OAuth2Client
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from conftest import HTTP_TIMEOUT, PASSWORD, PUBLIC_CLIENT_ID

SIGN_IN_PAGE = "/flows/webViewSignIn"


@pytest.fixture(scope="module")
def metadata(server):
    reply = server.get("/.well-known/oauth-authorization-server")
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    found = AuthorizationServerMetadata(reply.json())
    found.validate()  # raises ValueError naming the first field RFC 8414 refuses
    return found


def public_client(server, **extra):
    """The native app: a public client, PKCE S256, no secret (Authlib sends client_id in the body)."""
    return OAuth2Client(client_id=PUBLIC_CLIENT_ID, token_endpoint_auth_method="none",
                        redirect_uri=server.url(SIGN_IN_PAGE), code_challenge_method="S256", timeout=HTTP_TIMEOUT,
                        **extra)


def backend_client(server, method="client_secret_basic"):
    """The app's backend: a confidential client made with `capturectl client add --confidential`."""
    return OAuth2Client(client_id=server.backend_client_id, client_secret=server.backend_secret,
                        token_endpoint_auth_method=method, revocation_endpoint_auth_method=method,
                        timeout=HTTP_TIMEOUT)


def capture_api(server, path, fields, **kwargs):
    reply = server.post(path, data=fields, **kwargs)
    assert reply.status_code == 200, "%s: %s %s" % (path, reply.status_code, reply.text)
    return reply.json()


def sign_up_for_code(server, authorization_url, verifier):
    """What a browser at `authorization_url` does: the authorization endpoint sends it to the sign-in page with the
    checked request sealed (`oidc_request`); the page's registration call carries it, and the reply sends the browser
    back to the client's redirect URI with the code. Returns (code, email)."""
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorization_url).query))
    assert query["code_challenge"] == create_s256_code_challenge(verifier)
    to_page = httpx.get(authorization_url, timeout=HTTP_TIMEOUT)
    assert to_page.status_code == 302, to_page.text[:500]
    page_url = to_page.headers["location"]
    page = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page_url).query))
    email = "authlib-%s@example.com" % uuid.uuid4().hex[:12]
    reply = capture_api(server, "/oauth/register_native_traditional", {
        "client_id": page["client_id"], "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": page["response_type"], "redirect_uri": page_url, "oidc_request": page["oidc_request"],
        "emailAddress": email, "displayName": "Authlib", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    assert reply["stat"] == "ok", reply
    assert "access_token" not in reply, "response_type=code hands out no token"
    back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(reply["redirect_to"]).query))
    assert back.get("state") == query.get("state")
    return back["code"], email


def signed_in(server, metadata):
    """A fresh user's tokens, through Authlib's authorization-code exchange with PKCE."""
    client = public_client(server)
    verifier = generate_token(64)
    url, _ = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    code, email = sign_up_for_code(server, url, verifier)
    token = client.fetch_token(metadata["token_endpoint"], grant_type="authorization_code", code=code,
                               code_verifier=verifier)
    return client, token, email


def entity(server, access_token):
    return capture_api(server, "/entity", {}, headers={"Authorization": "Bearer " + access_token})


def test_discovery_document_validates_and_names_this_service(server, metadata):
    assert metadata["issuer"] == server.base
    for key in ("authorization_endpoint", "token_endpoint", "revocation_endpoint", "introspection_endpoint"):
        assert metadata[key].startswith(server.base + "/"), (key, metadata[key])
    assert metadata["code_challenge_methods_supported"] == ["S256"], "plain PKCE is refused, so not advertised"
    assert {"authorization_code", "refresh_token"} <= set(metadata["grant_types_supported"])
    assert "code" in metadata["response_types_supported"]
    assert set(metadata["introspection_endpoint_auth_methods_supported"]) <= {"client_secret_basic", "client_secret_post"}
    # The authorization endpoint takes Authlib's authorization request as it builds it and opens the sign-in page.
    client = public_client(server)
    url, state = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=generate_token(64))
    page = httpx.get(url, timeout=HTTP_TIMEOUT, follow_redirects=True)
    assert page.status_code == 200, page.text[:500]
    assert page.headers["content-type"].startswith("text/html")
    assert urllib.parse.urlsplit(str(page.url)).path == SIGN_IN_PAGE


def test_authorization_code_with_pkce_is_exchanged_once(server, metadata):
    client = public_client(server)
    verifier = generate_token(64)
    url, _ = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    code, email = sign_up_for_code(server, url, verifier)

    # A wrong verifier is refused and does not burn the code.
    with pytest.raises(OAuthError) as wrong:
        public_client(server).fetch_token(metadata["token_endpoint"], grant_type="authorization_code", code=code,
                                          code_verifier=generate_token(64))
    assert wrong.value.error == "invalid_grant"

    token = client.fetch_token(metadata["token_endpoint"], grant_type="authorization_code", code=code,
                               code_verifier=verifier)
    assert token["token_type"] == "Bearer"
    assert token["expires_in"] > 0 and token["expires_at"] > 0
    assert token["access_token"] and token["refresh_token"] and token["access_token"] != token["refresh_token"]
    record = entity(server, token["access_token"])
    assert record["stat"] == "ok" and record["result"]["email"] == email

    # Authlib's own protected-resource call carries the token as a Bearer header.
    through_session = client.post(server.url("/entity"), data={})
    assert through_session.status_code == 200 and through_session.json()["result"]["email"] == email

    # The second redemption is refused and revokes what the first one issued (RFC 6749 §4.1.2).
    with pytest.raises(OAuthError) as replay:
        public_client(server).fetch_token(metadata["token_endpoint"], grant_type="authorization_code", code=code,
                                          code_verifier=verifier)
    assert replay.value.error == "invalid_grant"
    assert entity(server, token["access_token"])["error"] == "invalid_access_token"


def test_refresh_rotates_and_reuse_revokes_the_chain(server, metadata):
    client, first, _ = signed_in(server, metadata)
    second = client.refresh_token(metadata["token_endpoint"], refresh_token=first["refresh_token"])
    assert second["refresh_token"] != first["refresh_token"], "refresh tokens rotate on use"
    assert second["access_token"] != first["access_token"]
    assert entity(server, second["access_token"])["stat"] == "ok"

    # The rotated-out refresh token is refused, and presenting it revokes the whole chain (RFC 6819 §5.2.2.3).
    with pytest.raises(OAuthError) as reuse:
        public_client(server).refresh_token(metadata["token_endpoint"], refresh_token=first["refresh_token"])
    assert reuse.value.error == "invalid_grant"
    assert entity(server, second["access_token"])["error"] == "invalid_access_token"
    with pytest.raises(OAuthError) as after:
        public_client(server).refresh_token(metadata["token_endpoint"], refresh_token=second["refresh_token"])
    assert after.value.error == "invalid_grant"


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_introspection_by_a_confidential_client(server, metadata, method):
    _, token, email = signed_in(server, metadata)
    backend = backend_client(server, method)
    reply = backend.introspect_token(metadata["introspection_endpoint"], token=token["access_token"],
                                     token_type_hint="access_token")
    assert reply.status_code == 200, reply.text
    assert reply.headers["cache-control"] == "no-store"
    answer = reply.json()
    assert answer["active"] is True
    assert answer["client_id"] == PUBLIC_CLIENT_ID, "a backend may ask about its app's tokens"
    assert answer["token_type"] == "Bearer"
    assert answer["username"] == email
    assert answer["sub"] and isinstance(answer["exp"], int) and isinstance(answer["iat"], int)
    assert answer["exp"] > answer["iat"]

    refresh = backend.introspect_token(metadata["introspection_endpoint"], token=token["refresh_token"],
                                       token_type_hint="refresh_token").json()
    assert refresh["active"] is True and refresh["token_type"] == "refresh_token"

    unknown = backend.introspect_token(metadata["introspection_endpoint"], token=generate_token(43))
    assert unknown.status_code == 200 and unknown.json() == {"active": False}


def test_introspection_refuses_clients_that_do_not_authenticate(server, metadata):
    _, token, _ = signed_in(server, metadata)
    wrong = OAuth2Client(client_id=server.backend_client_id, client_secret="not-the-secret", timeout=HTTP_TIMEOUT)
    refused = wrong.introspect_token(metadata["introspection_endpoint"], token=token["access_token"])
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    assert refused.headers["www-authenticate"].lower().startswith("basic")
    public = public_client(server).introspect_token(metadata["introspection_endpoint"], token=token["access_token"])
    assert public.status_code == 401 and public.json()["error"] == "invalid_client"
    assert "active" not in public.json()


def test_revocation_signs_out_the_chain(server, metadata):
    client, token, _ = signed_in(server, metadata)
    reply = client.revoke_token(metadata["revocation_endpoint"], token=token["access_token"],
                                token_type_hint="access_token")
    assert reply.status_code == 200, reply.text
    assert entity(server, token["access_token"])["error"] == "invalid_access_token"
    backend = backend_client(server)
    for kind in ("access_token", "refresh_token"):
        answer = backend.introspect_token(metadata["introspection_endpoint"], token=token[kind]).json()
        assert answer == {"active": False}, kind
    with pytest.raises(OAuthError) as refresh:
        client.refresh_token(metadata["token_endpoint"], refresh_token=token["refresh_token"])
    assert refresh.value.error == "invalid_grant"

    # RFC 7009 §2.2: an unknown or already revoked token is still a 200.
    assert client.revoke_token(metadata["revocation_endpoint"], token=generate_token(43)).status_code == 200
    assert client.revoke_token(metadata["revocation_endpoint"], token=token["refresh_token"],
                               token_type_hint="refresh_token").status_code == 200


def test_revocation_by_refresh_token_and_only_by_the_tokens_client(server, metadata):
    client, token, _ = signed_in(server, metadata)
    # Another client may not sign this app's user out: 200 as RFC 7009 asks, and nothing is revoked.
    other = backend_client(server).revoke_token(metadata["revocation_endpoint"], token=token["refresh_token"],
                                                token_type_hint="refresh_token")
    assert other.status_code == 200, other.text
    assert entity(server, token["access_token"])["stat"] == "ok"

    reply = client.revoke_token(metadata["revocation_endpoint"], token=token["refresh_token"],
                                token_type_hint="refresh_token")
    assert reply.status_code == 200, reply.text
    assert entity(server, token["access_token"])["error"] == "invalid_access_token"
