"""Issue 52: every password hash format a Janrain export carries, made by tools nobody here wrote (passlib, mkpasswd,
openssl passwd, hashlib; Tests/PythonSupport/legacy_hashes.py), imported with `capturectl user import` and signed in
with through the running server's /oauth/auth_native_traditional: the right password signs in and the stored hash
is then bcrypt, a wrong one is the ordinary 210; malformed and over-cost hashes are refused on import with Janrain's
error. Runs on the backend CAPTURE_TEST_BACKEND names (SQLite by default, PostgreSQL through with-postgres.sh)."""

import json
import subprocess
import uuid

from conftest import PUBLIC_CLIENT_ID, ROOT
from legacy_hashes import good_cases, malformed_cases, over_cost_cases

PASSWORD = "Tr0ub4dor & 3 ünïcode"
# Differs within the first 8 characters: DES crypt reads no further.
WRONG = "tr0ub4dor & 3 ünïcode"
FLOW = {"client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "locale": "en-US"}


def capturectl(server, *arguments):
    return subprocess.run(
        [str(server.capturectl), *arguments, "--db", server.db_path, "--settings", str(server.settings)],
        cwd=str(ROOT), env=server.env, capture_output=True, text=True, timeout=300)


def import_records(server, records, tmp_path, name):
    export = tmp_path / (name + ".jsonl")
    export.write_text("\n".join(json.dumps(record) for record in records) + "\n")
    rejects = tmp_path / (name + "-rejects.jsonl")
    done = capturectl(server, "user", "import", str(export), "--rejects", str(rejects), "--json")
    lines = rejects.read_text().splitlines() if rejects.exists() else []
    return done, [json.loads(line) for line in lines]


def record(email, password):
    return {"email": email, "emailVerified": "2024-01-09 10:00:00.000000 +0000", "password": password}


def sign_in(server, email, password):
    reply = server.post("/oauth/auth_native_traditional", data=dict(
        FLOW, form="signInForm", signInEmailAddress=email, currentPassword=password))
    assert reply.status_code == 200, reply.text
    return reply.json()


def shown_password(server, email):
    shown = capturectl(server, "user", "show", email, "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["password"]


def test_every_format_signs_in_and_becomes_bcrypt(server, tmp_path):
    cases = good_cases(PASSWORD)
    tag = uuid.uuid4().hex[:8]
    emails = ["hash-%s-%d@example.com" % (tag, index) for index in range(len(cases))]
    done, rejects = import_records(
        server, [record(email, value) for email, (_, value, _) in zip(emails, cases)], tmp_path, "good")
    assert done.returncode == 0 and not rejects, (done.stdout, done.stderr, rejects)
    assert json.loads(done.stdout)["imported"] == len(cases)

    report = capturectl(server, "user", "passwords", "--json")
    assert report.returncode == 0, report.stderr
    counts = {entry["format"]: entry["users"] for entry in json.loads(report.stdout)["formats"]}
    for _, _, format_name in cases:
        assert counts.get(format_name, 0) >= 1, (format_name, counts)

    for email, (label, _, format_name) in zip(emails, cases):
        assert shown_password(server, email) == format_name + " (migrating)", label
        wrong = sign_in(server, email, WRONG)
        assert wrong["stat"] == "error" and wrong["code"] == 210, (label, wrong)
        assert shown_password(server, email) == format_name + " (migrating)", label
        right = sign_in(server, email, PASSWORD)
        assert right["stat"] == "ok" and right.get("access_token"), (label, right)
        assert shown_password(server, email) == "bcrypt", label
        # The bcrypt hash made from the typed password signs in again; the wrong one still fails.
        assert sign_in(server, email, PASSWORD)["stat"] == "ok", label
        assert sign_in(server, email, WRONG)["code"] == 210, label

    report = capturectl(server, "user", "passwords")
    assert report.returncode == 0 and "bcrypt" in report.stdout and "FORMAT" in report.stdout, report.stdout


def test_malformed_and_over_cost_hashes_are_refused_with_janrains_error(server, tmp_path):
    tag = uuid.uuid4().hex[:8]
    expected = {}
    records = []
    for kind, cases, code, error in [("malformed", malformed_cases(PASSWORD), 340, "invalid_data_format"),
                                     ("costly", over_cost_cases(PASSWORD), 360, "constraint_violation")]:
        for index, (label, value) in enumerate(cases):
            records.append(record("%s-%s-%d@example.com" % (kind, tag, index), value))
            expected[len(records)] = (label, code, error)
    done, rejects = import_records(server, records, tmp_path, "bad")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert json.loads(done.stdout)["refused"] == len(records) and json.loads(done.stdout)["imported"] == 0
    assert len(rejects) == len(records)
    for reject in rejects:
        label, code, error = expected[reject["line"]]
        assert (reject["code"], reject["error"], reject["attribute"]) == (code, error, "password"), (label, reject)
        assert reject["message"].startswith("password"), (label, reject)
    for reject in rejects:
        assert capturectl(server, "user", "show", records[reject["line"] - 1]["email"]).returncode != 0


def test_an_operator_clears_the_passwords_left_in_a_weak_format(server, tmp_path):
    tag = uuid.uuid4().hex[:8]
    cases = {case[0]: case for case in good_cases(PASSWORD)}
    weak, kept = "weak-%s@example.com" % tag, "kept-%s@example.com" % tag
    done, rejects = import_records(
        server, [record(weak, cases["mkpasswd descrypt"][1]), record(kept, cases["passlib scrypt"][1])], tmp_path, "weak")
    assert done.returncode == 0 and not rejects, (done.stdout, done.stderr, rejects)
    refused = capturectl(server, "user", "passwords", "--clear", "bcrypt")
    assert refused.returncode != 0, refused.stdout
    cleared = capturectl(server, "user", "passwords", "--clear", "crypt-des", "--json")
    assert cleared.returncode == 0, cleared.stderr
    assert json.loads(cleared.stdout)["cleared"] >= 1
    assert shown_password(server, weak) == "none"
    assert sign_in(server, weak, PASSWORD)["code"] == 210
    assert shown_password(server, kept) == "scrypt (migrating)"
    assert sign_in(server, kept, PASSWORD)["stat"] == "ok"
