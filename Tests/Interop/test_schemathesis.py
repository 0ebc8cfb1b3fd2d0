"""Schemathesis (PyPI, pinned in scripts/install-deps.sh) generates requests from the service's own OpenAPI document
(GET /openapi.json) and checks every reply against it: no 5xx, only documented statuses, content types and headers,
bodies that match their schemas. At least 4,000 requests, zero failures.

Schemathesis needs pytest >= 8.4, newer than Debian's, so it lives in its own directory (.build/pytools/…) and runs
as a subprocess with that directory first on PYTHONPATH; the system interpreter's packages stay as they are."""

import json
import os
import pathlib
import subprocess
import sys
import time
import uuid

import pytest

from conftest import HERE, PASSWORD, PUBLIC_CLIENT_ID, ROOT

SCHEMATHESIS_VERSION = "4.32.5"
SCHEMATHESIS_DIR = pathlib.Path(os.environ.get(
    "SCHEMATHESIS_DIR", ROOT / ".build" / "pytools" / ("schemathesis-" + SCHEMATHESIS_VERSION)))
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance"]
MINIMUM_REQUESTS = 4000
# Test cases per operation in the fuzzing phase (the coverage phase adds its own): about 4,700 requests in all over
# the 80 operations (docs/adr/0035-interop-suite.md).
MAX_EXAMPLES = int(os.environ.get("INTEROP_SCHEMATHESIS_EXAMPLES", "30"))


def access_token(server, email):
    """A signed-in user's access token, sent as a Bearer header so the token-protected endpoints get past it."""
    reply = server.post("/oauth/register_native_traditional", data={
        "client_id": PUBLIC_CLIENT_ID, "flow": "webViewSignIn", "form": "registrationForm", "locale": "en-US",
        "response_type": "token", "emailAddress": email, "displayName": "Schemathesis",
        "newPassword": PASSWORD, "newPasswordConfirm": PASSWORD}).json()
    assert reply["stat"] == "ok", reply
    return reply["access_token"]


def test_schemathesis_finds_no_failure(server, tmp_path, capsys):
    if not (SCHEMATHESIS_DIR / "schemathesis").is_dir():
        pytest.fail("schemathesis %s is not installed in %s: run scripts/install-deps.sh"
                    % (SCHEMATHESIS_VERSION, SCHEMATHESIS_DIR), pytrace=False)
    har = tmp_path / "schemathesis.har"
    email = "schemathesis-%s@example.com" % uuid.uuid4().hex[:12]
    # The live token and the admin key go on every request through the hooks' before_call.
    token = access_token(server, email)
    admin_key = server.admin_key()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SCHEMATHESIS_DIR), str(HERE)]), NO_COLOR="1",
               COLUMNS="160", SCHEMATHESIS_HOOKS="schemathesis_hooks",
               HYPOTHESIS_STORAGE_DIRECTORY=str(tmp_path / "hypothesis"),
               # For the hooks: part of the generated requests authenticate as the backend or carry the live token.
               INTEROP_BACKEND_CLIENT_ID=server.backend_client_id, INTEROP_BACKEND_SECRET=server.backend_secret,
               INTEROP_ACCESS_TOKEN=token, INTEROP_AUDIENCE=server.base, INTEROP_EMAIL=email,
               INTEROP_PASSWORD=PASSWORD, INTEROP_ADMIN_KEY=admin_key)
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", server.url("/openapi.json"),
        "--url", server.base,
        "--checks", ",".join(CHECKS),
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(MAX_EXAMPLES),
        # One worker: with several, schemathesis generates in threads, and Debian's Python 3.11 then now and
        # then fails inside its own AST construction ("SystemError: AST constructor recursion depth mismatch",
        # CPython gh-106905), which schemathesis reports as a runtime error of the run.
        "--workers", os.environ.get("INTEROP_SCHEMATHESIS_WORKERS", "1"),
        "--seed", os.environ.get("INTEROP_SCHEMATHESIS_SEED", "20261124"),
        "--no-shrink",
        "--request-timeout", "20",
        "--report", "har", "--report-har-path", str(har),
        "--output-truncate", "false",
    ]
    started = time.monotonic()
    run = subprocess.run(command, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - started
    output = run.stdout + run.stderr
    requests = count_requests(har)
    with capsys.disabled():  # shown in every run, not only a failing one
        print("\nschemathesis %s: %d requests in %.0f s (exit %d)" % (SCHEMATHESIS_VERSION, requests, elapsed,
                                                                     run.returncode))
        summary = output[output.rfind("Test cases:"):].splitlines()[:2] if "Test cases:" in output else []
        print("  ".join(line.strip() for line in summary))
    assert run.returncode == 0, "schemathesis found failures:\n%s\nserver log:\n%s" % (output[-20000:], server.log())
    assert requests >= MINIMUM_REQUESTS, "only %d requests were generated" % requests


def count_requests(har):
    """The HTTP requests schemathesis sent: the entries of its HAR recording (one per request and reply)."""
    if not har.exists():
        return 0
    return len(json.loads(har.read_text())["log"]["entries"])
