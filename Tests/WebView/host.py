"""A native-host harness around a WebKitGTK web view, driven the way Janrain's iOS reference host
drives a WKWebView: a user agent that enables the bridge, `janrain:` navigations intercepted and
cancelled, the event queue drained with Janrain's exact expression, plus the modern
`janrainBridge` script message handler. Every event the page hands over is recorded per transport.
"""

import json
import os
import pathlib
import time
import urllib.parse

import gi

# Pages are painted by Skia on the processor: there is no GPU under Xvfb, and painting through Mesa's software OpenGL
# (llvmpipe) cost the suite about 30 more processor-seconds for the same pixels. Read by each web process as it starts.
os.environ.setdefault("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1")

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2  # noqa: E402

# The host's drain expression, verbatim from Janrain's reference protocol (docs/contract.md §4).
DRAIN_JS = (
    "(function(){var q=JSON.stringify(createJanrainBridge.eventQueue);"
    "createJanrainBridge.eventQueue.length=0;return q;})()"
)
BRIDGE_UA_FLAG = "janrainNativeAppBridgeEnabled"
# Counts the page's requests still in flight (a fetch or an XMLHttpRequest not answered yet, or a reply's body not
# read yet) in window.__hostRequests, for `settle` (a test's own, never the page's: injected at document start).
REQUESTS_IN_FLIGHT_JS = """(function () {
  if (window.__hostRequests !== undefined) return;
  window.__hostRequests = 0;
  function counted(promise) {
    window.__hostRequests += 1;
    var done = function () { window.__hostRequests -= 1; };
    promise.then(done, done);
    return promise;
  }
  var fetch = window.fetch;
  if (fetch) window.fetch = function () {
    try { return counted(fetch.apply(this, arguments)); } catch (error) { return Promise.reject(error); }
  };
  ['json', 'text', 'arrayBuffer', 'blob', 'formData'].forEach(function (name) {
    var read = window.Response && Response.prototype[name];
    if (read) Response.prototype[name] = function () { return counted(read.apply(this, arguments)); };
  });
  var send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () {
    window.__hostRequests += 1;
    this.addEventListener('loadend', function () { window.__hostRequests -= 1; });
    return send.apply(this, arguments);
  };
})();"""
PHONE_WIDTH = 375
PHONE_HEIGHT = 812


def set_dark_scheme(dark):
    """Asks for GTK's dark theme, which WebKitGTK reports to pages as `prefers-color-scheme: dark` (live, in every
    web view of the process); tests that set it put it back (tests check matchMedia before relying on it)."""
    Gtk.Settings.get_default().set_property("gtk-application-prefer-dark-theme", bool(dark))


class HostTimeout(AssertionError):
    """A wait ran out; the message says what was awaited and what the host saw."""


class BridgeEvent:
    """One event as the host received it."""

    def __init__(self, name, arguments=None, error=None, transport=""):
        self.name = name
        self.arguments = arguments if arguments is not None else []
        self.error = error
        self.transport = transport

    @property
    def result(self):
        """The handler's first argument (Janrain passes one result object)."""
        return self.arguments[0] if self.arguments else None

    def __repr__(self):
        return "%s:%s" % (self.transport, self.name)


def parse_queue_entry(entry):
    """`janrain:<event>?arguments=<encoded JSON>` or `janrain:<event>?error=<encoded message>`."""
    if not entry.startswith("janrain:"):
        raise ValueError("queue entry without janrain: scheme: %r" % entry)
    name, _, query = entry[len("janrain:"):].partition("?")
    key, _, value = query.partition("=")
    if key == "arguments":
        return BridgeEvent(name, json.loads(urllib.parse.unquote(value)), transport="queue")
    if key == "error":
        return BridgeEvent(name, error=urllib.parse.unquote(value), transport="queue")
    raise ValueError("queue entry with neither arguments nor error: %r" % entry)


class Host:
    """A phone-sized window holding one web view, with its own website data: ephemeral, or kept in `data_directory`."""

    def __init__(self, bridge_user_agent=True, message_handler=True, languages=None, data_directory=None):
        self.queue_events = []  # via janrain:eventsAvailable + drain
        self.message_events = []  # via webkit.messageHandlers.janrainBridge
        self.token_urls = []  # tokens from janrain:accessToken=<token>
        self.signals = []  # every janrain:eventsAvailable?… URI seen
        self.intercepted = []  # every janrain: URI cancelled
        # As ASWebAuthenticationSession's callback scheme: navigations to these prefixes end the session and are kept
        # (an OpenID Connect client's redirect URI).
        self.callback_prefixes = []
        self.callbacks = []
        self.drain_errors = []
        self.load_failures = []
        self._drains_in_flight = 0
        self._load_finished = False
        self._quiet_marks_sent = 0
        self._quiet_mark_seen = 0

        if data_directory:
            # Kept website data and an HTTP cache on disk, as WKWebView's default data store keeps them in an app:
            # a return visit revalidates the page (If-None-Match) instead of fetching it whole.
            self.data_manager = WebKit2.WebsiteDataManager(
                base_data_directory=str(data_directory), base_cache_directory=str(data_directory))
            self.context = WebKit2.WebContext.new_with_website_data_manager(self.data_manager)
            self.context.set_cache_model(WebKit2.CacheModel.WEB_BROWSER)
        else:
            self.data_manager = WebKit2.WebsiteDataManager.new_ephemeral()
            self.context = WebKit2.WebContext.new_with_website_data_manager(self.data_manager)
        if languages:
            # The phone's language list, as the web view sends it in Accept-Language (e.g. ["fr-FR", "fr"]).
            self.context.set_preferred_languages(list(languages))
        self.content_manager = WebKit2.UserContentManager()
        # The test's own channel (`settle`), beside whatever the page is offered.
        self.content_manager.connect("script-message-received::hostQuiet", self._on_quiet_mark)
        if not self.content_manager.register_script_message_handler("hostQuiet"):
            raise RuntimeError("could not register the hostQuiet script message handler")
        self.add_user_script(REQUESTS_IN_FLIGHT_JS)
        if message_handler:
            self.content_manager.connect("script-message-received::janrainBridge", self._on_script_message)
            if not self.content_manager.register_script_message_handler("janrainBridge"):
                raise RuntimeError("could not register the janrainBridge script message handler")
        self.view = WebKit2.WebView(web_context=self.context, user_content_manager=self.content_manager)

        settings = self.view.get_settings()
        settings.set_enable_developer_extras(False)
        if bridge_user_agent:
            settings.set_user_agent(settings.get_user_agent() + " " + BRIDGE_UA_FLAG)
        self.view.connect("decide-policy", self._on_decide_policy)
        self.view.connect("load-changed", self._on_load_changed)
        self.view.connect("load-failed", self._on_load_failed)

        self.window = Gtk.Window()
        self.window.set_default_size(PHONE_WIDTH, PHONE_HEIGHT)
        self.window.set_size_request(PHONE_WIDTH, PHONE_HEIGHT)
        self.window.set_resizable(False)
        self.window.add(self.view)
        self.window.show_all()

    # ------------------------------------------------------------------ native side of the bridge

    def _on_decide_policy(self, view, decision, decision_type):
        if decision_type not in (
            WebKit2.PolicyDecisionType.NAVIGATION_ACTION,
            WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION,
        ):
            return False
        uri = decision.get_navigation_action().get_request().get_uri() or ""
        if any(uri.startswith(prefix) for prefix in self.callback_prefixes):
            decision.ignore()
            self.callbacks.append(uri)
            return True
        if not uri.startswith("janrain:"):
            return False
        decision.ignore()
        self.intercepted.append(uri)
        if uri.startswith("janrain:eventsAvailable"):
            self.signals.append(uri)
            self._drain()
        elif uri.startswith("janrain:accessToken="):
            self.token_urls.append(uri[len("janrain:accessToken="):])
        return True

    def _drain(self):
        self._drains_in_flight += 1
        self._evaluate(DRAIN_JS, self._on_drained)

    def _on_drained(self, value, error):
        self._drains_in_flight -= 1
        if error is not None:
            self.drain_errors.append(error)
            return
        try:
            for entry in json.loads(value):
                self.queue_events.append(parse_queue_entry(entry))
        except (TypeError, ValueError) as problem:
            self.drain_errors.append("%s (drained %r)" % (problem, value))

    def _on_script_message(self, manager, message):
        # WebKit2 4.1 hands over a JavascriptResult; newer bindings may give the JSCValue directly.
        value = message.get_js_value() if hasattr(message, "get_js_value") else message
        payload = json.loads(value.to_json(0))
        self.message_events.append(
            BridgeEvent(payload.get("event"), payload.get("arguments"), payload.get("error"), "message")
        )

    def _on_quiet_mark(self, manager, message):
        value = message.get_js_value() if hasattr(message, "get_js_value") else message
        self._quiet_mark_seen = max(self._quiet_mark_seen, int(json.loads(value.to_json(0))))

    def _on_load_changed(self, view, event):
        if event == WebKit2.LoadEvent.FINISHED:
            self._load_finished = True

    def _on_load_failed(self, view, event, uri, error):
        self.load_failures.append("%s: %s" % (uri, error.message))
        return False

    # ------------------------------------------------------------------ JavaScript

    def _evaluate(self, script, done):
        """Runs `script` in the page; calls done(json_text_or_string, error_text)."""

        def finished(view, result, _data=None):
            try:
                if hasattr(view, "evaluate_javascript_finish"):
                    value = view.evaluate_javascript_finish(result)
                else:
                    value = view.run_javascript_finish(result).get_js_value()
            except GLib.Error as error:
                done(None, error.message)
                return
            if value.is_string():
                done(value.to_string(), None)
            elif value.is_undefined():
                done(None, None)
            else:
                done(value.to_json(0), None)

        if hasattr(self.view, "evaluate_javascript"):
            self.view.evaluate_javascript(script, -1, None, None, None, finished, None)
        else:
            self.view.run_javascript(script, None, finished, None)

    def run_js(self, expression, timeout=10):
        """Evaluates an expression and returns its value as Python (via JSON)."""
        box = {}
        wrapped = "JSON.stringify((function(){return (%s);})())" % expression
        self._evaluate(wrapped, lambda value, error: box.update(value=value, error=error, done=True))
        self.wait_for(lambda: box.get("done"), timeout, "JavaScript to finish: %s" % expression[:120])
        if box["error"]:
            raise AssertionError("JavaScript failed: %s\n  in: %s" % (box["error"], expression[:300]))
        return None if box["value"] is None else json.loads(box["value"])

    def command(self, expression, timeout=10):
        """Evaluates a host command exactly as a native host does (WKWebView `evaluateJavaScript`: the expression
        itself, no wrapper) and returns (type, value) of its result: type is "boolean", "string", "number", "null",
        "undefined" or "object" (a Promise, for one). An evaluation error fails the test, as it is an error in
        WKWebView's completion handler."""
        box = {}

        def finished(view, result, _data=None):
            try:
                if hasattr(view, "evaluate_javascript_finish"):
                    value = view.evaluate_javascript_finish(result)
                else:
                    value = view.run_javascript_finish(result).get_js_value()
            except GLib.Error as error:
                box.update(error=error.message, done=True)
                return
            for kind in ("undefined", "null", "boolean", "number", "string"):
                if getattr(value, "is_" + kind)():
                    plain = {"undefined": None, "null": None, "boolean": value.to_boolean,
                             "number": value.to_double, "string": value.to_string}[kind]
                    box.update(kind=kind, value=plain() if callable(plain) else plain, done=True)
                    return
            box.update(kind="object", value=value.to_string(), done=True)

        if hasattr(self.view, "evaluate_javascript"):
            self.view.evaluate_javascript(expression, -1, None, None, None, finished, None)
        else:
            self.view.run_javascript(expression, None, finished, None)
        self.wait_for(lambda: box.get("done"), timeout, "host command to finish: %s" % expression[:120])
        if "error" in box:
            raise AssertionError("host command failed: %s\n  in: %s" % (box["error"], expression[:300]))
        return box["kind"], box["value"]

    def complete_passkey(self, answer, as_text=True):
        """Answers the page's onCapturePasskeyRequest as a native host does once its platform API is done:
        evaluates `janrain.capture.ui.completePasskey(...)` with the credential as a JSON text literal (Android's
        `JSONObject.quote(result)`), as an object literal (`as_text=False`, iOS's `JSONSerialization`), or `null`
        (cancelled). Returns (type, value) of the command's result."""
        if answer is None:
            argument = "null"
        else:
            text = answer if isinstance(answer, str) else json.dumps(answer)
            argument = json.dumps(text) if as_text else text
        return self.command("janrain.capture.ui.completePasskey(%s)" % argument)

    # ------------------------------------------------------------------ waiting

    def pump(self, seconds=0.0):
        """Runs the main loop for a while (at least one pass)."""
        context = GLib.MainContext.default()
        deadline = time.monotonic() + seconds
        while True:
            while context.pending():
                context.iteration(False)
            if time.monotonic() >= deadline:
                return
            time.sleep(0.005)

    def wait_for(self, predicate, timeout=10, what="condition"):
        """Runs the main loop until predicate() is truthy; returns its value or fails clearly. Between checks it sleeps
        in the main loop until an event arrives (a script's result, a navigation) or 10 ms pass, so a predicate that
        asks the page is asked at most every 10 ms and an idle wait costs no processor time."""
        context = GLib.MainContext.default()
        deadline = time.monotonic() + timeout
        wake_up = GLib.timeout_add(10, lambda: True)
        try:
            while True:
                value = predicate()
                if value:
                    return value
                if time.monotonic() > deadline:
                    raise HostTimeout(
                        "timed out after %ss waiting for %s\n%s" % (timeout, what, self.describe())
                    )
                context.iteration(True)
        finally:
            GLib.source_remove(wake_up)

    def describe(self):
        return (
            "  queue events:   %s\n  message events: %s\n  token URLs: %d  signals: %d  drain errors: %s"
            "\n  load failures: %s\n  current URI: %s"
            % (
                self.names(self.queue_events),
                self.names(self.message_events),
                len(self.token_urls),
                len(self.signals),
                self.drain_errors,
                self.load_failures,
                self.view.get_uri(),
            )
        )

    @staticmethod
    def names(events):
        return [event.name for event in events]

    def wait_for_event(self, name, transport="queue", after=0, timeout=15):
        """The first event `name` on a transport at index >= after."""
        events = self.queue_events if transport == "queue" else self.message_events

        def found():
            for event in events[after:]:
                if event.name == name:
                    return event
            return None

        return self.wait_for(found, timeout, "%s via %s" % (name, transport))

    def sync(self, timeout=5):
        """Drains the queue now (a host may drain at any time) and waits for drains in flight, so
        every event the page has fired so far is in the lists."""
        box = {}

        def drained(value, error):
            self._on_drained(value, error)
            box["done"] = True

        self._drains_in_flight += 1
        self._evaluate(DRAIN_JS, drained)
        self.wait_for(lambda: box.get("done") and self._drains_in_flight == 0, timeout, "the queue to drain")

    def mark(self):
        """Positions in both event lists after everything fired so far, to wait only for what happens next."""
        self.sync()
        return len(self.queue_events), len(self.message_events)

    def settle(self, timeout=60):
        """Waits until the page is quiet, so the lists hold every event it will fire for what happened so far (what a
        test needs before saying an event did not come): none of its requests in flight (REQUESTS_IN_FLIGHT_JS), a
        mark posted from a task of its own after everything already scheduled has come back over the script-message
        channel (which delivers in order, so every message posted before it has arrived), and the queue drained; all
        again until a round brings no new event, as one event's handler may schedule the next. Nothing is timed."""
        deadline = time.monotonic() + timeout
        while True:
            before = (len(self.queue_events), len(self.message_events), len(self.signals))
            self.wait_for(lambda: self.run_js("window.__hostRequests || 0") == 0, max(1, deadline - time.monotonic()),
                          "the page's requests to be answered")
            self._quiet_marks_sent += 1
            mark = self._quiet_marks_sent
            self.run_js("(window.setTimeout(function () { window.webkit.messageHandlers.hostQuiet.postMessage(%d); }, 0),"
                        " true)" % mark)
            self.wait_for(lambda: self._quiet_mark_seen >= mark, max(1, deadline - time.monotonic()),
                          "the page's quiet mark")
            self.sync()
            if (len(self.queue_events), len(self.message_events), len(self.signals)) == before \
                    and self.run_js("window.__hostRequests || 0") == 0:
                return
            if time.monotonic() > deadline:
                raise HostTimeout("the page never became quiet within %ss\n%s" % (timeout, self.describe()))

    # ------------------------------------------------------------------ page helpers

    def load(self, url, timeout=15):
        self._load_finished = False
        self.view.load_uri(url)
        self.wait_for(lambda: self._load_finished, timeout, "page load of %s" % url)

    def reload(self, timeout=15):
        self._load_finished = False
        self.view.reload()
        self.wait_for(lambda: self._load_finished, timeout, "reload")

    def visible_screen(self):
        return self.run_js(
            "(function(){var s=document.querySelectorAll('.capture_screen');var v=[];"
            "for(var i=0;i<s.length;i++){if(!s[i].hidden)v.push(s[i].id);}return v;})()"
        )

    def wait_for_screen(self, name, timeout=20):
        """Waits until `name` is the only visible screen; the failure names what is visible instead. 20 s: a screen
        that follows a sign-in waits for bcrypt and the database, which a loaded two-core machine has been seen to
        take more than 10 s for."""
        seen = {}

        def shown():
            seen["visible"] = self.visible_screen()
            return seen["visible"] == [name]

        try:
            return self.wait_for(shown, timeout, "screen %s" % name)
        except HostTimeout as timeout_error:
            raise HostTimeout("%s\n  visible screens: %s" % (timeout_error, seen.get("visible"))) from None

    def fill_and_submit(self, screen, values):
        """Sets the inputs of the form on `screen`, then submits it like a tap on its submit button."""
        return self.fill_and_submit_form("#%s form[data-capture-form]" % screen, values)

    def fill_and_submit_form(self, selector, values):
        """Sets the inputs of the form `selector` names, then submits it like a tap on its submit button; returns
        the form's data-capture-form (or data-capture-factor)."""
        script = (
            "(function(screen, values){"
            "var form=document.querySelector(screen);"
            "if(!form)throw new Error('no form '+screen);"
            "for(var k in values){var input=form.elements[k];"
            "if(!input)throw new Error('no input '+k+' in '+screen);"
            "input.focus();input.value=values[k];"
            "input.dispatchEvent(new Event('input',{bubbles:true}));"
            "input.dispatchEvent(new Event('change',{bubbles:true}));}"
            "var button=form.querySelector('button[type=submit]');"
            "if(form.requestSubmit){form.requestSubmit(button);}else{button.click();}"
            "return form.getAttribute('data-capture-form')||form.getAttribute('data-capture-factor');})(%s, %s)"
            % (json.dumps(selector), json.dumps(values))
        )
        return self.run_js(script)

    def choose_date(self, field_id, year, month, day):
        """Chooses a date in a Janrain date select (three selects) as a tap on each does; returns the value its form
        will send."""
        return self.run_js(
            "(function(id, parts){for(var part in parts){"
            "var select=document.getElementById(id+'_dateselect_'+part);select.value=String(parts[part]);"
            "select.dispatchEvent(new Event('change',{bubbles:true}));}"
            "return document.getElementById(id).value;})(%s, %s)"
            % (json.dumps(field_id), json.dumps({"year": year, "month": month, "day": day}))
        )

    def click(self, selector):
        return self.run_js(
            "(function(){var e=document.querySelector(%s);if(!e)throw new Error('nothing matches %s');"
            "e.click();return true;})()" % (json.dumps(selector), selector.replace("'", ""))
        )

    def snapshot(self, path, timeout=10):
        """Writes the whole document, as rendered at phone width, to a PNG."""
        box = {}

        def finished(view, result, _data=None):
            try:
                box["surface"] = view.get_snapshot_finish(result)
            except GLib.Error as error:
                box["error"] = error.message
            box["done"] = True

        # Layout and paint settle: two animation frames after this point have been drawn.
        self.run_js("(window.__captureFramed = false, requestAnimationFrame(function(){"
                    " requestAnimationFrame(function(){ window.__captureFramed = true; }); }), true)")
        self.wait_for(lambda: self.run_js("window.__captureFramed") is True, timeout, "two drawn frames")
        self.view.get_snapshot(
            WebKit2.SnapshotRegion.FULL_DOCUMENT, WebKit2.SnapshotOptions.NONE, None, finished, None
        )
        self.wait_for(lambda: box.get("done"), timeout, "snapshot")
        if "error" in box:
            raise AssertionError("snapshot failed: %s" % box["error"])
        pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)  # screenshots/ is not in a fresh clone
        box["surface"].write_to_png(str(path))
        return path

    def resize(self, width, height, timeout=10):
        """Gives the web view a new size (a rotated phone, a tablet) and waits until the page's viewport has it."""
        self.window.set_resizable(True)
        self.window.set_size_request(width, height)
        self.window.resize(width, height)
        self.wait_for(lambda: self.run_js("[window.innerWidth, window.innerHeight]") == [width, height], timeout,
                      "a %dx%d viewport" % (width, height))

    def add_user_script(self, source):
        """Injects a script at document start in every later page load (as a host's WKUserScript would)."""
        script = WebKit2.UserScript.new(
            source,
            WebKit2.UserContentInjectedFrames.TOP_FRAME,
            WebKit2.UserScriptInjectionTime.START,
            None,
            None,
        )
        self.content_manager.add_script(script)

    def close(self):
        self.window.destroy()
        self.pump(0.05)
