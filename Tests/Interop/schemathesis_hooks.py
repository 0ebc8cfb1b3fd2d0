"""Schemathesis hooks (loaded through SCHEMATHESIS_HOOKS by test_schemathesis.py): steer part of the generated form
bodies toward what the service knows — a registered client, a real flow and the endpoint's own form with only its
fields — so that generated requests get past the client and form checks into validation, sign-in, registration and
the token paths. The other part stays as generated. Nothing here touches the replies or the checks."""

import os

import schemathesis
from hypothesis import strategies as st

CLIENT_ID = "demo-mobile-app"
FORMS = {
    "signInForm": ["signInEmailAddress", "currentPassword"],
    "registrationForm": ["emailAddress", "displayName", "firstName", "lastName", "newPassword", "newPasswordConfirm"],
    "editProfileForm": ["displayName", "firstName", "lastName", "emailAddress", "birthdate", "phone"],
    "changePasswordForm": ["currentPassword", "newPassword", "newPasswordConfirm"],
    "forgotPasswordForm": ["signInEmailAddress"],
    "resetPasswordForm": ["newPassword", "newPasswordConfirm"],
    "resendVerificationForm": ["emailAddress"],
    "socialRegistrationForm": ["emailAddress", "displayName", "firstName", "lastName"],
    "deactivateAccountForm": ["currentPassword"],
}
ALL_FIELDS = {field for fields in FORMS.values() for field in fields} | {
    "traditionalSignIn_emailAddress", "traditionalSignIn_password"}
# The form (and flow) each endpoint's forms come from.
ENDPOINT_FORMS = {
    "/oauth/auth_native_traditional": (["signInForm"], "webViewSignIn"),
    "/oauth/register_native_traditional": (["registrationForm"], "webViewSignIn"),
    "/oauth/register_native": (["socialRegistrationForm"], "webViewSignIn"),
    "/oauth/update_profile_native": (["editProfileForm", "changePasswordForm"], "webViewProfile"),
    "/oauth/forgot_password_native": (["forgotPasswordForm"], "webViewSignIn"),
    "/oauth/reset_password_native": (["resetPasswordForm"], "webViewSignIn"),
    "/oauth/verify_email_native": (["resendVerificationForm"], "webViewSignIn"),
    # Never with the run's password (not in VALID_PATHS): the run's account stays.
    "/oauth/deactivate_account": (["deactivateAccountForm"], "webViewProfile"),
}


# Set by test_schemathesis.py: the confidential client's credentials, a live access token and this service's origin.
BACKEND = (os.environ.get("INTEROP_BACKEND_CLIENT_ID"), os.environ.get("INTEROP_BACKEND_SECRET"))
ACCESS_TOKEN = os.environ.get("INTEROP_ACCESS_TOKEN")
# An admin key (made with capturectl admin-key add): the admin API's requests carry it instead of the access token.
ADMIN_KEY = os.environ.get("INTEROP_ADMIN_KEY")
AUDIENCE = os.environ.get("INTEROP_AUDIENCE")
# Endpoints whose generated token parameter is replaced by the live access token in the steered variant.
TOKEN_PARAMETERS = {"/oauth/introspect": "token", "/verify": "assertion", "/oauth/revoke": "token"}


def steered(path, body, form):
    body = dict(body)
    if path in ("/oauth/introspect", "/oauth/revoke", "/oauth/token") and all(BACKEND):
        # client_secret_post (the Bearer header the run sends everywhere is not client authentication).
        body["client_id"], body["client_secret"] = BACKEND
        if path in TOKEN_PARAMETERS and ACCESS_TOKEN and path != "/oauth/revoke":
            body[TOKEN_PARAMETERS[path]] = ACCESS_TOKEN
        return body
    if path == "/verify" and ACCESS_TOKEN and AUDIENCE:
        body.update(assertion=ACCESS_TOKEN, audience=AUDIENCE)
        return body
    if "client_id" in body or path in ENDPOINT_FORMS:
        body["client_id"] = CLIENT_ID
    if path in ENDPOINT_FORMS:
        _, flow = ENDPOINT_FORMS[path]
        body.update(flow=flow, form=form, locale="en-US")
        body.pop("flow_name", None)
        for field in ALL_FIELDS - set(FORMS[form]):
            body.pop(field, None)
        if body.get("response_type") not in ("token", "code", "code_and_token"):
            body["response_type"] = "token"
    return body


EMAIL = os.environ.get("INTEROP_EMAIL")
PASSWORD = os.environ.get("INTEROP_PASSWORD")


def valid(path, body, unique):
    """The steered body with values the form accepts, so the request reaches bcrypt, tokens and the outbox: a new
    account for registration, the run's own account for sign-in and the code requests, a new display name."""
    body = dict(body)
    for field in ALL_FIELDS:
        body.pop(field, None)
    if path == "/oauth/register_native_traditional":
        body.update(emailAddress="st-%s@example.com" % unique, displayName="Schemathesis", newPassword=PASSWORD,
                    newPasswordConfirm=PASSWORD)
    elif path == "/oauth/auth_native_traditional":
        body.update(signInEmailAddress=EMAIL, currentPassword=PASSWORD)
    elif path == "/oauth/forgot_password_native":
        body.update(signInEmailAddress=EMAIL)
    elif path == "/oauth/verify_email_native":
        body.update(emailAddress=EMAIL)
    elif path == "/oauth/update_profile_native" and body.get("form") == "editProfileForm":
        body.update(displayName="Schemathesis %s" % unique[:6])
    return body


VALID_PATHS = {"/oauth/register_native_traditional", "/oauth/auth_native_traditional", "/oauth/forgot_password_native",
               "/oauth/verify_email_native", "/oauth/update_profile_native"}


@schemathesis.hook
def flatmap_body(context, body):
    operation = context.operation
    if operation is None or operation.method.upper() != "POST" or not isinstance(body, dict):
        return st.just(body)
    path = operation.path
    forms = ENDPOINT_FORMS.get(path, ([None], None))[0]
    steerable = "client_id" in body or path in ("/oauth/introspect", "/oauth/revoke", "/oauth/token", "/verify")
    choices = [body] + [steered(path, body, form) for form in forms if form or steerable]
    strategy = st.sampled_from(choices)
    if path in VALID_PATHS and EMAIL and PASSWORD:
        steered_bodies = choices[1:]
        strategy = st.one_of(strategy, st.builds(lambda base, unique: valid(path, base, unique.hex),
                                                 st.sampled_from(steered_bodies), st.uuids()))
    return strategy


@schemathesis.hook
def before_call(context, case, kwargs):
    """Every request carries a credential, as the run's one Authorization header: the admin key on the admin API
    (401 without one is tested in Swift), the live access token everywhere else."""
    token = ADMIN_KEY if case.operation.path.startswith("/admin/") else ACCESS_TOKEN
    if token:
        case.headers = dict(case.headers or {}, Authorization="Bearer " + token)
