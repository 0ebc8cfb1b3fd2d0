"""The sign-in page as a phone on a slow network sees it (issue 54, docs/adr/0070): loaded in WebKit through a loopback
proxy that plays a mobile link (Support/throttle_proxy.py), on a first visit (cold) and a return visit (warm) of the
same web view: the time until the sign-in form is usable, the bytes and requests on the wire, the round trips that
follow one another, the connections opened. With CAPTURE_PAGE_BENCH set (`make page-bench`) the figures are printed
as a table."""

import os
import pathlib
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "Support"))
from throttle_proxy import ThrottleProxy  # noqa: E402

from conftest import CLIENT_ID  # noqa: E402

# name: (round trip in ms, kbit/s per connection and direction)
PROFILES = {
    "3G": (300, 400),
    "4G": (80, 4000),
}
# The budgets: a first visit within 60 KB and 4 round trips one after another, a return visit one request
# (the page itself, 304 or 200); on the 3G-like link, usable within 1.5 s and 0.8 s.
COLD_KILOBYTES = 60
COLD_ROUND_TRIPS = 4
WARM_REQUESTS = 1
SECONDS = {"3G": (1.5, 0.8)}
# Not met on a first visit: the page's first byte takes a handshake and a round trip (0.6 s), the bundle another
# connection's handshake and round trip after the head arrives (0.6 s more), and its 32 KB (gzip) take 0.65 s at
# 400 kbit/s: about 2.1 s in all on a quiet machine (docs/adr/0070). Held here, with room for a machine running the
# suite on two workers, so it cannot grow unnoticed; the 1.5 s stays the budget above, reported by
# `make page-bench`.
COLD_SECONDS_MEASURED = {"3G": 3.0}
# Timing is the fastest of this many loads (a busy test machine only ever adds time); bytes and requests are the same
# every time.
TRIES = 3


class Load:
    def __init__(self, seconds, stats, until):
        self.seconds = seconds
        self.stats = stats
        self.requests = [r for r in stats.requests if r.sent <= until]
        self.round_trips = stats.sequential_round_trips(until)

    @property
    def kilobytes(self):
        return self.stats.bytes_down / 1000.0

    def row(self, profile, visit):
        return "| %s | %s | %.2f s | %.1f KB | %d | %d | %d |" % (
            profile, visit, self.seconds, self.kilobytes, len(self.requests), self.round_trips, self.stats.connections)

    def describe(self):
        return "\n".join("  #%d %s %s -> %s, %d bytes" % (r.connection, r.method, r.path, r.status, r.reply_bytes)
                         for r in self.requests)


def load_until_usable(host, proxy, url, timeout=30):
    """Loads `url` in `host` through `proxy` and waits until the sign-in form is usable (the widget rendered its first
    screen and said so); returns a Load: the time from the navigation's start and what crossed the proxy."""
    proxy.reset()
    seen = len(host.message_events)
    host._load_finished = False
    started = time.monotonic()
    host.view.load_uri(url)
    host.wait_for(lambda: any(e.name == "onCaptureRenderComplete" for e in host.message_events[seen:]),
                  timeout, "the sign-in form")
    usable = time.monotonic()
    host.wait_for(lambda: host._load_finished, timeout, "the load's end")
    assert host.visible_screen() == ["signIn"]
    assert host.run_js("document.activeElement !== null && !!document.querySelector('#signIn form')") is True
    host.pump(0.3)  # anything still on its way is counted, then left out by time
    return Load(usable - started, proxy.stats(), usable)


def upstream(server):
    address, port = server.base.split("//")[1].rsplit(":", 1)
    return address, int(port)


def measure(server, make_host, profile):
    """The cold and warm loads of one fresh web view through the profile's link (the fastest of TRIES for time)."""
    rtt_ms, kbit = PROFILES[profile]
    best = None
    for _ in range(TRIES):
        with ThrottleProxy(*upstream(server), rtt_ms=rtt_ms, kbit_per_second=kbit) as proxy:
            host = make_host()
            url = proxy.base + "/flows/webViewSignIn?client_id=" + CLIENT_ID
            cold = load_until_usable(host, proxy, url)
            warm = load_until_usable(host, proxy, url)
            host.close()
        if best is None or cold.seconds + warm.seconds < best[0].seconds + best[1].seconds:
            best = (cold, warm)
    return best


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_sign_in_page_on_a_mobile_link(server, make_host, profile):
    cold, warm = measure(server, make_host, profile)
    if os.environ.get("CAPTURE_PAGE_BENCH"):
        print("\n%s\n%s" % (cold.row(profile, "cold"), warm.row(profile, "warm")))
    assert cold.kilobytes <= COLD_KILOBYTES, "%.1f KB on a first visit:\n%s" % (cold.kilobytes, cold.describe())
    assert cold.round_trips <= COLD_ROUND_TRIPS, "%d round trips:\n%s" % (cold.round_trips, cold.describe())
    assert len(warm.requests) <= WARM_REQUESTS, "a return visit asked for more than the page:\n" + warm.describe()
    assert warm.requests[0].path.startswith("/flows/webViewSignIn")
    if profile in SECONDS:
        cold_budget, warm_budget = SECONDS[profile]
        cold_budget = max(cold_budget, COLD_SECONDS_MEASURED.get(profile, 0))
        assert cold.seconds <= cold_budget, "first visit usable after %.2f s:\n%s" % (cold.seconds, cold.describe())
        assert warm.seconds <= warm_budget, "return visit usable after %.2f s:\n%s" % (warm.seconds, warm.describe())


def test_revalidated_assets_keep_their_connections(server, make_host):
    """A page whose assets are named plainly (the error page: capture.css, janrain-bridge.js, error-page.js, all
    `no-cache`) revalidates them on every return visit; each 304 carries `Content-Length: 0`, so WebKit keeps the
    connection for the next request instead of closing it (issue 54: one connection per 304 before)."""
    with ThrottleProxy(*upstream(server), rtt_ms=0) as proxy:
        host = make_host()
        url = proxy.base + "/flows/webViewSignIn?client_id=not-a-client"
        host.load(url)
        host.wait_for_event("onCaptureRenderComplete")
        host.pump(0.3)
        for _ in range(2):
            proxy.reset()
            host.load(url)
            host.pump(0.5)
            stats = proxy.stats()
            revalidated = [r for r in stats.requests if r.status == 304]
            assert len(revalidated) >= 3, stats.requests
            assert stats.closed_by_client == 0, "connections ended on a return visit: %s" % stats.requests
        # Before, each 304 ended its connection, so a second return visit opened one per request.
        assert stats.connections < len(stats.requests), \
            "a second return visit opened %d connections for %s" % (stats.connections, stats.requests)
