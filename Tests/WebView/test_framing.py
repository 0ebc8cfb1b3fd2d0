"""Bridge origin spoofing (docs/threat-model.md): another site cannot frame the flow pages to overhear or
drive their bridge, and the pages cannot frame another origin that could post bridge messages of its own."""

import urllib.parse


def other_origin(server):
    """The same service under another name: a different origin for the browser."""
    return server.base.replace("127.0.0.1", "localhost")


def test_other_sites_cannot_frame_the_pages_to_overhear_the_bridge(server, host):
    outside = other_origin(server) + "/"
    page = server.page("webViewSignIn")
    host._load_finished = False
    host.view.load_html('<!doctype html><title>other site</title><iframe src="%s"></iframe>' % page, outside)
    host.wait_for(lambda: host._load_finished, 15, "the other site's page to load")
    host.settle()
    # frame-ancestors 'none' (and X-Frame-Options for web views that ignore it): the framed page never runs.
    assert host.names(host.message_events) == [] and host.names(host.queue_events) == []
    assert host.run_js("document.title") == "other site"

    # Control: the same page opened directly does speak over the bridge.
    host.load(page)
    host.wait_for_event("onCaptureRenderComplete", "message")


def test_the_pages_cannot_frame_another_origin(server, host):
    host.load(server.page("webViewSignIn"))
    host.wait_for_event("onCaptureRenderComplete", "message")
    before = len(host.message_events)
    foreign = other_origin(server) + "/flows/webViewSignIn?" + urllib.parse.urlencode({"client_id": "demo-mobile-app"})
    host.run_js("""(function(){window.__violations=[];
        document.addEventListener('securitypolicyviolation', function(e){ window.__violations.push(e.effectiveDirective); });
        var f=document.createElement('iframe'); f.src=%r; document.body.appendChild(f); return true;})()""" % foreign)
    host.wait_for(lambda: host.run_js("window.__violations.length") > 0, 10, "a CSP violation report")
    assert host.run_js("window.__violations") == ["frame-src"]
    host.settle()
    assert host.message_events[before:] == [], "nothing inside a foreign frame got to post bridge messages"
