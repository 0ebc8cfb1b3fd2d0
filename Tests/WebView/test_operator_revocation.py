"""An operator revokes, with capturectl, the token a web view just received: the API refuses it at
once and the page ends its session on the next load. Skipped while capturectl is not built."""

import hashlib
import os
import pathlib
import subprocess


from conftest import PASSWORD, ROOT


def _capturectl():
    candidates = [os.environ.get("CAPTURECTL_BIN"), ".build/debug/capturectl"]
    for candidate in filter(None, candidates):
        path = pathlib.Path(candidate)
        path = path if path.is_absolute() else ROOT / path
        if path.exists():
            probe = subprocess.run([str(path), "token", "list", "--help"], capture_output=True, text=True, timeout=30)
            if probe.returncode == 0:
                return path
    return None


def test_capturectl_revocation_ends_the_web_view_session(server, host):
    binary = _capturectl()
    assert binary is not None, "capturectl is not built (swift build) or CAPTURECTL_BIN does not run"

    def capturectl(*arguments):
        return subprocess.run([str(binary), *arguments, "--db", server.store.location, "--settings", str(ROOT / "Settings")],
                              capture_output=True, text=True, timeout=60)

    email, _ = server.register()
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    token = host.wait_for_event("onCaptureLoginSuccess").result["accessToken"]
    digest = hashlib.sha256(token.encode()).hexdigest()

    listed = capturectl("token", "list", "--user", email)
    assert listed.returncode == 0, listed.stderr
    assert token not in listed.stdout and digest not in listed.stdout, "capturectl shows fingerprints only"
    assert digest[:12] in listed.stdout

    revoked = capturectl("token", "revoke", digest[:12])
    assert revoked.returncode == 0, revoked.stderr
    assert server.post("/entity", {"access_token": token})[1]["stat"] == "error"

    queue_mark, _ = host.mark()
    host.reload()
    host.wait_for_event("onCaptureInvalidToken", after=queue_mark)
    host.wait_for_event("onCaptureSessionEnded", after=queue_mark)
    assert host.run_js("janrain.capture.ui.hasActiveSession()") is False
