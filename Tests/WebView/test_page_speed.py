"""The sign-in page as a phone on a slow network sees it (issue 54, docs/adr/0070, 0073): loaded in WebKit through a
loopback proxy that plays a mobile link (Support/throttle_proxy.py), on a first visit (cold) and a return visit (warm)
of a web view that keeps its HTTP cache: the time until the sign-in form shows and until the whole widget is ready, the
bytes and requests on the wire, the round trips that follow one another, the connections opened. With CAPTURE_PAGE_BENCH set (`make page-bench`) the figures are printed
as a table."""

import os
import pathlib
import sys
import tempfile
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
# The budgets: a first visit within 60 KB (all of it, the rest of the widget included) and 4 round trips one
# after another before the form shows, a return visit one request (the page itself, 304 or 200); on the 3G-like link,
# the form shown within 1.5 s and 0.8 s. The form is shown when it takes typing; a tap waits for the rest of the
# widget (capture-arrival.js, docs/adr/0073), whose arrival (onCaptureRenderComplete) is reported beside it.
COLD_KILOBYTES = 60
COLD_ROUND_TRIPS = 4
WARM_REQUESTS = 1
SECONDS = {"3G": (1.5, 0.8)}
# Timing is the fastest of this many loads (a busy test machine only ever adds time); bytes and requests are the same
# every time.
TRIES = 3


class Load:
    def __init__(self, shown, ready, stats):
        self.seconds = shown  # until the sign-in form shows and takes typing
        self.ready = ready  # until every module has run (onCaptureRenderComplete: ready for the host's commands)
        self.stats = stats
        until = stats.started + shown
        self.requests = [r for r in stats.requests if r.sent <= until]
        self.round_trips = stats.sequential_round_trips(until)

    @property
    def kilobytes(self):
        return self.stats.bytes_down / 1000.0

    def row(self, profile, visit):
        return "| %s | %s | %.2f s | %.2f s | %.1f KB | %d | %d | %d |" % (
            profile, visit, self.seconds, self.ready, self.kilobytes, len(self.requests), self.round_trips,
            self.stats.connections)

    def describe(self):
        return "\n".join("  #%d %s %s -> %s, %d bytes" % (r.connection, r.method, r.path, r.status, r.reply_bytes)
                         for r in self.stats.requests)


def load_until_usable(host, proxy, url, timeout=30):
    """Loads `url` in `host` through `proxy`; returns a Load: the time from the navigation's start until the sign-in
    form shows (onCaptureScreenShow of signIn: it takes typing, and a tap waits for the rest of the widget,
    capture-arrival.js) and until the widget is ready for commands (onCaptureRenderComplete), and what crossed the
    proxy."""
    proxy.reset()
    seen = len(host.message_events)
    host._load_finished = False
    started = time.monotonic()
    host.view.load_uri(url)

    def event_time(name, test=lambda e: True):
        host.wait_for(lambda: any(e.name == name and test(e) for e in host.message_events[seen:]), timeout, name)
        return time.monotonic() - started

    shown = event_time("onCaptureScreenShow", lambda e: (e.result or {}).get("screen") == "signIn")
    assert host.run_js("!!document.querySelector('#signIn form') && !document.getElementById('signIn').hidden") is True
    ready = event_time("onCaptureRenderComplete")
    host.wait_for(lambda: host._load_finished, timeout, "the load's end")
    assert host.visible_screen() == ["signIn"]
    host.pump(0.3)  # anything still on its way is counted (requests after the form showed are left out of its count)
    stats = proxy.stats()
    stats.started = started
    return Load(shown, ready, stats)


def upstream(server):
    address, port = server.base.split("//")[1].rsplit(":", 1)
    return address, int(port)


def measure(server, make_host, profile):
    """A first visit, then a return visit after the web view showed something else (an app presenting its sign-in
    screen again: its web views share one network session and the HTTP cache WKWebView's default data store keeps),
    through the profile's link; the fastest of TRIES for time."""
    rtt_ms, kbit = PROFILES[profile]
    best = None
    for _ in range(TRIES):
        with ThrottleProxy(*upstream(server), rtt_ms=rtt_ms, kbit_per_second=kbit) as proxy, \
                tempfile.TemporaryDirectory(prefix="page-speed-") as data:
            url = proxy.base + "/flows/webViewSignIn?client_id=" + CLIENT_ID
            host = make_host(data_directory=data)
            cold = load_until_usable(host, proxy, url)
            # Loading the page's own address again would be a reload (WebKit fetches it whole, without validators).
            host.load("about:blank")
            warm = load_until_usable(host, proxy, url)
            loads = (cold, warm)
            host.close()
        if best is None or loads[0].seconds + loads[1].seconds < best[0].seconds + best[1].seconds:
            best = tuple(loads)
    return best


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_the_sign_in_page_on_a_mobile_link(server, make_host, profile):
    cold, warm = measure(server, make_host, profile)
    if os.environ.get("CAPTURE_PAGE_BENCH"):
        print("\n%s\n%s" % (cold.row(profile, "cold"), warm.row(profile, "warm")))
    assert cold.kilobytes <= COLD_KILOBYTES, "%.1f KB on a first visit:\n%s" % (cold.kilobytes, cold.describe())
    assert cold.round_trips <= COLD_ROUND_TRIPS, "%d round trips:\n%s" % (cold.round_trips, cold.describe())
    # Nothing but the page, even after the form showed: the rest of the widget is in the web view's cache.
    assert len(warm.stats.requests) <= WARM_REQUESTS, "a return visit asked for more than the page:\n" + warm.describe()
    assert warm.stats.requests[0].path.startswith("/flows/webViewSignIn")
    assert warm.stats.requests[0].status == 304, "the page is revalidated, not sent again:\n" + warm.describe()
    if profile in SECONDS:
        cold_budget, warm_budget = SECONDS[profile]
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


def test_what_is_typed_and_tapped_before_the_rest_arrives_is_kept(server, make_host):
    """On the 3G-like link the form shows about 0.7 s before the rest of the widget has run (capture-arrival.js): an
    address typed meanwhile stays, and a tap on "Create an account" made meanwhile is acted on once it has — the
    registration screen, with the address carried — not lost, and not acted on half-loaded."""
    with ThrottleProxy(*upstream(server), rtt_ms=300, kbit_per_second=400) as proxy:
        host = make_host()
        host.view.load_uri(proxy.base + "/flows/webViewSignIn?client_id=" + CLIENT_ID)
        host.wait_for(lambda: any(e.name == "onCaptureScreenShow" for e in host.message_events), 30, "the sign-in form")
        assert host.run_js("window.janrain.capture._widget.arrival.pending()") is True, "the rest came with the page"
        host.run_js("""(function () {
            var email = document.querySelector('#signIn input[type=email]');
            email.focus(); email.value = 'early@example.com';
            email.dispatchEvent(new Event('input', {bubbles: true}));
            document.querySelector('#signIn [data-capture-screen="traditionalRegistration"]').click();
            return true;
        })()""")
        assert host.visible_screen() == ["signIn"], "a tap is held until the rest of the widget has run"
        host.wait_for(lambda: any(e.name == "onCaptureRenderComplete" for e in host.message_events), 30, "the widget")
        host.wait_for(lambda: host.visible_screen() == ["traditionalRegistration"], 10, "the tap, acted on")
        assert host.run_js("document.querySelector('#traditionalRegistration input[type=email]').value") \
            == "early@example.com"
        host.close()
