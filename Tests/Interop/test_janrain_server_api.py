"""A Janrain customer's backend, unchanged, pointed at this service (issue 51): the calls its CRM syncs, support tools
and export jobs make -- entity.*, entityType, clients/*, settings/*, access/* -- through a small client written from
Janrain's reference pages (Tests/PythonSupport/janrain_capture_client.py), signing requests the three ways Janrain
takes plus a user's token. What each call takes and answers, and who may make it, is what Janrain's pages say; the
page is named beside each check. Clients are registered as an operator registers them (capturectl, with Janrain's
feature names). One service per module; the interop lane runs this file on SQLite and PostgreSQL."""

import base64
import hashlib
import hmac
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

import httpx
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "PythonSupport"))
from capture_process import die_with_parent, free_port, stop, wait_until_ready  # noqa: E402
from capture_store import Store  # noqa: E402
from janrain_capture_client import (BASIC, PARAMS, SIGNED, CaptureClient, signature, string_to_sign,  # noqa: E402
                                    utc_date)

from conftest import HTTP_TIMEOUT, PASSWORD, PUBLIC_CLIENT_ID, ROOT, _binary, _test_settings  # noqa: E402

TAG = "Jr" + uuidlib.uuid4().hex[:10]  # every record this module makes carries it as familyName
REDIRECT = "https://crm.example.com/janrain/oauth"
# The backend's API clients, as an operator registers them: (id, features, extra capturectl flags).
CLIENTS = {
    "owner": ("jr-owner", ["owner"], []),
    "direct": ("jr-direct", ["direct_access"], ["--redirect-uri", REDIRECT, "--response-type", "code"]),
    "reader": ("jr-reader", ["direct_read_access"], []),
    "issuer": ("jr-issuer", ["access_issuer"], []),
    "login": ("jr-login", ["login_client"], []),
    # Only the authentication-failure checks use these two, each for a few failures (they count like passwords).
    "target": ("jr-target", ["direct_access"], []),
    "target2": ("jr-target2", ["direct_access"], []),
    "fenced": ("jr-fenced", ["direct_access"], ["--whitelist", "10.0.0.0/8"]),
}


# ---------------------------------------------------------------------------------------------------------------------
# The client itself, against Janrain's recipe (no server needed).

def test_the_signed_string_is_janrains_recipe():
    """https://identitydocs.akamai.com/home/security-schemes: endpoint, Date, then the parameters as sorted k=v
    lines, newline-separated; the page's example request is entity.find with type_name and a filter."""
    params = {"type_name": "user", "filter": "lastUpdated >= '2016-01-01'"}
    assert string_to_sign("/entity.find", "2016-02-26 19:08:44", params) == (
        "/entity.find\n2016-02-26 19:08:44\nfilter=lastUpdated >= '2016-01-01'\ntype_name=user\n")


def test_the_signature_is_hmac_sha1_base64_checked_independently():
    # RFC 2202 test case 2 pins the HMAC-SHA1 primitive this client uses.
    assert hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha1).hexdigest() == \
        "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
    params = {"type_name": "user", "filter": "email = 'a@example.com'", "attributes": '["id","uuid"]'}
    date, secret = "2016-02-26 19:08:44", "s3cr3t-value"
    header = signature("/entity.find", date, params, "apkrahlfumwse2e9nvrrotv6vchuptzw", secret)
    assert header.startswith("Signature apkrahlfumwse2e9nvrrotv6vchuptzw:")
    # The same digest from openssl, a second implementation, over the string built by hand from the page's steps.
    text = ("/entity.find\n" + date + "\nattributes=[\"id\",\"uuid\"]\nfilter=email = 'a@example.com'\n"
            "type_name=user\n")
    digest = subprocess.run(["openssl", "dgst", "-sha1", "-hmac", secret, "-binary"], input=text.encode(),
                            capture_output=True, check=True).stdout
    assert header.split(":", 1)[1] == base64.b64encode(digest).decode()


def test_a_signed_call_sends_date_and_signature_and_no_credentials_in_the_form():
    client = CaptureClient("http://capture.invalid", "cid", "csecret", auth=SIGNED)
    endpoint, form, headers = client.prepare("entity.count", {"type_name": "user", "filter": "id > 3"})
    assert endpoint == "/entity.count"
    assert "client_id" not in form and "client_secret" not in form
    assert time.strptime(headers["Date"], "%Y-%m-%d %H:%M:%S")
    assert headers["Authorization"] == signature("/entity.count", headers["Date"], form, "cid", "csecret")
    _, form, headers = CaptureClient("http://x", "cid", "csecret", auth=PARAMS).prepare("entity", {"id": 4})
    assert form == {"id": "4", "client_id": "cid", "client_secret": "csecret"} and "Authorization" not in headers
    _, _, headers = CaptureClient("http://x", "cid", "csecret").prepare("entity", {})
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"cid:csecret").decode()
    _, _, headers = CaptureClient("http://x", access_token="tok").prepare("entity", {})
    assert headers["Authorization"] == "OAuth tok"


# ---------------------------------------------------------------------------------------------------------------------
# The service, its clients and a small population of records.

class Backend:
    def __init__(self, base, secrets, store):
        self.base = base
        self.secrets = secrets
        self.store = store

    def client(self, role, auth=BASIC, **kwargs):
        client_id = CLIENTS[role][0]
        return CaptureClient(self.base, client_id, self.secrets[role], auth=auth, timeout=HTTP_TIMEOUT, **kwargs)

    def user(self, token):
        return CaptureClient(self.base, access_token=token, timeout=HTTP_TIMEOUT)


@pytest.fixture(scope="module")
def backend():
    server_bin = _binary("CAPTURE_SERVER_BIN", ".build/debug/capture-server")
    capturectl = _binary("CAPTURECTL_BIN", str(server_bin.parent / "capturectl"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-janrain-api-"))
    store = Store(work)
    settings = _test_settings(work)
    env = {key: value for key, value in os.environ.items() if not key.startswith("CAPTURE_")}
    secrets = {}
    for role, (client_id, features, extra) in CLIENTS.items():
        command = [str(capturectl), "client", "add", client_id, "--confidential", "--name", "Backend " + role]
        for feature in features:
            command += ["--feature", feature]
        command += extra + ["--db", store.location, "--settings", str(settings), "--json"]
        added = subprocess.run(command, cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=60)
        assert added.returncode == 0, "capturectl client add %s failed: %s %s" % (client_id, added.stdout,
                                                                                  added.stderr)
        secrets[role] = json.loads(added.stdout)["client_secret"]
    port = free_port()
    log_path = work / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(server_bin), "--host", "127.0.0.1", "--port", str(port), "--db", store.location, "--settings",
             str(settings)], cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent)
    base = "http://127.0.0.1:%d" % port
    try:
        wait_until_ready(process, base, lambda: log_path.read_text(errors="replace")[-4000:])
        yield Backend(base, secrets, store)
    finally:
        stop(process)
        shutil.rmtree(work, ignore_errors=True)


def ok(reply):
    assert reply.http_status == 200, reply
    assert reply.get("stat") == "ok", reply
    return reply


def janrain_error(reply, low, high):
    """A Janrain error: HTTP 200, stat error, an integer code in [low, high], its name and description."""
    assert reply.http_status == 200, "Janrain answers errors with HTTP 200: %s %s" % (reply.http_status, reply)
    assert reply.get("stat") == "error", reply
    assert isinstance(reply.get("code"), int) and low <= reply["code"] <= high, reply
    assert reply.get("error") and reply.get("error_description"), reply
    return reply


def refused(reply):
    """Refused for authentication or permission (Janrain's 400 range), and nothing of the data comes back."""
    janrain_error(reply, 400, 499)
    for leaked in ("result", "results", "total_count", "uuid", "accessToken", "creation_token"):
        assert leaked not in reply, reply
    return reply


def email(key):
    return ("%s-%s@example.com" % (key, TAG)).lower()


# The population the filter checks ask about (https://identitydocs.akamai.com/home/entitycreate for the shape).
PEOPLE = {
    "ada": {"givenName": "Ada", "gender": "female", "birthday": "1985-12-10",
            "primaryAddress": {"city": "London", "country": "UK"}},
    "bob": {"givenName": "Bob", "gender": "male", "birthday": "1992-03-04",
            "primaryAddress": {"city": "Paris", "country": "France"}},
    "cy": {"gender": "male", "birthday": "2001-07-08", "primaryAddress": {"city": "Paris"}},
    "dee": {"givenName": "Dee", "gender": "female", "birthday": "1979-01-01", "primaryAddress": {"city": "Berlin"}},
    "eve": {"givenName": "Eve", "gender": "other", "primaryAddress": {"city": "Paris"}},
    "fay": {"givenName": "Fay", "gender": "female", "birthday": "1990-01-02", "primaryAddress": {"city": "Lisbon"}},
}


@pytest.fixture(scope="module")
def people(backend):
    """key -> {id, uuid, email}, created one by one by the direct_access client, in this order."""
    direct = backend.client("direct")
    made = {}
    for key, attributes in PEOPLE.items():
        reply = ok(direct.call("entity.create", type_name="user",
                               attributes=dict(attributes, email=email(key), familyName=TAG)))
        assert isinstance(reply["id"], int) and isinstance(reply["uuid"], str), reply
        made[key] = {"id": reply["id"], "uuid": reply["uuid"], "email": email(key)}
    return made


def found(backend, filter_text, role="reader", **extra):
    """The population's keys an entity.find answers for `filter_text` (scoped to this module's records)."""
    reply = ok(backend.client(role).call("entity.find", type_name="user", filter="familyName = '%s' and (%s)" % (
        TAG, filter_text), attributes=["email"], **extra))
    assert reply["result_count"] == len(reply["results"]), reply
    by_email = {email(key): key for key in PEOPLE}
    return {by_email.get(record["email"], record["email"]) for record in reply["results"]}


def fresh_user(backend, **attributes):
    """A record of its own for a check that changes it."""
    key = "u" + uuidlib.uuid4().hex[:8]
    reply = ok(backend.client("direct").call("entity.create", type_name="user", attributes=dict(
        {"email": email(key), "familyName": TAG + "x"}, **attributes)))
    return {"id": reply["id"], "uuid": reply["uuid"], "email": email(key)}


def record(backend, uuid, role="reader"):
    return ok(backend.client(role).call("entity", type_name="user", uuid=uuid))["result"]


# ---------------------------------------------------------------------------------------------------------------------
# Counting, with each of Janrain's authentication forms (security-schemes; entitycount).

@pytest.mark.parametrize("auth", [BASIC, SIGNED, PARAMS])
def test_count_answers_total_count_with_each_authentication_form(backend, people, auth):
    reply = ok(backend.client("reader", auth=auth).call("entity.count", type_name="user",
                                                        filter="familyName = '%s'" % TAG))
    assert reply["total_count"] == len(PEOPLE)
    everything = ok(backend.client("reader", auth=auth).call("entity.count", type_name="user"))
    assert everything["total_count"] >= len(PEOPLE)


# ---------------------------------------------------------------------------------------------------------------------
# Creating (entitycreate, entitybulkcreate).

def test_create_answers_id_and_uuid_and_the_service_sets_the_stamps(backend, people):
    ada = record(backend, people["ada"]["uuid"])
    assert ada["id"] == people["ada"]["id"] and ada["uuid"] == people["ada"]["uuid"]
    assert ada["email"] == email("ada") and ada["givenName"] == "Ada" and ada["primaryAddress"]["city"] == "London"
    assert ada["created"] and ada["lastUpdated"], "created and lastUpdated are system generated"
    assert len({person["id"] for person in people.values()}) == len(PEOPLE)


def test_a_password_given_at_create_signs_the_user_in(backend):
    user = fresh_user(backend, password=PASSWORD, givenName="Pat")
    stored = record(backend, user["uuid"], role="direct")
    assert PASSWORD not in json.dumps(stored), "the password is never answered back in plain text"
    signed_in = httpx.post(backend.base + "/oauth/auth_native_traditional", timeout=HTTP_TIMEOUT, data={
        "client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "form": "signInForm", "locale": "en-US",
        "response_type": "token", "signInEmailAddress": user["email"], "currentPassword": PASSWORD}).json()
    assert signed_in["stat"] == "ok", signed_in
    assert ok(backend.user(signed_in["access_token"]).call("entity", type_name="user"))["result"]["uuid"] == \
        user["uuid"]
    assert dump_lacks(backend, PASSWORD), "the password is not stored in plain text"


def dump_lacks(backend, text):
    return text not in backend.store.dump()


def test_create_refuses_bad_json_and_a_taken_email_with_janrains_codes(backend, people):
    direct = backend.client("direct")
    bad = janrain_error(direct.call("entity.create", type_name="user", attributes='{"email": "x@example.com"'),
                        200, 299)
    assert bad["code"] == 200 and bad["error"] == "invalid_argument" and bad.get("argument_name") == "attributes"
    taken = direct.call("entity.create", type_name="user", attributes={"email": email("ada"), "familyName": "Dup"})
    janrain_error(taken, 360, 379)  # error-codes-error-codes: 360-379 constraint errors (a unique value taken)


def test_bulk_create_one_bad_element_does_not_sink_the_others(backend, people):
    """https://identitydocs.akamai.com/home/entitybulkcreate: each record is added independently; the answer lists
    uuid_results and results (ids), or a failure for a record."""
    tag = TAG + "b"
    good = [{"email": email("bulk1"), "familyName": tag, "givenName": "One",
             "statuses": [{"status": "active", "statusCreated": "2015-12-15T07:36:25Z"}]},
            {"email": email("bulk3"), "familyName": tag, "givenName": "Three"}]
    bad = {"email": email("ada"), "familyName": tag}  # the email is taken
    reply = ok(backend.client("direct").call("entity.bulkCreate", type_name="user", all_attributes=[good[0], bad,
                                                                                                     good[1]]))
    assert len(reply["uuid_results"]) == 3 and len(reply["results"]) == 3, reply
    assert isinstance(reply["uuid_results"][0], str) and isinstance(reply["uuid_results"][2], str)
    assert isinstance(reply["results"][0], int) and isinstance(reply["results"][2], int)
    assert not isinstance(reply["uuid_results"][1], str) and not isinstance(reply["results"][1], int), reply
    counted = ok(backend.client("reader").call("entity.count", type_name="user", filter="familyName = '%s'" % tag))
    assert counted["total_count"] == 2
    one = record(backend, reply["uuid_results"][0])
    assert one["id"] == reply["results"][0] and one["statuses"][0]["status"] == "active"


# ---------------------------------------------------------------------------------------------------------------------
# Finding (https://identitydocs.akamai.com/home/entityfind: the operators and their precedence, quoting, dates).

def test_find_with_comparisons_on_strings_numbers_and_dates(backend, people):
    assert found(backend, "gender = 'male'") == {"bob", "cy"}
    assert found(backend, "gender != 'male'") == {"ada", "dee", "eve", "fay"}
    assert found(backend, "birthday > '1990-01-01'") == {"bob", "cy", "fay"}
    assert found(backend, "birthday <= '1985-12-10'") == {"ada", "dee"}
    assert found(backend, "birthday >= '1985-12-10' and birthday < '1992-03-04'") == {"ada", "fay"}
    low, high = people["ada"]["id"], people["cy"]["id"]
    assert found(backend, "id > %d and id <= %d" % (low, high)) == {"bob", "cy"}
    assert found(backend, "id > '%d' and id <= '%d'" % (low, high)) == {"bob", "cy"}, "integers with or without quotes"
    assert found(backend, "email = '%s'" % email("dee")) == {"dee"}
    assert found(backend, "uuid = '%s'" % people["eve"]["uuid"]) == {"eve"}


def test_find_with_is_null_not_and_or_and_parentheses(backend, people):
    assert found(backend, "givenName is null") == {"cy"}
    assert found(backend, "birthday is not null") == {"ada", "bob", "cy", "dee", "fay"}
    assert found(backend, "not birthday is null") == {"ada", "bob", "cy", "dee", "fay"}, "is null binds tighter"
    assert found(backend, "not (gender = 'male')") == {"ada", "dee", "eve", "fay"}
    assert found(backend, "!(gender = 'female')") == {"bob", "cy", "eve"}
    paris, female, young = "primaryAddress.city = 'Paris'", "gender = 'female'", "birthday > '1991-01-01'"
    assert found(backend, "%s or %s and %s" % (paris, female, young)) == {"bob", "cy", "eve"}, "and before or"
    assert found(backend, "(%s or %s) and %s" % (paris, female, young)) == {"bob", "cy"}


def test_find_with_dotted_paths_and_service_dates(backend, people):
    assert found(backend, "primaryAddress.city = 'Paris'") == {"bob", "cy", "eve"}
    assert found(backend, "primaryAddress.country is null") == {"cy", "dee", "eve", "fay"}
    hour_ago = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(time.time() - 3600))
    assert found(backend, "created >= '%s'" % hour_ago) == set(PEOPLE)
    assert found(backend, "lastUpdated >= '%s'" % hour_ago) == set(PEOPLE)
    assert found(backend, "created < '2016-05-01 00:00:00 +0000'") == set()


def test_find_picks_attributes_and_sorts(backend, people):
    reply = ok(backend.client("reader").call(
        "entity.find", type_name="user", filter="familyName = '%s' and givenName is not null" % TAG,
        attributes=["email", "givenName"], sort_on=["givenName"]))
    assert [person["givenName"] for person in reply["results"]] == ["Ada", "Bob", "Dee", "Eve", "Fay"]
    for person in reply["results"]:
        assert "email" in person and "birthday" not in person and "primaryAddress" not in person, person
    descending = ok(backend.client("reader").call(
        "entity.find", type_name="user", filter="familyName = '%s' and givenName is not null" % TAG,
        attributes=["givenName"], sort_on=["-givenName"]))
    assert [person["givenName"] for person in descending["results"]] == ["Fay", "Eve", "Dee", "Bob", "Ada"]


def test_find_pages_with_first_result_max_results_and_show_total_count(backend, people):
    reader = backend.client("reader")
    query = {"type_name": "user", "filter": "familyName = '%s'" % TAG, "attributes": ["id"], "sort_on": ["id"]}
    everyone = [person["id"] for person in ok(reader.call("entity.find", **query))["results"]]
    assert everyone == sorted(person["id"] for person in people.values())
    first = ok(reader.call("entity.find", max_results=2, first_result=2, show_total_count=True, **query))
    assert first["result_count"] == 2 and first["total_count"] == len(PEOPLE)
    second = ok(reader.call("entity.find", max_results=2, first_result=4, **query))
    assert "total_count" not in second, "total_count only when asked for"
    pages = [person["id"] for person in first["results"] + second["results"]]
    start = everyone.index(pages[0])
    assert start in (1, 2) and pages == everyone[start:start + 4], "consecutive pages, in sort order"
    bounded = ok(reader.call("entity.find", max_results=1, timeout=10, **query))
    assert bounded["result_count"] == 1


def test_a_full_export_the_way_janrains_data_tooling_pages(backend, people):
    """https://techdocs.akamai.com/identity-cloud/docs/query-large-data-sets-and-carry-out-bulk-data-imports:
    sort_on ["id"], filter "id > <last id>", max_results per batch, attributes to keep it small, no first_result and
    no show_total_count."""
    reader = backend.client("reader", auth=SIGNED)
    last_id, exported, batches = 0, [], 0
    while True:
        reply = ok(reader.call("entity.find", type_name="user", max_results=3, attributes=["id", "uuid", "email"],
                               sort_on=["id"], filter="id > %d" % last_id))
        if not reply["results"]:
            break
        batches += 1
        assert batches < 200, "the export does not end"
        exported += reply["results"]
        last_id = reply["results"][-1]["id"]
    ids = [person["id"] for person in exported]
    assert ids == sorted(set(ids)), "ascending, no record twice"
    assert len(ids) == ok(backend.client("reader").call("entity.count", type_name="user"))["total_count"]
    assert {person["uuid"] for person in people.values()} <= {person["uuid"] for person in exported}
    assert all(set(person) >= {"id", "uuid", "email"} for person in exported)


# ---------------------------------------------------------------------------------------------------------------------
# Reading one record (https://educationcenter.janrain.com/home/entity; get-an-access-token for the selectors).

def test_entity_by_uuid_id_and_key_attribute(backend, people):
    reader, bob = backend.client("reader"), people["bob"]
    by_uuid = ok(reader.call("entity", type_name="user", uuid=bob["uuid"]))["result"]
    by_id = ok(reader.call("entity", type_name="user", id=bob["id"]))["result"]
    by_key = ok(reader.call("entity", type_name="user", key_attribute="email",
                            key_value=json.dumps(bob["email"])))["result"]
    assert by_uuid == by_id == by_key and by_uuid["uuid"] == bob["uuid"]


def test_entity_picks_attributes_and_a_sub_path(backend, people):
    reader, ada = backend.client("reader", auth=SIGNED), people["ada"]
    picked = ok(reader.call("entity", type_name="user", uuid=ada["uuid"], attributes=["givenName", "birthday"]))
    assert picked["result"]["givenName"] == "Ada" and "primaryAddress" not in picked["result"], picked
    address = ok(reader.call("entity", type_name="user", uuid=ada["uuid"], attribute_name="primaryAddress"))
    assert address["result"]["city"] == "London" and address["result"]["country"] == "UK", address


def test_entity_errors_name_the_missing_argument_and_the_missing_record(backend, people):
    reader = backend.client("reader")
    missing = janrain_error(reader.call("entity", type_name="user"), 100, 100)
    assert missing["error"] == "missing_argument"
    gone = janrain_error(reader.call("entity", type_name="user", uuid=str(uuidlib.uuid4())), 310, 310)
    assert gone["error"] == "record_not_found"
    both = janrain_error(reader.call("entity", type_name="user", uuid=people["ada"]["uuid"], id=people["bob"]["id"]),
                         200, 299)
    assert both["code"] == 201, "duplicate_argument: id and uuid together (error-codes-error-codes)"


# ---------------------------------------------------------------------------------------------------------------------
# Writing (entity.update, entity.replace, entity.delete: https://educationcenter.janrain.com/home/managing-user-data).

def test_update_changes_only_the_given_attributes(backend):
    user = fresh_user(backend, givenName="Una", gender="female", birthday="1970-05-06",
                      primaryAddress={"city": "Leeds", "country": "UK"})
    before = record(backend, user["uuid"])
    direct = backend.client("direct", auth=SIGNED)
    ok(direct.call("entity.update", type_name="user", uuid=user["uuid"], attributes={"givenName": "Unity"}))
    ok(direct.call("entity.update", type_name="user", key_attribute="email", key_value=json.dumps(user["email"]),
                   attributes={"primaryAddress": {"city": "York"}}))
    after = record(backend, user["uuid"])
    assert after["givenName"] == "Unity" and after["primaryAddress"]["city"] == "York"
    assert after["gender"] == "female" and after["birthday"] == before["birthday"]
    assert after["primaryAddress"]["country"] == "UK", "an object's other attributes stay"
    assert after["created"] == before["created"] and after["id"] == before["id"]
    assert after["lastUpdated"] != before["lastUpdated"]


def test_replace_sets_every_attribute_not_given_to_null(backend):
    user = fresh_user(backend, givenName="Rae", gender="female", birthday="1970-05-06",
                      primaryAddress={"city": "Leeds", "country": "UK"})
    ok(backend.client("direct").call("entity.replace", type_name="user", id=user["id"],
                                     attributes={"email": user["email"], "givenName": "Ray"}))
    after = record(backend, user["uuid"])
    assert after["givenName"] == "Ray" and after["email"] == user["email"]
    assert after["gender"] is None and after["birthday"] is None and after["familyName"] is None
    assert not (after.get("primaryAddress") or {}).get("city"), after
    assert after["uuid"] == user["uuid"] and after["id"] == user["id"]


def test_delete_then_the_record_is_not_found(backend):
    user = fresh_user(backend, givenName="Del")
    direct = backend.client("direct", auth=PARAMS)
    ok(direct.call("entity.delete", type_name="user", uuid=user["uuid"]))
    janrain_error(direct.call("entity", type_name="user", uuid=user["uuid"]), 310, 310)
    janrain_error(direct.call("entity.delete", type_name="user", uuid=user["uuid"]), 310, 310)
    counted = ok(direct.call("entity.count", type_name="user", filter="uuid = '%s'" % user["uuid"]))
    assert counted["total_count"] == 0


# ---------------------------------------------------------------------------------------------------------------------
# The schema (https://educationcenter.janrain.com/home/entitytype; entityType.list owner only per
# https://identitydocs.akamai.com/home/api-client-permissions-entity-and-entity-type-apis).

def test_entity_type_describes_the_schema_and_the_list_names_user(backend):
    schema = ok(backend.client("reader").call("entityType", type_name="user"))["schema"]
    assert schema["name"] == "user"
    by_name = {attribute["name"]: attribute for attribute in schema["attr_defs"]}
    assert {"id", "uuid", "created", "lastUpdated", "email", "givenName", "birthday", "primaryAddress"} <= set(by_name)
    assert by_name["givenName"]["type"] == "string" and by_name["givenName"]["length"] == 64
    assert by_name["primaryAddress"]["type"] == "object"
    assert "city" in {attribute["name"] for attribute in by_name["primaryAddress"]["attr_defs"]}
    assert by_name["statuses"]["type"] == "plural"
    assert "user" in ok(backend.client("owner").call("entityType.list"))["results"]


# ---------------------------------------------------------------------------------------------------------------------
# Clients (https://educationcenter.janrain.com/home/clientslist, clientsadd, clientsset-description,
# https://identitydocs.akamai.com/home/clientsset-whitelist,
# https://educationcenter.janrain.com/home/clientsreset-secret).

def listed(owner, **params):
    return {client["client_id"]: client for client in ok(owner.call("clients/list", **params))["results"]}


def test_clients_list_shows_the_registered_clients_and_filters_by_feature(backend):
    owner = backend.client("owner")
    clients = listed(owner)
    for role, (client_id, features, _) in CLIENTS.items():
        assert client_id in clients, client_id
        assert set(features) <= set(clients[client_id]["features"]), clients[client_id]
    assert clients["jr-fenced"]["whitelist"] == ["10.0.0.0/8"]
    readers = listed(owner, has_features=["direct_read_access"])
    assert "jr-reader" in readers and "jr-direct" not in readers and "jr-owner" not in readers


def test_a_client_added_through_the_api_works_and_its_lifecycle(backend, people):
    owner = backend.client("owner", auth=SIGNED)
    added = ok(owner.call("clients/add", description="CRM sync", features=["direct_read_access"]))
    new_id, secret = added["client_id"], added["client_secret"]

    def as_new(secret_now):
        return CaptureClient(backend.base, new_id, secret_now, timeout=HTTP_TIMEOUT).call(
            "entity.count", type_name="user", filter="familyName = '%s'" % TAG)

    assert ok(as_new(secret))["total_count"] == len(PEOPLE)
    refused(CaptureClient(backend.base, new_id, secret, timeout=HTTP_TIMEOUT).call(
        "entity.update", type_name="user", uuid=people["fay"]["uuid"], attributes={"aboutMe": "no"}))
    ok(owner.call("clients/set_description", for_client_id=new_id, description="CRM nightly sync"))
    ok(owner.call("clients/set_features", for_client_id=new_id, features=["direct_access"]))
    shown = listed(backend.client("owner"))[new_id]
    assert shown["description"] == "CRM nightly sync" and shown["features"] == ["direct_access"]
    ok(CaptureClient(backend.base, new_id, secret, timeout=HTTP_TIMEOUT).call(
        "entity.update", type_name="user", uuid=people["fay"]["uuid"], attributes={"aboutMe": "synced"}))
    assert record(backend, people["fay"]["uuid"])["aboutMe"] == "synced"

    ok(owner.call("clients/set_whitelist", for_client_id=new_id, whitelist=["10.0.0.0/8"]))
    refused(as_new(secret))
    ok(owner.call("clients/set_whitelist", for_client_id=new_id, whitelist=["127.0.0.0/8"]))
    ok(as_new(secret))

    reset = ok(owner.call("clients/reset_secret", for_client_id=new_id, hours_to_live=0))
    new_secret = reset["new_secret"]
    assert new_secret and new_secret != secret
    refused(as_new(secret))
    ok(as_new(new_secret))

    ok(owner.call("clients/delete", client_id_for_deletion=new_id))
    assert new_id not in listed(backend.client("owner"))
    refused(as_new(new_secret))


# ---------------------------------------------------------------------------------------------------------------------
# Settings (https://educationcenter.janrain.com/home/settingsitems, settingsset-multi,
# https://identitydocs.akamai.com/home/settingsget-multi; get_all answers default_settings and client_settings).

def test_settings_per_client_over_the_apps_defaults(backend):
    owner, target = backend.client("owner"), CLIENTS["direct"][0]
    key = "custom_" + TAG.lower()
    ok(owner.call("settings/set", for_client_id=target, key="site_name", value="CRM Site"))
    assert ok(owner.call("settings/get", for_client_id=target, key="site_name"))["result"] == "CRM Site"
    ok(owner.call("settings/set_multi", for_client_id=target, items={
        "password_recover_url": "https://crm.example.com/reset", key: "client"}))
    multi = ok(owner.call("settings/get_multi", for_client_id=target, keys=["site_name", key]))["result"]
    assert multi == {"site_name": "CRM Site", key: "client"}
    ok(owner.call("settings/set_default", key=key, value="default"))
    ok(owner.call("settings/set_default", key=key + "_only", value="everyone"))
    items = ok(owner.call("settings/items", for_client_id=target))["result"]
    assert items[key] == "client" and items[key + "_only"] == "everyone", "the client's value over the default"
    assert items["password_recover_url"] == "https://crm.example.com/reset"
    other = ok(owner.call("settings/items", for_client_id=CLIENTS["reader"][0]))["result"]
    assert other[key] == "default"
    everything = ok(owner.call("settings/get_all"))
    assert everything["default_settings"][key] == "default"
    assert everything["client_settings"][target][key] == "client"
    ok(owner.call("settings/delete", for_client_id=target, key=key))
    assert ok(owner.call("settings/items", for_client_id=target))["result"][key] == "default"
    ok(owner.call("settings/delete_default", key=key))
    ok(owner.call("settings/delete_default", key=key + "_only"))
    assert key not in ok(owner.call("settings/items", for_client_id=target))["result"]
    # Only the owner may name another client (settingsitems: for_client_id).
    refused(backend.client("reader").call("settings/items", for_client_id=target))


# ---------------------------------------------------------------------------------------------------------------------
# Issuing (https://educationcenter.janrain.com/home/accessgetaccesstoken, accessgetauthorizationcode,
# accessgetcreationtoken; who may call them per https://techdocs.akamai.com/identity-cloud/docs/get-an-access-token).

def test_an_issued_access_token_reads_its_users_record(backend, people):
    for role in ("issuer", "direct"):
        issued = ok(backend.client(role).call("access/getAccessToken", type_name="user",
                                              uuid=people["dee"]["uuid"], for_client_id=PUBLIC_CLIENT_ID))
        token = issued["accessToken"]
        assert ok(backend.user(token).call("entity", type_name="user"))["result"]["uuid"] == people["dee"]["uuid"]
    refused(backend.client("reader").call("access/getAccessToken", type_name="user", uuid=people["dee"]["uuid"]))


def test_a_users_token_reaches_only_its_own_record(backend, people):
    """developers.janrain.com use-oauth-authentication: a token works on entity and the writes, for its own user;
    a selector beside it is ignored."""
    token = ok(backend.client("issuer").call("access/getAccessToken", type_name="user", uuid=people["eve"]["uuid"],
                                             for_client_id=PUBLIC_CLIENT_ID))["accessToken"]
    user = backend.user(token)
    assert ok(user.call("entity", type_name="user", uuid=people["bob"]["uuid"]))["result"]["uuid"] == \
        people["eve"]["uuid"]
    assert ok(user.call("entity", type_name="user", id=people["bob"]["id"]))["result"]["uuid"] == people["eve"]["uuid"]
    ok(user.call("entity.update", type_name="user", uuid=people["bob"]["uuid"], attributes={"aboutMe": "eve was here"}))
    assert record(backend, people["eve"]["uuid"])["aboutMe"] == "eve was here"
    assert record(backend, people["bob"]["uuid"]).get("aboutMe") != "eve was here"
    for call in ("entity.find", "entity.count"):
        reply = user.call(call, type_name="user", filter="familyName = '%s'" % TAG)
        assert reply.get("stat") == "error" and "results" not in reply and "total_count" not in reply, (call, reply)


def test_an_authorization_code_is_exchanged_at_oauth_token(backend, people):
    reply = ok(backend.client("issuer").call("access/getAuthorizationCode", type_name="user", id=people["fay"]["id"],
                                             redirect_uri=REDIRECT, for_client_id=CLIENTS["direct"][0]))
    code = reply.get("authorizationCode") or reply.get("authorization_code")
    assert code, reply
    exchanged = httpx.post(backend.base + "/oauth/token", timeout=HTTP_TIMEOUT,
                           auth=(CLIENTS["direct"][0], backend.secrets["direct"]),
                           data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT})
    assert exchanged.status_code == 200, exchanged.text
    token = exchanged.json()["access_token"]
    assert ok(backend.user(token).call("entity", type_name="user"))["result"]["uuid"] == people["fay"]["uuid"]


def test_a_creation_token_creates_one_record_without_a_secret(backend):
    issued = ok(backend.client("issuer").call("access/getCreationToken", type_name="user", lifetime=300,
                                              for_client_id=PUBLIC_CLIENT_ID))
    token = issued["creation_token"]
    public = CaptureClient(backend.base, PUBLIC_CLIENT_ID, None, auth=PARAMS, timeout=HTTP_TIMEOUT)
    made = ok(public.call("entity.create", type_name="user", creation_token=token,
                          attributes={"email": email("created-by-token"), "familyName": TAG + "c"}))
    assert record(backend, made["uuid"])["email"] == email("created-by-token")
    again = public.call("entity.create", type_name="user", creation_token=token,
                        attributes={"email": email("created-twice"), "familyName": TAG + "c"})
    assert again.get("stat") == "error" and "uuid" not in again, "single use"


# ---------------------------------------------------------------------------------------------------------------------
# Who may call what (https://identitydocs.akamai.com/home/api-client-permissions-entity-and-entity-type-apis;
# https://docs.janrain.com/registration/api-clients/).

def test_a_login_client_calls_none_of_the_backend_calls(backend, people):
    login = backend.client("login")
    refused(login.call("entity.find", type_name="user", filter="familyName = '%s'" % TAG))
    refused(login.call("entity.count", type_name="user"))
    refused(login.call("entity", type_name="user", uuid=people["ada"]["uuid"]))
    refused(login.call("entity.delete", type_name="user", uuid=people["ada"]["uuid"]))
    # The app's public sign-in client has no secret at all.
    public = CaptureClient(backend.base, PUBLIC_CLIENT_ID, None, auth=PARAMS, timeout=HTTP_TIMEOUT)
    refused(public.call("entity.count", type_name="user"))
    refused(public.call("entity", type_name="user", uuid=people["ada"]["uuid"]))
    assert record(backend, people["ada"]["uuid"])["uuid"] == people["ada"]["uuid"]


def test_a_direct_read_access_client_reads_but_never_writes(backend, people):
    reader = backend.client("reader")
    ok(reader.call("entity", type_name="user", uuid=people["ada"]["uuid"]))
    refused(reader.call("entity.create", type_name="user", attributes={"email": email("nope")}))
    refused(reader.call("entity.bulkCreate", type_name="user", all_attributes=[{"email": email("nope2")}]))
    refused(reader.call("entity.update", type_name="user", uuid=people["ada"]["uuid"], attributes={"aboutMe": "x"}))
    refused(reader.call("entity.replace", type_name="user", uuid=people["ada"]["uuid"],
                        attributes={"email": email("ada")}))
    refused(reader.call("entity.delete", type_name="user", uuid=people["ada"]["uuid"]))
    refused(reader.call("clients/list"))
    refused(reader.call("settings/get_all"))
    assert record(backend, people["ada"]["uuid"])["givenName"] == "Ada"
    assert ok(reader.call("entity.count", type_name="user", filter="email = '%s'" % email("nope")))["total_count"] == 0


def test_owner_only_and_issuer_only_calls(backend, people):
    direct, issuer = backend.client("direct"), backend.client("issuer")
    refused(direct.call("clients/list"))
    refused(direct.call("clients/add", description="sneaky", features=["owner"]))
    refused(direct.call("settings/set_default", key="site_name", value="sneaky"))
    refused(direct.call("entityType.list"))
    refused(issuer.call("entity.find", type_name="user", filter="familyName = '%s'" % TAG))
    refused(issuer.call("entity.update", type_name="user", uuid=people["ada"]["uuid"], attributes={"aboutMe": "x"}))


def test_a_client_outside_its_whitelist_is_refused(backend):
    """clients/set_whitelist: only addresses on the client's list may use it (jr-fenced allows 10.0.0.0/8)."""
    refused(backend.client("fenced").call("entity.count", type_name="user"))
    refused(backend.client("fenced", auth=SIGNED).call("entity.count", type_name="user"))


# ---------------------------------------------------------------------------------------------------------------------
# Filters that are wrong or hostile: Janrain errors, never a 5xx, never more records than the text asks for.

BAD_FILTERS = [
    "gender = 'male", "(gender = 'male'", "gender = 'male')", "gender === 'male'", "= 'male'", "gender 'male'",
    "gender = 'male' and", "and gender = 'male'", "gender = 'male' or or id > 1", "id >", "not", "()",
    "gender = 'male' gender = 'female'", "(" * 2000 + "id > 1" + ")" * 2000, "noSuchAttribute = 'x'",
    "primaryAddress.noSuchPart = 'x'", "gender = 'male' ; DROP TABLE users", "gender = \"male\"",
    "email = 'a' -- comment", "email = 'a' /* comment */", "\x00", "id > 1 limit 1", "gender contains",
]
# Odd but not necessarily wrong: an answer or a Janrain error, never a 5xx.
ODD_FILTERS = ["id > 1e99999", "id > 99999999999999999999999999999999999999", "id > -99999999999999999999999",
               "gender = '\x00'", "id > 1 and " * 3000 + "id > 1", "givenName = '" + "\u00e9\U0001f600" * 500 + "'"]


def unreadable(reply):
    """A form value that is not text (a NUL): the service's contract answers every endpoint with a named 400 in
    Janrain's shape (the request cannot be read), not HTTP 200."""
    assert reply.http_status == 400 and reply.get("stat") == "error" and reply.get("code") == 200, reply
    assert reply.get("argument_name") == "filter", reply


def test_bad_filter_text_is_a_janrain_error_never_a_5xx(backend, people):
    reader = backend.client("reader")
    for text in BAD_FILTERS:
        for call in ("entity.find", "entity.count"):
            reply = reader.call(call, type_name="user", filter=text)
            assert reply.http_status < 500, (text[:80], reply.http_status, reply)
            if "\x00" in text:
                unreadable(reply)
                continue
            janrain_error(reply, 200, 499)
            assert "results" not in reply and "total_count" not in reply, (text[:80], reply)
    for text in ODD_FILTERS:
        reply = reader.call("entity.count", type_name="user", filter=text)
        assert reply.http_status < 500, (text[:80], reply.http_status, reply)
        if "\x00" in text:
            unreadable(reply)
        elif reply.get("stat") != "ok":
            janrain_error(reply, 200, 499)
    contains = janrain_error(reader.call("entity.find", type_name="user", filter="email contains 'example'"),
                             485, 485)
    assert contains["code"] == 485, "contains was removed (entityfind)"
    assert ok(reader.call("entity.count", type_name="user", filter="familyName = '%s'" % TAG))["total_count"] == \
        len(PEOPLE), "the service still answers"


def test_injection_attempts_in_filters_and_arguments_match_nothing_extra(backend, people):
    reader = backend.client("reader")
    before = ok(reader.call("entity.count", type_name="user"))["total_count"]
    attempts = [
        "email = 'x'' or ''1''=''1'", "email = 'x\\' or 1=1 --'", "givenName = 'Ada''; DROP TABLE users; --'",
        "givenName = 'Ada\" OR \"1\"=\"1'", "email = '%s'' or email like ''%%'" % email("ada"),
        "givenName = 'Ada' union select * from users", "givenName = (select 'Ada')",
        "primaryAddress.city = 'Paris') or (1=1", "json_extract(profile, '$.givenName') = 'Ada'",
        "givenName = 'Ada' or 1=1",
    ]
    for text in attempts:
        reply = reader.call("entity.find", type_name="user", filter=text, attributes=["givenName", "email"])
        assert reply.http_status < 500, (text, reply)
        if reply.get("stat") == "ok":
            assert all(person.get("givenName") in (None, "Ada") for person in reply["results"]), (text, reply)
            assert len(reply["results"]) <= 1, (text, reply)
        else:
            janrain_error(reply, 200, 499)
    for params in ({"sort_on": ["id; DROP TABLE users"]}, {"attributes": ["email) FROM users; --"]},
                   {"sort_on": "not json"}, {"attributes": "[1, 2"}):
        reply = reader.call("entity.find", type_name="user", **params)
        assert reply.http_status < 500, (params, reply)
        janrain_error(reply, 200, 399)
    keyed = reader.call("entity", type_name="user", key_attribute="email' OR '1'='1", key_value='"x"')
    assert keyed.http_status < 500 and keyed.get("stat") == "error", keyed
    unquoted = reader.call("entity", type_name="user", key_attribute="email", key_value=email("ada"))
    assert unquoted.http_status < 500 and unquoted.get("stat") == "error", "key_value is JSON: a bare email is not"
    assert ok(reader.call("entity.count", type_name="user"))["total_count"] == before, "nothing was dropped or added"
    assert record(backend, people["ada"]["uuid"])["givenName"] == "Ada"


# ---------------------------------------------------------------------------------------------------------------------
# Authentication failures (security-schemes: the signature protects against replay; error-codes: 400-499 are
# authentication and permission errors, answered with HTTP 200). Kept to a handful so they stay under the throttle.

def test_a_wrong_secret_is_refused_in_every_form(backend):
    for auth in (BASIC, SIGNED, PARAMS):
        wrong = CaptureClient(backend.base, CLIENTS["target"][0], "not-the-secret", auth=auth, timeout=HTTP_TIMEOUT)
        refused(wrong.call("entity.count", type_name="user"))
    ok(backend.client("target").call("entity.count", type_name="user"))


def test_a_tampered_signature_is_refused(backend):
    client = backend.client("target", auth=SIGNED)
    endpoint, form, headers = client.prepare("entity.count", {"type_name": "user", "filter": "id > 0"})
    form["filter"] = "id > 1"  # a parameter changed after signing
    refused(client.send(endpoint, form, headers))
    endpoint, form, headers = client.prepare("entity.count", {"type_name": "user"})
    client_id, digest = headers["Authorization"].split(" ", 1)[1].split(":", 1)
    flipped = ("A" if digest[0] != "A" else "B") + digest[1:]
    headers["Authorization"] = "Signature %s:%s" % (client_id, flipped)
    refused(client.send(endpoint, form, headers))
    endpoint, form, headers = client.prepare("entity.count", {"type_name": "user"})
    refused(client.send("/entity.find", form, headers))  # signed for another call


def test_a_stale_or_missing_date_is_refused(backend):
    stale = backend.client("target2", auth=SIGNED, date=lambda: utc_date(time.time() - 6 * 60))
    refused(stale.call("entity.count", type_name="user"))
    future = backend.client("target2", auth=SIGNED, date=lambda: utc_date(time.time() + 6 * 60))
    refused(future.call("entity.count", type_name="user"))
    client = backend.client("target2", auth=SIGNED)
    endpoint, form, headers = client.prepare("entity.count", {"type_name": "user"})
    del headers["Date"]
    refused(client.send(endpoint, form, headers))
    recent = backend.client("target2", auth=SIGNED, date=lambda: utc_date(time.time() - 60))
    ok(recent.call("entity.count", type_name="user"))
