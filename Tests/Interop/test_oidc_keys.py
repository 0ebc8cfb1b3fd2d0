"""Issue 53: the service's OpenID Connect signing keys as a relying party reads them. The JWKS at /oidc/jwks is
imported key by key with Authlib's `authlib.jose` (a library nobody here wrote): an RSA and a P-256 signing key, each
`kid` its RFC 7638 thumbprint as Authlib computes it, never a private member; `capturectl keys list` names the same
keys on the database and through the admin API, and `keys rotate` leaves the replaced key retiring. (Tokens signed
by the service and verified by Authlib: SigningKeysTests.aSignedTokenVerifiesWithAuthlibAgainstTheJWKS.) Runs on the
backend CAPTURE_TEST_BACKEND names."""

import json
import subprocess

# Authlib 1.x warns that joserfc succeeds authlib.jose; jose is what its OpenID Connect client still uses.
from authlib.jose import JsonWebKey
from conftest import ROOT

PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}


def capturectl(server, *arguments, env=None):
    return subprocess.run(
        [str(server.capturectl), *arguments, "--db", server.db_path, "--settings", str(server.settings)],
        cwd=str(ROOT), env=env or server.env, capture_output=True, text=True, timeout=300)


def jwks(server):
    reply = server.get("/oidc/jwks")
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.headers["cache-control"] == "public, max-age=300"
    return reply.json()


def test_the_jwks_holds_an_rsa_and_an_ec_signing_key_authlib_imports_with_their_thumbprints(server):
    document = jwks(server)
    assert set(document) == {"keys"}
    by_alg = {}
    for member in document["keys"]:
        assert not PRIVATE_MEMBERS & set(member), member
        assert member["use"] == "sig"
        key = JsonWebKey.import_key(member)
        assert key.public_only and key.private_key is None
        assert key.thumbprint() == member["kid"]
        assert key.as_dict(is_private=False)["kty"] == member["kty"]
        by_alg[member["alg"]] = (key, member)
    assert set(by_alg) == {"RS256", "ES256"}
    rsa_key, rsa = by_alg["RS256"]
    assert rsa["kty"] == "RSA" and rsa["e"] == "AQAB"
    assert rsa_key.get_public_key().key_size == 2048
    ec_key, ec = by_alg["ES256"]
    assert ec["kty"] == "EC" and ec["crv"] == "P-256"
    assert ec_key.get_public_key().curve.name == "secp256r1"
    # The whole set imports as one too, each key found by its kid.
    key_set = JsonWebKey.import_key_set(document)
    for member in document["keys"]:
        assert key_set.find_by_kid(member["kid"]).thumbprint() == member["kid"]


def test_capturectl_lists_the_published_keys_and_a_rotation_leaves_the_old_one_retiring(server):
    published = {member["kid"]: member["alg"] for member in jwks(server)["keys"]}
    listed = capturectl(server, "keys", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    active = {row["kid"]: row["alg"] for row in rows if row["state"] == "active"}
    assert active == published
    for row in rows:
        assert set(row) == {"kid", "alg", "state", "created_at", "retires_at"}

    rotated = capturectl(server, "keys", "rotate", "--algorithm", "RS256", "--json")
    assert rotated.returncode == 0, rotated.stderr
    [made] = json.loads(rotated.stdout)
    assert made["alg"] == "RS256" and made["state"] == "active" and made["kid"] not in published

    # The same rows through the admin API of the running service.
    env = dict(server.env, CAPTURE_ADMIN_KEY=server.admin_key())
    remote = subprocess.run(
        [str(server.capturectl), "keys", "list", "--json", "--server", server.base], cwd=str(ROOT), env=env,
        capture_output=True, text=True, timeout=120)
    assert remote.returncode == 0, remote.stderr
    states = {row["kid"]: row["state"] for row in json.loads(remote.stdout)}
    old_rsa = next(kid for kid, alg in published.items() if alg == "RS256")
    assert states[old_rsa] == "retiring" and states[made["kid"]] == "active"
    assert json.loads(remote.stdout) == json.loads(capturectl(server, "keys", "list", "--json").stdout)
