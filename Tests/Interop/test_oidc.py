"""OpenID Connect clients nobody here wrote (Authlib's OAuth 2.0 client and its `authlib.jose` / `authlib.oidc` ID-token
checks) sign in through the service configured with nothing but its issuer URL: discovery, the authorization endpoint
in front of the flow pages (the page's own Capture API call is made as the page makes it), code + PKCE, the ID token
checked against the JWKS (signature, iss, aud, exp, nonce, at_hash), userinfo, refresh, single sign-on, prompt=none,
RP-initiated logout; the same under Akamai Hosted Login's paths; and the attacks of docs/threat-model.md's OpenID
Connect section (code injection, mix-up, token substitution, hostile requests)."""

import base64
import json
import pathlib
import sys
import time
import urllib.parse
import uuid

import httpx
import pytest
from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from conftest import HTTP_TIMEOUT, PASSWORD, ROOT, _binary, _test_settings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from capture_instance import CaptureInstance  # noqa: E402

CUSTOMER = "cust-0042"
WEB_RP = "oidc-web"
WEB_CALLBACK = "https://rp.example.test/callback"
WEB_LOGGED_OUT = "https://rp.example.test/bye"
NATIVE_RP = "oidc-native"
NATIVE_CALLBACK = "com.example.rp:/oauth2redirect"
SCOPES = "openid profile email phone"


class Provider:
    def __init__(self, instance):
        self.instance = instance
        self.base = instance.base

    def get(self, path, **kwargs):
        return httpx.get(path if path.startswith("http") else self.base + path,
                         **{"timeout": HTTP_TIMEOUT, "follow_redirects": False, **kwargs})

    def post(self, path, **kwargs):
        return httpx.post(path if path.startswith("http") else self.base + path, **{"timeout": HTTP_TIMEOUT, **kwargs})


@pytest.fixture(scope="module")
def provider():
    server_bin = _binary("CAPTURE_SERVER_BIN", ".build/debug/capture-server")
    capturectl = _binary("CAPTURECTL_BIN", str(server_bin.parent / "capturectl"))

    def configure(service, settings):
        service["openIDConnect"] = {"hostedLoginCustomerId": CUSTOMER}

    instance = CaptureInstance(server_bin, capturectl, ROOT, _test_settings, "oidc", configure)
    try:
        instance.add_client(WEB_RP, ["login_client"],
                            ["--redirect-uri", WEB_CALLBACK, "--response-type", "code"])
        public = instance.capturectl("client", "add", NATIVE_RP, "--name", "Native RP", "--redirect-uri",
                                     NATIVE_CALLBACK, "--response-type", "code", "--json", timeout=60)
        assert public.returncode == 0, public.stderr
        instance.start()
        provider = Provider(instance)
        # The web client registers where logout may send the browser, and asks for ES256 (client metadata kept as
        # Janrain's client settings).
        for key, value in [("post_logout_redirect_uris", WEB_LOGGED_OUT), ("id_token_signed_response_alg", "ES256")]:
            reply = provider.post("/settings/set", data={
                "client_id": WEB_RP, "client_secret": instance.secrets[WEB_RP], "key": key, "value": value})
            assert reply.status_code == 200 and reply.json()["stat"] == "ok", reply.text
        yield provider
    finally:
        instance.close()


def discover(provider, issuer):
    """What a relying party configured with only the issuer learns (OpenID Connect Discovery §4)."""
    reply = provider.get(issuer + "/.well-known/openid-configuration")
    assert reply.status_code == 200, reply.text
    document = reply.json()
    assert document["issuer"] == issuer
    keys = provider.get(document["jwks_uri"])
    assert keys.status_code == 200
    assert all("d" not in key and "p" not in key for key in keys.json()["keys"]), "no private key material"
    return document, JsonWebKey.import_key_set(keys.json())


def web_client(provider):
    return OAuth2Client(client_id=WEB_RP, client_secret=provider.instance.secrets[WEB_RP],
                        token_endpoint_auth_method="client_secret_basic", redirect_uri=WEB_CALLBACK, scope=SCOPES,
                        code_challenge_method="S256", timeout=HTTP_TIMEOUT)


def native_client():
    return OAuth2Client(client_id=NATIVE_RP, token_endpoint_auth_method="none", redirect_uri=NATIVE_CALLBACK,
                        scope=SCOPES, code_challenge_method="S256", timeout=HTTP_TIMEOUT)


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def page_signs_up(provider, page_url, cookies=None):
    """What the sign-in page does when the person registers: its Capture API call, carrying the sealed request."""
    page = query_of(page_url)
    assert set(page) >= {"client_id", "oidc_request", "response_type"}, page
    email = "oidc-%s@example.com" % uuid.uuid4().hex[:12]
    reply = provider.post("/oauth/register_native_traditional", data={
        "client_id": page["client_id"], "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": page["response_type"], "redirect_uri": page_url, "oidc_request": page["oidc_request"],
        "emailAddress": email, "displayName": "Oidc Person", "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD,
    })
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["stat"] == "ok", body
    assert "access_token" not in body and "authorization_code" not in body, "the code goes only to the client"
    return body["redirect_to"], email, reply.cookies


class SignIn:
    def __init__(self, client, document, keys, token, nonce, email, session):
        self.client, self.document, self.keys = client, document, keys
        self.token, self.nonce, self.email, self.session = token, nonce, email, session


def sign_in(provider, client, issuer, extra=None):
    document, keys = discover(provider, issuer)
    verifier, nonce, state = generate_token(64), generate_token(20), generate_token(16)
    url, _ = client.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier, nonce=nonce,
                                             state=state, **(extra or {}))
    to_page = provider.get(url)
    assert to_page.status_code == 302, to_page.text
    page_url = to_page.headers["location"]
    assert urllib.parse.urlsplit(page_url).path == "/flows/webViewSignIn"
    assert provider.get(page_url).status_code == 200, "the sign-in page opens for the client"
    back, email, session = page_signs_up(provider, page_url)
    assert back.startswith(client.redirect_uri + "?")
    answer = query_of(back)
    assert answer["state"] == state and answer["iss"] == issuer, answer
    token = client.fetch_token(document["token_endpoint"], authorization_response=back, code_verifier=verifier)
    return SignIn(client, document, keys, token, nonce, email, session)


def checked_id_token(signed_in, token=None, nonce=True):
    """Authlib's OpenID Connect Core §3.1.3.7 checks of the ID token (CodeIDToken: iss, aud, exp, iat, nonce, at_hash)."""
    token = token or signed_in.token
    claims = jwt.decode(
        token["id_token"], signed_in.keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "values": [signed_in.document["issuer"]]},
                        "aud": {"essential": True, "values": [signed_in.client.client_id]}},
        claims_params={"nonce": signed_in.nonce if nonce else None, "client_id": signed_in.client.client_id,
                       "access_token": token["access_token"]})
    claims.validate(leeway=5)
    return claims


def userinfo(endpoint, token):
    return httpx.get(endpoint, headers={"Authorization": "Bearer " + token["access_token"]}, timeout=HTTP_TIMEOUT)


def header_of(compact):
    part = compact.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_a_web_client_signs_in_reads_userinfo_refreshes_and_logs_out(provider):
    client = web_client(provider)
    signed_in = sign_in(provider, client, provider.base)
    claims = checked_id_token(signed_in)
    assert header_of(signed_in.token["id_token"])["alg"] == "ES256", "the client asked for ES256"
    assert claims["amr"] == ["pwd"] and claims["auth_time"] <= claims["iat"] and claims["sid"]
    assert set(signed_in.token["scope"].split()) == set(SCOPES.split())

    info = client.get(signed_in.document["userinfo_endpoint"])
    assert info.status_code == 200, info.text
    assert info.json()["sub"] == claims["sub"]
    assert info.json()["email"] == signed_in.email and info.json()["email_verified"] is False
    assert info.json()["name"] == "Oidc Person"
    posted = httpx.post(signed_in.document["userinfo_endpoint"], timeout=HTTP_TIMEOUT,
                        data={"access_token": signed_in.token["access_token"]})
    assert posted.status_code == 200 and posted.json()["sub"] == claims["sub"]

    refreshed = client.refresh_token(signed_in.document["token_endpoint"],
                                     refresh_token=signed_in.token["refresh_token"])
    again = checked_id_token(signed_in, refreshed, nonce=False)
    assert again["sub"] == claims["sub"] and again["auth_time"] == claims["auth_time"] and "nonce" not in again

    # Single sign-on: the browser's session signs the person in again without the pages, prompt=none included.
    verifier, nonce = generate_token(64), generate_token(20)
    url, state = client.create_authorization_url(signed_in.document["authorization_endpoint"], code_verifier=verifier,
                                                 nonce=nonce, prompt="none")
    silent = provider.get(url, cookies=signed_in.session)
    assert silent.status_code == 302 and silent.headers["location"].startswith(WEB_CALLBACK + "?code="), \
        silent.headers.get("location")
    assert provider.get(url).headers["location"].startswith(WEB_CALLBACK + "?error=login_required")
    # A sign-in older than max_age, or prompt=login, goes to the page again despite the session.
    for asked in ({"max_age": "0"}, {"prompt": "login"}):
        fresh, _ = client.create_authorization_url(signed_in.document["authorization_endpoint"],
                                                   code_verifier=generate_token(64), nonce="n", **asked)
        if asked.get("max_age") == "0":
            time.sleep(1.1)  # auth_time is in whole seconds
        again = provider.get(fresh, cookies=signed_in.session)
        assert urllib.parse.urlsplit(again.headers["location"]).path == "/flows/webViewSignIn", asked

    logout = provider.get(signed_in.document["end_session_endpoint"], cookies=signed_in.session, params={
        "id_token_hint": refreshed["id_token"], "post_logout_redirect_uri": WEB_LOGGED_OUT, "state": "s1"})
    assert logout.status_code == 302 and logout.headers["location"] == WEB_LOGGED_OUT + "?state=s1"
    assert "Max-Age=0" in logout.headers["set-cookie"]
    assert userinfo(signed_in.document["userinfo_endpoint"], refreshed).status_code == 401
    assert provider.get(url, cookies=signed_in.session).headers["location"].startswith(
        WEB_CALLBACK + "?error=login_required"), "the session ended with its tokens"


def test_a_native_app_signs_in_through_hosted_login_paths(provider):
    issuer = provider.base + "/" + CUSTOMER + "/login"
    client = native_client()
    signed_in = sign_in(provider, client, issuer)
    claims = checked_id_token(signed_in)
    assert header_of(signed_in.token["id_token"])["alg"] == "RS256"
    assert signed_in.document["userinfo_endpoint"] == provider.base + "/" + CUSTOMER + "/profiles/oidc/userinfo"
    for path in ("/profiles/oidc/userinfo", "/oidc/userinfo"):
        reply = client.get(provider.base + "/" + CUSTOMER + path)
        assert reply.status_code == 200 and reply.json()["sub"] == claims["sub"]


def test_the_service_and_hosted_login_documents_agree(provider):
    own, _ = discover(provider, provider.base)
    hosted, _ = discover(provider, provider.base + "/" + CUSTOMER + "/login")
    oauth = provider.get("/.well-known/oauth-authorization-server").json()
    for key in ("response_types_supported", "code_challenge_methods_supported", "id_token_signing_alg_values_supported",
                "scopes_supported"):
        assert own[key] == hosted[key], key
    assert "code" in oauth["response_types_supported"] and own["token_endpoint"] == oauth["token_endpoint"]


def authorize_url(provider, **parameters):
    base = {"client_id": WEB_RP, "redirect_uri": WEB_CALLBACK, "response_type": "code", "scope": "openid",
            "state": "st", "nonce": "n"}
    base.update(parameters)
    return provider.base + "/oidc/authorize?" + urllib.parse.urlencode({k: v for k, v in base.items() if v is not None})


@pytest.mark.parametrize("parameters, error", [
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"response_type": "id_token"}, "unsupported_response_type"),
    ({"request": "eyJhbGciOiJub25lIn0.e30."}, "request_not_supported"),
    ({"request_uri": "https://evil.example/r"}, "request_uri_not_supported"),
    ({"claims": json.dumps({"userinfo": {"x%d" % i: None for i in range(400)}})}, "invalid_request"),
    ({"prompt": "none login"}, "invalid_request"),
    ({"max_age": "-1"}, "invalid_request"),
    ({"response_mode": "fragment"}, "invalid_request"),
])
def test_hostile_authorization_requests_go_back_as_errors_and_issue_nothing(provider, parameters, error):
    reply = provider.get(authorize_url(provider, **parameters))
    assert reply.status_code == 302, reply.text
    answer = query_of(reply.headers["location"])
    assert answer["error"] == error and answer["state"] == "st" and "code" not in answer


@pytest.mark.parametrize("parameters", [
    {"redirect_uri": "https://evil.example/callback"},
    {"redirect_uri": WEB_CALLBACK + "/"},
    {"redirect_uri": WEB_CALLBACK + "?x=1"},
    {"client_id": "nobody"},
    {"redirect_uri": None},
])
def test_an_unregistered_redirect_uri_or_client_gets_a_page_never_a_redirect(provider, parameters):
    reply = provider.get(authorize_url(provider, **parameters))
    assert reply.status_code == 400 and "location" not in reply.headers
    assert reply.headers["content-type"].startswith("text/html")


def test_a_public_client_without_pkce_is_refused(provider):
    reply = provider.get(authorize_url(provider, client_id=NATIVE_RP, redirect_uri=NATIVE_CALLBACK))
    assert query_of(reply.headers["location"])["error"] == "invalid_request"


def test_a_code_is_bound_to_its_client_redirect_and_verifier(provider):
    """Code injection: a code stolen from one client's redirect is no use to another client, another redirect URI or
    without the verifier its request was bound to."""
    client = native_client()
    document, _ = discover(provider, provider.base)
    verifier = generate_token(64)
    url, _ = client.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier, nonce="n")
    back, _, _ = page_signs_up(provider, provider.get(url).headers["location"])
    code = query_of(back)["code"]

    def exchange(**fields):
        return provider.post(document["token_endpoint"], data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": NATIVE_CALLBACK,
            "client_id": NATIVE_RP, "code_verifier": verifier, **fields})

    assert exchange(code_verifier=generate_token(64)).json()["error"] == "invalid_grant"
    assert exchange(redirect_uri="com.example.rp:/other").json()["error"] == "invalid_grant"
    stolen = provider.post(document["token_endpoint"], auth=(WEB_RP, provider.instance.secrets[WEB_RP]), data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": WEB_CALLBACK, "code_verifier": verifier})
    assert stolen.json()["error"] == "invalid_grant"
    good = exchange()
    assert good.status_code == 200 and "id_token" in good.json()
    assert exchange().json()["error"] == "invalid_grant", "a code works once"


def test_a_tampered_or_expired_sealed_request_signs_no_one_in(provider):
    client = web_client(provider)
    document, _ = discover(provider, provider.base)
    url, _ = client.create_authorization_url(document["authorization_endpoint"], code_verifier=generate_token(64),
                                             nonce="n")
    page_url = provider.get(url).headers["location"]
    sealed = query_of(page_url)["oidc_request"]
    flipped = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    tampered = page_url.replace(sealed, flipped)
    assert provider.get(tampered).status_code == 400
    with pytest.raises(AssertionError):
        page_signs_up(provider, tampered)
    other_client = page_url.replace("client_id=" + WEB_RP, "client_id=" + NATIVE_RP)
    assert provider.get(other_client).status_code == 400


@pytest.mark.parametrize("hint", ["eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "not-a-jwt"])
def test_a_logout_hint_we_did_not_sign_ends_nothing(provider, hint):
    reply = provider.get("/oidc/logout", params={"id_token_hint": hint, "post_logout_redirect_uri": WEB_LOGGED_OUT})
    assert reply.status_code == 400 and "location" not in reply.headers


def test_a_logout_hint_signed_by_another_key_is_refused(provider):
    other = JsonWebKey.generate_key("RSA", 2048, is_private=True)
    forged = jwt.encode({"alg": "RS256", "kid": "RS256"}, {"iss": provider.base, "aud": WEB_RP, "sub": "x",
                                                            "sid": "y"}, other).decode()
    reply = provider.get("/oidc/logout", params={"id_token_hint": forged})
    assert reply.status_code == 400


def test_logout_sends_the_browser_only_where_the_client_registered(provider):
    signed_in = sign_in(provider, web_client(provider), provider.base)
    reply = provider.get("/oidc/logout", params={"id_token_hint": signed_in.token["id_token"],
                                                 "post_logout_redirect_uri": "https://evil.example/"})
    assert reply.status_code == 400 and "location" not in reply.headers
    assert userinfo(signed_in.document["userinfo_endpoint"], signed_in.token).status_code == 200


def test_userinfo_answers_rfc_6750_errors(provider):
    reply = provider.get("/oidc/userinfo", headers={"Authorization": "Bearer nope"})
    assert reply.status_code == 401 and 'error="invalid_token"' in reply.headers["www-authenticate"]
    assert provider.get("/oidc/userinfo").status_code == 401


def test_a_key_rotation_while_tokens_are_live_breaks_nothing(provider):
    """`capturectl keys rotate` mid-run: ID tokens signed before it still verify against the JWKS (the old key stays
    published), refreshes and new sign-ins verify, and an old ID token still ends its session at logout."""
    client = web_client(provider)
    before = sign_in(provider, client, provider.base)
    old_kid = header_of(before.token["id_token"])["kid"]
    rotated = provider.instance.capturectl("keys", "rotate", "--json", timeout=60)
    assert rotated.returncode == 0, rotated.stderr
    document, keys = discover(provider, provider.base)
    kids = {key["kid"] for key in provider.get(document["jwks_uri"]).json()["keys"]}
    assert old_kid in kids and len(kids) >= 4, "the old key is published beside the new ones"
    before.keys = keys
    checked_id_token(before)
    refreshed = client.refresh_token(document["token_endpoint"], refresh_token=before.token["refresh_token"])
    checked_id_token(before, refreshed, nonce=False)
    after = sign_in(provider, web_client(provider), provider.base)
    checked_id_token(after)
    logout = provider.get(document["end_session_endpoint"], params={
        "id_token_hint": before.token["id_token"], "post_logout_redirect_uri": WEB_LOGGED_OUT})
    assert logout.status_code == 302, logout.text
    assert userinfo(document["userinfo_endpoint"], refreshed).status_code == 401
