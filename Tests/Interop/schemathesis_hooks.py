"""Schemathesis hooks (loaded through SCHEMATHESIS_HOOKS by test_schemathesis.py): steer part of the generated form
bodies toward what the service knows — a registered client, a real flow and the endpoint's own form with only its
fields — so that generated requests get past the client and form checks into validation, sign-in, registration and
the token paths. The other part stays as generated. Nothing here touches the replies or the checks."""

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
}


def steered(path, body, form):
    body = dict(body)
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


@schemathesis.hook
def flatmap_body(context, body):
    operation = context.operation
    if operation is None or operation.method.upper() != "POST" or not isinstance(body, dict):
        return st.just(body)
    path = operation.path
    forms = ENDPOINT_FORMS.get(path, ([None], None))[0]
    choices = [body] + [steered(path, body, form) for form in forms if form or "client_id" in body]
    return st.sampled_from(choices)
