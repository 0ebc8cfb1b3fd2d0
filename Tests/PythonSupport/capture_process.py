"""The real capture-server as a child process of a pytest suite (Tests/WebView, Tests/Interop): a free loopback port,
a child that dies with pytest, waiting for /health/ready, and a graceful stop."""

import ctypes
import signal
import socket
import subprocess
import time
import urllib.request

import pytest


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def die_with_parent():
    """preexec_fn: on Linux the server gets SIGTERM if pytest dies without running the fixture's teardown."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def wait_until_ready(process, base, log, seconds=30):
    """Returns once base/health/ready answers 200; fails the test (with the server's log) if the process exits or
    the time runs out."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            pytest.fail("capture-server exited with %s before it was ready:\n%s" % (process.returncode, log()),
                        pytrace=False)
        try:
            with urllib.request.urlopen(base + "/health/ready", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail("capture-server not ready after %d s:\n%s" % (seconds, log()), pytrace=False)
        time.sleep(0.05)


def stop(process):
    """SIGTERM (in-flight requests finish), SIGKILL if it is still there after 10 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
