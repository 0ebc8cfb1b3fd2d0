import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLIENT_ID = "demo-mobile-app"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    """The real capture-server binary on loopback with its own database; stopped after the suite."""
    binary = pathlib.Path(os.environ.get("CAPTURE_SERVER_BIN", ROOT / ".build/debug/capture-server"))
    if not binary.is_absolute():
        binary = ROOT / binary
    assert binary.exists(), f"{binary} is missing: build it first (swift build)"
    work = tempfile.mkdtemp(prefix="capture-webview-")
    port = free_port()
    database = os.path.join(work, "capture.sqlite")
    log = open(os.path.join(work, "server.log"), "w")
    env = dict(os.environ, CAPTURE_BCRYPT_COST="10")
    process = subprocess.Popen(
        [str(binary), "--host", "127.0.0.1", "--port", str(port), "--db", database, "--settings", str(ROOT / "Settings")],
        stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if urllib.request.urlopen(base + "/health/ready", timeout=1).status == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("capture-server did not become ready: " + open(log.name).read())
        yield {"base": base, "db": database, "binary": binary}
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def host():
    from host import NativeHost

    native = NativeHost()
    yield native
    native.close()
