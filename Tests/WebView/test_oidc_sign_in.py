"""An OpenID Connect client's sign-in in a real web view, as AppAuth drives one through ASWebAuthenticationSession:
the authorization URL Authlib builds opens the service's sign-in page, the person signs in there, the page sends the
browser to the client's redirect URI with the code (caught as the session's callback scheme), the code is exchanged
with the verifier for an ID token Authlib checks against the JWKS; the browser session the reply set then signs the
person in again with prompt=none, without the page (docs/oidc.md)."""

import json
import urllib.parse
import urllib.request

from authlib.common.security import generate_token
from authlib.integrations.httpx_client import OAuth2Client
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

from conftest import CLIENT_ID, PASSWORD

CALLBACK = "com.example.capturebridge:/social"


def fetch_json(url):
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.loads(reply.read())


def test_an_oidc_client_signs_in_through_the_page_and_again_without_it(server, host):
    email, _ = server.register(display_name="Web View OIDC")
    document = fetch_json(server.url("/.well-known/openid-configuration"))
    keys = JsonWebKey.import_key_set(fetch_json(document["jwks_uri"]))
    client = OAuth2Client(client_id=CLIENT_ID, token_endpoint_auth_method="none", redirect_uri=CALLBACK,
                          scope="openid email profile", code_challenge_method="S256", timeout=60)
    verifier, nonce = generate_token(64), generate_token(20)
    url, state = client.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier,
                                                 nonce=nonce, login_hint=email)
    host.callback_prefixes.append(CALLBACK)
    host.load(url)
    host.wait_for_event("onCaptureRenderComplete")
    assert host.run_js("document.querySelector('#signIn input[name=signInEmailAddress]').value") == email, \
        "login_hint fills the address"
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for(lambda: host.callbacks, timeout=30, what="the redirect to the client")
    back = host.callbacks[-1]
    answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query))
    assert answer["state"] == state and answer["iss"] == document["issuer"] and answer["code"]
    assert host.run_js("localStorage.getItem('janrainCaptureToken')") is None, "the page keeps no token"

    token = client.fetch_token(document["token_endpoint"], authorization_response=back, code_verifier=verifier)
    claims = jwt.decode(token["id_token"], keys, claims_cls=CodeIDToken,
                        claims_options={"iss": {"values": [document["issuer"]]}, "aud": {"values": [CLIENT_ID]}},
                        claims_params={"nonce": nonce, "client_id": CLIENT_ID, "access_token": token["access_token"]})
    claims.validate(leeway=5)
    assert claims["amr"] == ["pwd"]
    info = client.get(document["userinfo_endpoint"])
    assert info.json()["email"] == email and info.json()["name"] == "Web View OIDC"

    silent_verifier = generate_token(64)
    silent, _ = client.create_authorization_url(document["authorization_endpoint"], code_verifier=silent_verifier,
                                                nonce=generate_token(20), prompt="none")
    before = len(host.callbacks)
    host.run_js("window.location.assign(%s)" % json.dumps(silent))
    host.wait_for(lambda: len(host.callbacks) > before, timeout=30, what="single sign-on's redirect")
    again = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(host.callbacks[-1]).query))
    assert "code" in again and "error" not in again, again


def test_an_oidc_client_signs_in_through_a_customers_own_page(server, host, janrain_site):
    """With `oidc_sign_in_url`, /oidc/authorize opens the client's own Janrain page (through the drop-in loader, on
    its own origin); the page's sign-in carries the sealed request across origins and sends the browser back to the
    client with its code."""
    email, _ = server.register(display_name="Drop-in OIDC")
    document = fetch_json(server.url("/.well-known/openid-configuration"))
    callback = janrain_site.page("account.html")
    client = OAuth2Client(client_id="janrain-site", token_endpoint_auth_method="none", redirect_uri=callback,
                          scope="openid email", code_challenge_method="S256", timeout=60)
    verifier, nonce = generate_token(64), generate_token(20)
    url, state = client.create_authorization_url(document["authorization_endpoint"], code_verifier=verifier,
                                                 nonce=nonce)
    host.callback_prefixes.append(callback)
    host.load(url)
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    assert host.run_js("location.origin") == janrain_site.origin, "the customer's page, not the service's"
    host.wait_for_screen("signIn")
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for(lambda: host.callbacks, timeout=30, what="the redirect to the client")
    answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(host.callbacks[-1]).query))
    assert answer["state"] == state and answer["code"]
    token = client.fetch_token(document["token_endpoint"], authorization_response=host.callbacks[-1],
                               code_verifier=verifier)
    keys = JsonWebKey.import_key_set(fetch_json(document["jwks_uri"]))
    claims = jwt.decode(token["id_token"], keys, claims_cls=CodeIDToken,
                        claims_options={"iss": {"values": [document["issuer"]]}, "aud": {"values": ["janrain-site"]}},
                        claims_params={"nonce": nonce, "client_id": "janrain-site",
                                       "access_token": token["access_token"]})
    claims.validate(leeway=5)
    assert client.get(document["userinfo_endpoint"]).json()["email"] == email
