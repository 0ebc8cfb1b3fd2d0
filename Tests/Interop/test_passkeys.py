"""Passkeys through the Capture API, made and used by a software authenticator (Yubico's fido2 structures,
cryptography's keys: Tests/PythonSupport/soft_authenticator.py) as a native host's platform API would: adding one to a
signed-in account, signing in with it (discoverable and address-first), and the attacks on each ceremony."""

import json
import sys
import uuid

import pytest

from conftest import PASSWORD, PUBLIC_CLIENT_ID, ROOT

sys.path.insert(0, str(ROOT / "Tests" / "PythonSupport"))
from oidc_browser import PublicClientSignIn  # noqa: E402
from soft_authenticator import SoftAuthenticator, unb64url  # noqa: E402

FLOW = {"client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US"}


def call(server, path, fields):
    reply = server.post(path, data=fields)
    assert reply.status_code == 200, "%s: %s %s" % (path, reply.status_code, reply.text)
    return reply.json()


def register_account(server):
    email = "passkey-%s@example.com" % uuid.uuid4().hex[:12]
    reply = call(server, "/oauth/register_native_traditional", dict(
        FLOW, form="registrationForm", emailAddress=email, displayName="Passkey", newPassword=PASSWORD,
        newPasswordConfirm=PASSWORD))
    assert reply["stat"] == "ok", reply
    return email, reply["access_token"]


def add_passkey(server, token, authenticator, name="Phone"):
    options = call(server, "/passkey/registration_options", {"access_token": token})
    assert options["stat"] == "ok", options
    credential = authenticator.create(options["options"], server.base)
    return call(server, "/passkey/register", {"access_token": token, "credential": json.dumps(credential), "name": name})


def sign_in(server, authenticator, email=None, origin=None, credential=None, **extra):
    fields = dict(FLOW, email=email) if email else dict(FLOW)
    options = call(server, "/passkey/sign_in_options", fields)
    assert options["stat"] == "ok", options
    assertion = authenticator.get(options["options"], origin or server.base, credential=credential)
    return call(server, "/oauth/auth_native_passkey", dict(FLOW, credential=json.dumps(assertion), **extra)), options


@pytest.mark.parametrize("algorithm", [-7, -257, -8])
def test_a_passkey_added_to_an_account_signs_in_without_an_address(server, algorithm):
    email, token = register_account(server)
    authenticator = SoftAuthenticator(algorithm=algorithm)
    added = add_passkey(server, token, authenticator)
    assert added["stat"] == "ok", added
    assert added["passkey"]["name"] == "Phone" and added["passkey"]["lastUsed"] is None
    reply, options = sign_in(server, authenticator)
    assert options["options"]["allowCredentials"] == []
    assert reply["stat"] == "ok", reply
    assert reply["capture_user"]["email"] == email
    assert len(reply["access_token"]) == 44 and reply["refresh_token"]
    # The record lists it (never its key), as /entity does.
    passkeys = reply["capture_user"]["passkeys"]
    assert [p["name"] for p in passkeys] == ["Phone"] and passkeys[0]["lastUsed"]
    entity = call(server, "/entity", {"access_token": reply["access_token"]})
    assert entity["result"]["passkeys"] == passkeys
    assert "publicKey" not in json.dumps(entity)


def test_address_first_lists_the_accounts_passkeys_and_hides_who_has_none(server):
    email, token = register_account(server)
    authenticator = SoftAuthenticator()
    add_passkey(server, token, authenticator)
    listed = call(server, "/passkey/sign_in_options", dict(FLOW, email=email.upper()))["options"]["allowCredentials"]
    assert [c["id"] for c in listed] == [c["id"] for c in call(server, "/factors", {"access_token": token})["passkeys"]]
    reply, _ = sign_in(server, authenticator, email=email)
    assert reply["stat"] == "ok", reply
    # An address without an account, and one without passkeys, get made-up ids, the same every time (issue 48: one
    # to three, as long as platforms' ids, with the transports a real listing shows).
    nobody = "nobody-%s@example.com" % uuid.uuid4().hex[:8]
    first = call(server, "/passkey/sign_in_options", dict(FLOW, email=nobody))["options"]["allowCredentials"]
    again = call(server, "/passkey/sign_in_options", dict(FLOW, email=nobody))["options"]["allowCredentials"]
    assert 1 <= len(first) <= 3 and first == again
    # As long as a platform's credential id, and as random: nothing in it says "made up".
    for entry in first:
        made = unb64url(entry["id"])
        assert len(made) in (16, 20, 32, 64) and len(set(made)) > 10 and not made.isascii()
        assert entry.get("transports", []) in (["hybrid", "internal"], ["nfc", "usb"], [])
    other, _ = register_account(server)
    made_up = call(server, "/passkey/sign_in_options", dict(FLOW, email=other))["options"]["allowCredentials"]
    assert 1 <= len(made_up) <= 3
    # Another account's passkey does not answer for this address (a host that answers with it anyway).
    reply, _ = sign_in(server, authenticator, email=other, credential=authenticator.credentials[0])
    assert reply["stat"] == "error" and "another account" in reply["error_description"]


def test_transports_outside_webauthns_list_are_dropped_and_listed_in_a_shape_anyone_gets(server):
    """Issue 48: a client's transport words are stored only when WebAuthn has them, and an account's listing shows
    them as one of the shapes a made-up listing draws, so neither echoes what a client once said."""
    email, token = register_account(server)
    authenticator = SoftAuthenticator()
    options = call(server, "/passkey/registration_options", {"access_token": token})
    credential = authenticator.create(options["options"], server.base)
    credential["response"]["transports"] = ["x", "usb", "<script>", "usb"]
    added = call(server, "/passkey/register", {"access_token": token, "credential": json.dumps(credential),
                                               "name": "Key"})
    assert added["stat"] == "ok", added
    listed = call(server, "/passkey/sign_in_options", dict(FLOW, email=email))["options"]["allowCredentials"]
    assert [entry["transports"] for entry in listed] == [["nfc", "usb"]]
    assert sign_in(server, authenticator, email=email)[0]["stat"] == "ok"
    # A name over 64 characters is refused, not cut; the ceremony is not spent by it.
    options = call(server, "/passkey/registration_options", {"access_token": token})
    second = SoftAuthenticator()
    credential = json.dumps(second.create(options["options"], server.base))
    refused = call(server, "/passkey/register", {"access_token": token, "credential": credential, "name": "n" * 65})
    assert refused["stat"] == "error" and refused["argument"] == "name", refused
    named = call(server, "/passkey/register", {"access_token": token, "credential": credential, "name": "n" * 64})
    assert named["stat"] == "ok" and named["passkey"]["name"] == "n" * 64, named


def test_a_challenge_is_answered_once_from_our_origin_only(server):
    _, token = register_account(server)
    authenticator = SoftAuthenticator()
    add_passkey(server, token, authenticator)
    options = call(server, "/passkey/sign_in_options", FLOW)["options"]
    assertion = json.dumps(authenticator.get(options, server.base))
    assert call(server, "/oauth/auth_native_passkey", dict(FLOW, credential=assertion))["stat"] == "ok"
    replayed = call(server, "/oauth/auth_native_passkey", dict(FLOW, credential=assertion))
    assert replayed["stat"] == "error" and replayed["code"] == 200 and "challenge" in replayed["error_description"]
    phished, _ = sign_in(server, authenticator, origin="https://evil.example")
    assert phished["stat"] == "error" and "origin" in phished["error_description"]
    # A registration challenge is bound to the session that asked for it.
    _, other_token = register_account(server)
    options = call(server, "/passkey/registration_options", {"access_token": token})["options"]
    credential = SoftAuthenticator().create(options, server.base)
    stolen = call(server, "/passkey/register", {"access_token": other_token, "credential": json.dumps(credential)})
    assert stolen["stat"] == "error" and "challenge" in stolen["error_description"]


def test_a_cloned_authenticator_is_refused_and_audited(server):
    _, token = register_account(server)
    authenticator = SoftAuthenticator()
    add_passkey(server, token, authenticator)
    assert sign_in(server, authenticator)[0]["stat"] == "ok"
    authenticator.credentials[0].counter = 0  # the clone's counter is behind the original's
    reply, _ = sign_in(server, authenticator)
    assert reply["stat"] == "error" and "counter" in reply["error_description"]
    key = server.admin_key()
    audit = server.get("/admin/v1/audit", params={"action": "passkey.counter"},
                      headers={"Authorization": "Bearer " + key}).json()
    assert any(entry["outcome"] == "refused" for entry in audit["items"]), audit


def test_without_user_verification_nothing_is_made_or_signed_in(server):
    _, token = register_account(server)
    authenticator = SoftAuthenticator()
    authenticator.user_verified = False
    refused = add_passkey(server, token, authenticator)
    assert refused["stat"] == "error" and "verify" in refused["error_description"]
    assert call(server, "/factors", {"access_token": token})["passkeys"] == []


def test_a_removed_passkey_no_longer_signs_in_and_an_operator_resets_every_factor(server):
    email, token = register_account(server)
    first, second = SoftAuthenticator(), SoftAuthenticator(algorithm=-8)
    add_passkey(server, token, first, name="Phone")
    add_passkey(server, token, second, name="Laptop")
    listed = call(server, "/factors", {"access_token": token})["passkeys"]
    assert [p["name"] for p in listed] == ["Phone", "Laptop"]
    assert call(server, "/passkey/remove", {"access_token": token, "passkey_id": listed[0]["id"]})["stat"] == "ok"
    assert sign_in(server, first)[0]["stat"] == "error"
    assert sign_in(server, second)[0]["stat"] == "ok"
    key = server.admin_key()
    reset = server.post("/admin/v1/users/%s/reset-factors" % email,
                       headers={"Authorization": "Bearer " + key})
    assert reset.status_code == 200 and reset.json()["passkeys_removed"] == 1, reset.text
    assert sign_in(server, second)[0]["stat"] == "error"
    # The password still signs in.
    assert call(server, "/oauth/auth_native_traditional", dict(
        FLOW, form="signInForm", signInEmailAddress=email, currentPassword=PASSWORD))["stat"] == "ok"


def test_malformed_credentials_are_named_and_never_a_server_error(server):
    _, token = register_account(server)
    for credential in ["", "{", "[]", json.dumps({"type": "public-key", "id": "AA", "rawId": "AA", "response": {}}),
                       json.dumps({"type": "public-key", "id": "AA", "rawId": "AA",
                                   "response": {"clientDataJSON": "e30", "attestationObject": "oA"}})]:
        for path, fields in [("/passkey/register", {"access_token": token}), ("/oauth/auth_native_passkey", FLOW)]:
            reply = call(server, path, dict(fields, credential=credential))
            assert reply["stat"] == "error" and reply["code"] in (100, 200), (path, credential, reply)


def test_an_openid_connect_sign_in_with_a_passkey_names_the_key_in_amr(server):
    """A passkey sign-in for an OpenID Connect client (the sealed request carried by the page's call): the ID token's
    amr is hwk for a key bound to its device, swk for one a platform syncs (the authenticator's backup-eligible flag)."""
    email, token = register_account(server)
    authenticator = SoftAuthenticator()
    assert add_passkey(server, token, authenticator)["stat"] == "ok"
    browser = PublicClientSignIn(server.base, PUBLIC_CLIENT_ID, "com.example.capturebridge:/social")
    reply, _ = sign_in(server, authenticator, **browser.page_fields())
    assert reply["stat"] == "ok", reply
    claims = browser.id_token_claims(reply["redirect_to"])
    # The software authenticator marks its credentials backup-eligible, as a synced passkey is.
    assert claims["amr"] == ["swk"] and claims["sub"] == reply["capture_user"]["uuid"]
