"""What a browser and a public OpenID Connect client do around the sign-in page, for tests whose subject is the
sign-in itself (an authenticator code, a passkey): open /oidc/authorize, take the page's sealed request, and after
the page's call redeem the code its `redirect_to` carries. The ID token's claims are read, not verified (test_oidc.py
verifies them with Authlib)."""

import base64
import json
import urllib.parse

import httpx
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge


class PublicClientSignIn:
    def __init__(self, base, client_id, callback, nonce=None):
        self.base, self.client_id, self.callback = base, client_id, callback
        self.verifier = generate_token(64)
        parameters = {"client_id": client_id, "redirect_uri": callback, "response_type": "code", "scope": "openid",
                      "code_challenge": create_s256_code_challenge(self.verifier), "code_challenge_method": "S256"}
        if nonce:
            parameters["nonce"] = nonce
        authorize = httpx.get(base + "/oidc/authorize", params=parameters, timeout=60)
        assert authorize.status_code == 302, authorize.text
        self.page_url = authorize.headers["location"]
        self.sealed = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.page_url).query))["oidc_request"]

    def page_fields(self):
        """What the page's sign-in call adds to its form."""
        return {"response_type": "code", "redirect_uri": self.page_url, "oidc_request": self.sealed}

    def id_token_claims(self, redirect_to):
        assert redirect_to.startswith(self.callback + "?code="), redirect_to
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(redirect_to).query))["code"]
        tokens = httpx.post(self.base + "/oauth/token", timeout=60, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": self.callback,
            "client_id": self.client_id, "code_verifier": self.verifier}).json()
        payload = tokens["id_token"].split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
