"""Writes webauthn-vectors.json: registrations and sign-ins made by Tests/PythonSupport/soft_authenticator.py (Yubico's
fido2 structures, cryptography's keys) for RelyingPartyTests. Run again only to change the vectors."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../PythonSupport"))
from soft_authenticator import SoftAuthenticator, b64url  # noqa: E402

RP = {"id": "id.example.com", "name": "example"}
ORIGIN = "https://id.example.com"
vectors = []
for name, algorithm, attestation in [("es256", -7, "none"), ("rs256", -257, "none"), ("eddsa", -8, "none"),
                                     ("es256-packed", -7, "packed")]:
    authenticator = SoftAuthenticator(algorithm=algorithm, attestation=attestation)
    create_challenge, get_challenge = os.urandom(32), os.urandom(32)
    registration = authenticator.create({
        "rp": RP, "user": {"id": b64url(b"user-1"), "name": "a@example.com", "displayName": "A"},
        "challenge": b64url(create_challenge),
        "pubKeyCredParams": [{"type": "public-key", "alg": algorithm}],
    }, ORIGIN)
    assertion = authenticator.get({"rpId": RP["id"], "challenge": b64url(get_challenge)}, ORIGIN)
    vectors.append({
        "name": name, "rpId": RP["id"], "origin": ORIGIN, "userHandle": b64url(b"user-1"),
        "createChallenge": b64url(create_challenge), "registration": json.dumps(registration),
        "getChallenge": b64url(get_challenge), "assertion": json.dumps(assertion),
    })
with open(os.path.join(os.path.dirname(__file__), "webauthn-vectors.json"), "w") as out:
    json.dump(vectors, out, indent=1)
    out.write("\n")
