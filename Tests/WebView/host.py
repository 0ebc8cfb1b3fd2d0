"""A native host for the flow pages, driving a real WebKit web view the way Janrain's iOS reference host
drives its WKWebView: a user agent carrying `janrainNativeAppBridgeEnabled`, `janrain:` navigations
intercepted and cancelled, the event queue drained by evaluating JavaScript, and a `janrainBridge`
script-message handler (WKScriptMessageHandler's counterpart)."""

import json
import time
import urllib.parse

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2  # noqa: E402

DRAIN = (
    "(function(){var q=JSON.stringify(createJanrainBridge.eventQueue);"
    "createJanrainBridge.eventQueue.length=0;return q;})()"
)


class JavaScriptError(Exception):
    pass


class NativeHost:
    def __init__(self, width=375, height=812):
        self.queue_events = []  # (name, arguments) drained from createJanrainBridge.eventQueue
        self.message_events = []  # (name, arguments) from window.webkit.messageHandlers.janrainBridge
        self.signals = []  # every janrain:eventsAvailable?<ms> seen
        self.legacy_tokens = []  # from janrain:accessToken=<token>
        self.queue_errors = []  # entries carrying ?error=
        self._loaded = False

        self.content = WebKit2.UserContentManager()
        self.content.register_script_message_handler("janrainBridge")
        self.content.connect("script-message-received::janrainBridge", self._on_script_message)
        context = WebKit2.WebContext.new_with_website_data_manager(WebKit2.WebsiteDataManager.new_ephemeral())
        self.view = WebKit2.WebView(web_context=context, user_content_manager=self.content)
        settings = self.view.get_settings()
        settings.set_user_agent(settings.get_user_agent() + " janrainNativeAppBridgeEnabled")
        self.view.connect("decide-policy", self._on_decide_policy)
        self.view.connect("load-changed", self._on_load_changed)
        self.window = Gtk.Window()
        self.window.set_default_size(width, height)
        self.window.add(self.view)
        self.window.show_all()

    # --- what the host sees -------------------------------------------------------------------------
    def _on_decide_policy(self, _view, decision, decision_type):
        if decision_type not in (
            WebKit2.PolicyDecisionType.NAVIGATION_ACTION,
            WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION,
        ):
            return False
        uri = decision.get_navigation_action().get_request().get_uri()
        if not uri.startswith("janrain:"):
            return False
        decision.ignore()  # the page must never actually navigate to janrain:
        if uri.startswith("janrain:eventsAvailable"):
            self.signals.append(uri)
            self._drain()
        elif uri.startswith("janrain:accessToken="):
            self.legacy_tokens.append(uri[len("janrain:accessToken="):])
        return True

    def _drain(self):
        def done(view, result):
            value = view.evaluate_javascript_finish(result)
            for entry in json.loads(value.to_string()):
                self.queue_events.append(parse_queue_entry(entry, self.queue_errors))

        self.view.evaluate_javascript(DRAIN, -1, None, None, None, done)

    def _on_script_message(self, _manager, message):
        value = message.get_js_value() if hasattr(message, "get_js_value") else message
        payload = json.loads(value.to_json(0))
        if isinstance(payload, str):  # Android-style JSON string
            payload = json.loads(payload)
        self.message_events.append((payload["event"], payload["arguments"]))

    def _on_load_changed(self, _view, event):
        if event == WebKit2.LoadEvent.FINISHED:
            self._loaded = True

    # --- what the host does -------------------------------------------------------------------------
    def load(self, url, timeout=15):
        self._loaded = False
        self.view.load_uri(url)
        self.wait_for(lambda: self._loaded, timeout, f"page {url} to load")
        self.wait_for(lambda: self.js("typeof janrain !== 'undefined' && !!janrain.capture"), timeout, "widget to load")

    def reload(self, timeout=15):
        self._loaded = False
        self.view.reload()
        self.wait_for(lambda: self._loaded, timeout, "reload")

    def js(self, expression, timeout=10):
        """Evaluates an expression in the page and returns its JSON value."""
        box = {}

        def done(view, result):
            try:
                value = view.evaluate_javascript_finish(result)
                box["value"] = json.loads(value.to_string()) if not value.is_undefined() else None
            except GLib.Error as error:
                box["error"] = error.message

        script = "JSON.stringify((function(){ return (%s); })())" % expression
        self.view.evaluate_javascript(script, -1, None, None, None, done)
        self.wait_for(lambda: box, timeout, f"JavaScript {expression!r}")
        if "error" in box:
            raise JavaScriptError(box["error"])
        return box["value"]

    def submit(self, form_selector, values):
        """Fills inputs by name inside the visible form and submits it with its submit button."""
        script = """(function(){
            var forms = Array.prototype.filter.call(document.querySelectorAll(%s), function(f){ return f.offsetParent !== null; });
            if (!forms.length) throw new Error('no visible form ' + %s);
            var form = forms[0], values = %s;
            Object.keys(values).forEach(function(name){
                var input = form.querySelector('[name="' + name + '"]');
                if (!input) throw new Error('no field ' + name);
                input.value = values[name];
                input.dispatchEvent(new Event('input', {bubbles: true}));
            });
            form.querySelector('button[type=submit]').click();
            return true; })()""" % (json.dumps(form_selector), json.dumps(form_selector), json.dumps(values))
        return self.js(script)

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            GLib.MainContext.default().iteration(False)
            time.sleep(0.005)

    def wait_for(self, predicate, timeout, what):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            while GLib.MainContext.default().pending():
                GLib.MainContext.default().iteration(False)
            result = predicate()
            if result:
                return result
            time.sleep(0.01)
        raise AssertionError(
            f"timed out after {timeout}s waiting for {what}; queue events: {self.names(self.queue_events)}; "
            f"message events: {self.names(self.message_events)}"
        )

    def wait_event(self, name, after=0, timeout=15, transport="queue"):
        events = self.queue_events if transport == "queue" else self.message_events
        return self.wait_for(
            lambda: next((args for event, args in events[after:] if event == name), None),
            timeout,
            f"{name} on the {transport} transport",
        )

    @staticmethod
    def names(events):
        return [name for name, _ in events]

    def snapshot(self, path):
        box = {}

        def done(view, result):
            box["surface"] = view.get_snapshot_finish(result)

        self.view.get_snapshot(WebKit2.SnapshotRegion.FULL_DOCUMENT, WebKit2.SnapshotOptions.NONE, None, done)
        self.wait_for(lambda: box, 10, "snapshot")
        box["surface"].write_to_png(path)

    def close(self):
        self.window.destroy()
        self.pump(0.05)


def parse_queue_entry(entry, errors):
    """`janrain:<event>?arguments=<encoded JSON array>` → (event, arguments)."""
    assert entry.startswith("janrain:"), entry
    name, _, query = entry[len("janrain:"):].partition("?")
    key, _, value = query.partition("=")
    if key == "error":
        errors.append((name, urllib.parse.unquote(value)))
        return (name, None)
    assert key == "arguments", entry
    return (name, json.loads(urllib.parse.unquote(value)))
