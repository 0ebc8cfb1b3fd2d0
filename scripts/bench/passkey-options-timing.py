#!/usr/bin/env python3
"""How long /passkey/sign_in_options takes for an address with passkeys, an account without any and an address
without an account (docs/threat-model.md, "Passkey enumeration"). Starts the built capture-server on loopback with a
SQLite file (or CAPTURE_TEST_BACKEND=postgres under scripts/with-postgres.sh), adds two passkeys to one account with
the software authenticator, then asks for each kind of address in turn, ROUNDS times each, interleaved, after a
warm-up. Prints median, 90th percentile and mean per kind, in microseconds, and the medians' differences.

    python3 scripts/bench/passkey-options-timing.py [ROUNDS]     (default 200)
"""

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "PythonSupport"))
sys.path.insert(0, str(ROOT / "Tests" / "Interop"))
from capture_process import free_port, stop, wait_until_ready  # noqa: E402
from capture_store import Store  # noqa: E402
from conftest import _test_settings  # noqa: E402
from soft_authenticator import SoftAuthenticator  # noqa: E402

FLOW = {"client_id": "demo-mobile-app", "flow": "webViewSignIn", "locale": "en-US"}
PASSWORD = "correct horse battery"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    binary = pathlib.Path(os.environ.get("CAPTURE_SERVER_BIN", ROOT / ".build/debug/capture-server")).resolve()
    work = pathlib.Path(tempfile.mkdtemp(prefix="capture-timing-"))
    settings = _test_settings(work)
    env = {key: value for key, value in os.environ.items() if not key.startswith("CAPTURE_")}
    port = free_port()
    log = open(work / "server.log", "wb")
    process = subprocess.Popen(
        [str(binary), "--host", "127.0.0.1", "--port", str(port), "--db", Store(work).location, "--settings",
         str(settings)], cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    try:
        wait_until_ready(process, base, lambda: "")
        client = httpx.Client(base_url=base, timeout=60)

        def register(email):
            reply = client.post("/oauth/register_native_traditional", data=dict(
                FLOW, form="registrationForm", emailAddress=email, displayName="Timing", newPassword=PASSWORD,
                newPasswordConfirm=PASSWORD)).json()
            assert reply["stat"] == "ok", reply
            return reply["access_token"]

        token = register("keys@example.com")
        register("nokeys@example.com")
        for authenticator in (SoftAuthenticator(), SoftAuthenticator(algorithm=-8)):
            options = client.post("/passkey/registration_options", data={"access_token": token}).json()["options"]
            credential = json.dumps(authenticator.create(options, base))
            added = client.post("/passkey/register", data={"access_token": token, "credential": credential}).json()
            assert added["stat"] == "ok", added
        kinds = {"passkeys": lambda i: "keys@example.com", "no passkeys": lambda i: "nokeys@example.com",
                 "no account": lambda i: "nobody%d@example.com" % i}
        times = {kind: [] for kind in kinds}
        for index in range(rounds + 20):
            for kind, address in kinds.items():
                started = time.perf_counter()
                reply = client.post("/passkey/sign_in_options", data=dict(FLOW, email=address(index)))
                elapsed = time.perf_counter() - started
                assert reply.json()["stat"] == "ok"
                if index >= 20:  # the first rounds warm connections and caches
                    times[kind].append(elapsed * 1e6)
        medians = {}
        for kind, values in times.items():
            values.sort()
            medians[kind] = statistics.median(values)
            print("%-12s n=%d median %.0f us, p90 %.0f us, mean %.0f us" % (
                kind, len(values), medians[kind], values[int(len(values) * 0.9)], statistics.mean(values)))
        print("median differences: passkeys - no account %+.0f us, no passkeys - no account %+.0f us" % (
            medians["passkeys"] - medians["no account"], medians["no passkeys"] - medians["no account"]))
    finally:
        stop(process)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
