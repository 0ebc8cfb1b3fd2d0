"""An operator revokes, with capturectl, the token a web view just received: the API refuses it at once
and the page ends the session on its next load."""

import pathlib
import subprocess

import pytest

from api import new_email, post
from conftest import CLIENT_ID, ROOT
from test_bridge_flow import open_sign_in, register


def capturectl(server, *arguments):
    binary = pathlib.Path(server["binary"]).with_name("capturectl")
    if not binary.exists():
        binary = ROOT / ".build/debug/capturectl"
    return subprocess.run([str(binary), *arguments, "--db", server["db"], "--settings", str(ROOT / "Settings")],
                          capture_output=True, text=True, timeout=60)


def test_capturectl_lists_fingerprints_and_revokes_at_once(server, host):
    open_sign_in(server, host)
    email = new_email()
    register(host, email)
    token = host.wait_event("onCaptureLoginSuccess")[0]["accessToken"]

    listed = capturectl(server, "token", "list", "--user", email)
    assert listed.returncode == 0, listed.stderr
    assert token not in listed.stdout
    import hashlib

    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:12]
    assert fingerprint in listed.stdout
    assert hashlib.sha256(token.encode()).hexdigest() not in listed.stdout

    revoked = capturectl(server, "token", "revoke", fingerprint)
    assert revoked.returncode == 0, revoked.stderr
    status, reply = post(server["base"], "/entity", {"access_token": token})
    assert reply["stat"] == "error" and reply["error"] == "invalid_access_token"

    mark = len(host.queue_events)
    host.reload()
    host.wait_event("onCaptureInvalidToken", after=mark)
