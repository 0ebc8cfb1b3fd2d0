"""Authenticator-app codes as the second factor, with codes from pyotp (PyPI's TOTP library) as an authenticator
app would show them: set-up from the otpauth link, the password sign-in's 270 and its ticket, a code used once,
recovery codes spent once, and turning it off."""

import sys
import time
import urllib.parse
import uuid

import pyotp

from conftest import PASSWORD, PUBLIC_CLIENT_ID, ROOT

sys.path.insert(0, str(ROOT / "Tests" / "PythonSupport"))
from oidc_browser import PublicClientSignIn  # noqa: E402

FLOW = {"client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US"}


def call(server, path, fields):
    reply = server.post(path, data=fields)
    assert reply.status_code == 200, "%s: %s %s" % (path, reply.status_code, reply.text)
    return reply.json()


def password_sign_in(server, email, password=PASSWORD):
    return call(server, "/oauth/auth_native_traditional", dict(
        FLOW, form="signInForm", signInEmailAddress=email, currentPassword=password))


def account_with_authenticator(server):
    email = "totp-%s@example.com" % uuid.uuid4().hex[:12]
    reply = call(server, "/oauth/register_native_traditional", dict(
        FLOW, form="registrationForm", emailAddress=email, displayName="Totp", newPassword=PASSWORD,
        newPasswordConfirm=PASSWORD))
    token = reply["access_token"]
    setup = call(server, "/second_factor/setup", {"access_token": token})
    assert setup["stat"] == "ok", setup
    app = pyotp.parse_uri(setup["otpauth_uri"])
    assert app.secret == setup["secret"].replace(" ", "") and app.digits == 6 and app.interval == 30
    assert urllib.parse.unquote(setup["otpauth_uri"]).split("?")[0].endswith(":" + email)
    wrong = call(server, "/second_factor/confirm", {"access_token": token, "setup_ticket": setup["setup_ticket"],
                                                     "code": "000000" if app.now() != "000000" else "111111"})
    assert wrong["stat"] == "error" and wrong["code"] == 210
    app.spent = app.now()
    confirmed = call(server, "/second_factor/confirm", {"access_token": token, "setup_ticket": setup["setup_ticket"],
                                                         "code": app.spent})
    assert confirmed["stat"] == "ok", confirmed
    assert len(confirmed["recovery_codes"]) == 10
    return email, token, app, confirmed["recovery_codes"]


def next_code(app):
    """A code of a step not used yet: the one after the current (accepted within the drift)."""
    return app.at(time.time() + 30)


def test_a_password_alone_gets_a_ticket_that_an_app_code_completes_once(server):
    email, token, app, _ = account_with_authenticator(server)
    status = call(server, "/factors", {"access_token": token})["second_factor"]
    assert status == {"enabled": True, "recovery_codes_left": 10}
    first = password_sign_in(server, email)
    assert first["stat"] == "error" and first["code"] == 270 and first["error"] == "second_factor_required"
    assert "access_token" not in first
    # The code the set-up used is spent (even if its step is still current), a later step's is not.
    reused = call(server, "/oauth/auth_native_second_factor",
                  dict(FLOW, ticket=first["second_factor_ticket"], code=app.spent))
    assert reused["stat"] == "error" and reused["code"] == 210
    code = next_code(app)
    done = call(server, "/oauth/auth_native_second_factor",
                dict(FLOW, ticket=first["second_factor_ticket"], code=code))
    assert done["stat"] == "ok", done
    assert done["capture_user"]["email"] == email and len(done["access_token"]) == 44
    # The same code does not complete another sign-in, nor does the ticket complete another.
    second = password_sign_in(server, email)
    assert call(server, "/oauth/auth_native_second_factor",
                dict(FLOW, ticket=second["second_factor_ticket"], code=code))["code"] == 210
    assert call(server, "/oauth/auth_native_second_factor",
                dict(FLOW, ticket=first["second_factor_ticket"], code=next_code(app)))["code"] == 210


def test_a_ticket_wears_out_and_a_wrong_password_never_gets_one(server):
    email, _, app, _ = account_with_authenticator(server)
    wrong = password_sign_in(server, email, password="not the password")
    assert wrong["code"] == 210 and "second_factor_ticket" not in wrong
    ticket = password_sign_in(server, email)["second_factor_ticket"]
    for _ in range(5):
        assert call(server, "/oauth/auth_native_second_factor", dict(FLOW, ticket=ticket, code="999999"))["code"] == 210
    gone = call(server, "/oauth/auth_native_second_factor", dict(FLOW, ticket=ticket, code=next_code(app)))
    assert gone["code"] == 210


def test_each_recovery_code_works_once_and_a_code_turns_the_factor_off(server):
    email, token, app, codes = account_with_authenticator(server)
    ticket = password_sign_in(server, email)["second_factor_ticket"]
    assert call(server, "/oauth/auth_native_second_factor", dict(FLOW, ticket=ticket, code=codes[0]))["stat"] == "ok"
    ticket = password_sign_in(server, email)["second_factor_ticket"]
    assert call(server, "/oauth/auth_native_second_factor", dict(FLOW, ticket=ticket, code=codes[0]))["code"] == 210
    ticket = password_sign_in(server, email)["second_factor_ticket"]
    typed = codes[1].upper().replace("-", " ")
    assert call(server, "/oauth/auth_native_second_factor", dict(FLOW, ticket=ticket, code=typed))["stat"] == "ok"
    assert call(server, "/factors", {"access_token": token})["second_factor"]["recovery_codes_left"] == 8
    assert call(server, "/second_factor/disable", {"access_token": token, "code": "123"})["code"] == 210
    assert call(server, "/second_factor/disable", {"access_token": token, "code": codes[2]})["stat"] == "ok"
    assert password_sign_in(server, email)["stat"] == "ok"


def test_an_openid_connect_sign_in_finished_with_an_app_code_says_so_in_amr(server):
    """The OpenID Connect request sealed into the page's sign-in survives the second-factor step, and the ID token
    names both proofs (RFC 8176: pwd, otp, mfa)."""
    email, _, app, _ = account_with_authenticator(server)
    browser = PublicClientSignIn(server.base, PUBLIC_CLIENT_ID, "com.example.capturebridge:/social", nonce="n2")
    first = call(server, "/oauth/auth_native_traditional", dict(
        FLOW, form="signInForm", signInEmailAddress=email, currentPassword=PASSWORD, **browser.page_fields()))
    assert first["code"] == 270, first
    done = call(server, "/oauth/auth_native_second_factor",
                dict(FLOW, ticket=first["second_factor_ticket"], code=next_code(app)))
    assert done["stat"] == "ok", done
    claims = browser.id_token_claims(done["redirect_to"])
    assert claims["amr"] == ["pwd", "otp", "mfa"] and claims["nonce"] == "n2"
