"""A Janrain Capture (Akamai Identity Cloud) API client as a customer's backend writes one, from Janrain's published
reference pages only -- not from this service's code. Every rule below names the page it comes from.

- Calls are POSTs of form fields to https://<app>.janraincapture.com/<call>; structured values (`attributes`,
  `all_attributes`, `sort_on`, `keys`, `items`, `whitelist`, `features`, `has_features`) are JSON text in a field.
  https://identitydocs.akamai.com/home/entityfind (sort_on, attributes as JSON arrays)
  https://identitydocs.akamai.com/home/entitycreate (attributes as a JSON object)
  https://techdocs.akamai.com/identity-cloud/docs/get-an-access-token ("all parameters ... x-www-form-urlencoded body")
- Every reply is JSON with `stat` "ok" or "error"; errors carry `code`, `error`, `error_description` and come with
  HTTP 200, so a caller reads `stat`, not the status line.
  https://docs.janrain.com/api/registration/error-codes/
- Authentication, three ways for a client plus a user's token:
  * HTTP Basic client_id:client_secret (Janrain's recommendation).
    https://techdocs.akamai.com/identity-cloud-entity/reference/get-started
  * janrain-signed: `Date` (UTC, "YYYY-MM-DD HH:MM:SS") and `Authorization: Signature <client_id>:<b64 HMAC-SHA1>`
    over "<endpoint>\\n<date>\\n" followed by the call's "key=value" pairs sorted and newline-separated; the id and
    secret are not sent as parameters.
    https://identitydocs.akamai.com/home/security-schemes
    https://educationcenter.janrain.com/home/security-schemes-entity
  * client_id and client_secret as ordinary form parameters (the older calls and older client libraries).
    http://developers.janrain.com/how-to/registration/use-oauth-authentication/
  * a user's access token instead of client credentials, for entity and entity.create/update/replace/delete
    (http://developers.janrain.com/how-to/registration/use-oauth-authentication/), sent as
    `Authorization: OAuth <token>` as Janrain's own Python library sends it (github.com/janrain/janrain-python-api,
    janrain/capture/api.py); entityType lists this scheme as janrain-oauth
    (https://educationcenter.janrain.com/home/entitytype).
"""

import base64
import hashlib
import hmac
import json
import time

import httpx

BASIC, SIGNED, PARAMS = "basic", "signed", "params"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"  # the Date header's form in the security-schemes page's example


def encode(value):
    """A form field's text: JSON for lists and objects, true/false for booleans, str() for the rest."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def string_to_sign(endpoint, date, params):
    """What janrain-signed signs: the root-anchored endpoint, the Date header's text, then each parameter as
    "key=value", the lines sorted, each ending in a newline (security-schemes page, steps 1-2). With no parameters
    it ends after the date's newline, as Janrain's own library builds it (janrain-python-api, generate_signature);
    the page's sample code would add one more empty line there, so the tests always send a parameter."""
    lines = sorted("%s=%s" % (key, value) for key, value in params.items())
    return "%s\n%s\n" % (endpoint, date) + "".join(line + "\n" for line in lines)


def signature(endpoint, date, params, client_id, client_secret):
    """The Authorization header's value: HMAC-SHA1 keyed by the secret, base64, prefixed with the client id and a
    colon (security-schemes page, steps 2-3)."""
    digest = hmac.new(client_secret.encode("utf-8"), string_to_sign(endpoint, date, params).encode("utf-8"),
                      hashlib.sha1).digest()
    return "Signature %s:%s" % (client_id, base64.b64encode(digest).decode("ascii"))


def utc_date(at=None):
    return time.strftime(DATE_FORMAT, time.gmtime(time.time() if at is None else at))


class Reply(dict):
    """A call's JSON answer; `.http_status` keeps the status line for the checks that Janrain's errors are 200s."""
    http_status = None

    @property
    def ok(self):
        return self.get("stat") == "ok"


class CaptureClient:
    """One API client of a Capture app. `auth` is BASIC, SIGNED or PARAMS; `access_token` instead makes every call
    as that user (OAuth header). `date` (a function of nothing) overrides the signing clock, for stale-Date checks."""

    def __init__(self, base_url, client_id=None, client_secret=None, auth=BASIC, access_token=None, timeout=60,
                 date=None):
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self.client_secret = client_secret
        self.auth = auth
        self.access_token = access_token
        self.timeout = timeout
        self.date = date or utc_date

    def prepare(self, call, params):
        """(endpoint, form fields, headers) for one call, signed the way this client authenticates."""
        endpoint = call if call.startswith("/") else "/" + call
        form = {key: encode(value) for key, value in params.items() if value is not None}
        headers = {"User-Agent": "janrain-capture-client (capture-bridge tests)"}
        if self.access_token is not None:
            headers["Authorization"] = "OAuth " + self.access_token
        elif self.auth == BASIC:
            pair = "%s:%s" % (self.client_id, self.client_secret)
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        elif self.auth == SIGNED:
            date = self.date()
            headers["Date"] = date
            headers["Authorization"] = signature(endpoint, date, form, self.client_id, self.client_secret)
        elif self.auth == PARAMS:
            form["client_id"] = self.client_id
            if self.client_secret is not None:
                form["client_secret"] = self.client_secret
        else:
            raise ValueError("auth is basic, signed or params, not %r" % (self.auth,))
        return endpoint, form, headers

    def send(self, endpoint, form, headers):
        response = httpx.post(self.base_url + endpoint, data=form, headers=headers, timeout=self.timeout)
        try:
            body = response.json()
        except ValueError:
            body = {"stat": "not-json", "body": response.text[:500]}
        reply = Reply(body if isinstance(body, dict) else {"stat": "not-an-object", "body": body})
        reply.http_status = response.status_code
        return reply

    def call(self, call, **params):
        """Makes the call and answers its JSON (a Reply); never raises for a Janrain error."""
        return self.send(*self.prepare(call, params))

    def as_user(self, access_token):
        return CaptureClient(self.base_url, access_token=access_token, timeout=self.timeout)
