"""How the pages look on a phone (issue 10): a dark scheme that follows the system from the first paint, right-to-left
mirroring by logical CSS properties, text zoomed to 200 % without sideways scrolling, the primary action visible in
landscape, 44-px tap targets, and a client's own theme (served by the service, so the CSP stays strict)."""

import pathlib
import re

from conftest import CLIENT_ID
from screens import CONTROLS_JS, OVERFLOW_JS, every_screen, use_scheme

ROOT = pathlib.Path(__file__).resolve().parents[2]
THEMED_CLIENT = "demo-themed-app"

# What the page looked like before any widget script ran: recorded at DOMContentLoaded by a host script (the
# page's own scripts sit at the end of <body> and wait for the stylesheets, so this is the first painted look).
FIRST_LOOK = """document.addEventListener('DOMContentLoaded', function(){
    var root = getComputedStyle(document.documentElement), body = getComputedStyle(document.body);
    window.__firstLook = {root: root.backgroundColor, body: body.backgroundColor, text: body.color,
                          scheme: root.colorScheme,
                          loading: !document.getElementById('capture_loading').hidden};
});"""
CSP_WATCH = """window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function(e){
    window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});"""


def rect(host, selector, text=False):
    """The element's box, or with text=True the box of its text (a block label spans the line; its words do not)."""
    measure = ("(function(e){var g=document.createRange();g.selectNodeContents(e);return g;})(e)" if text else "e")
    return host.run_js("(function(){var e=document.querySelector(%r);var r=%s.getBoundingClientRect();"
                       "return {left:r.left, right:r.right, top:r.top, bottom:r.bottom, width:r.width};})()"
                       % (selector, measure))


def style(host, selector, prop):
    return host.run_js("getComputedStyle(document.querySelector(%r)).%s" % (selector, prop))


def test_dark_scheme_from_the_first_paint(server, make_host, dark_scheme_reset):
    from host import set_dark_scheme

    set_dark_scheme(True)
    host = make_host()
    host.add_user_script(FIRST_LOOK)
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    assert host.run_js("matchMedia('(prefers-color-scheme: dark)').matches") is True, \
        "WebKitGTK reports GTK's dark preference to the page"
    first = host.run_js("window.__firstLook")
    assert first["loading"] is True, "recorded before the widget put a screen up"
    assert first["root"] == first["body"] == "rgb(18, 20, 23)", first
    assert first["text"] == "rgb(230, 232, 235)", first
    assert first["scheme"] == "light dark", first
    assert host.run_js("document.querySelector('meta[name=color-scheme]').content") == "light dark"
    assert style(host, "#signIn button[type=submit]", "backgroundColor") == "rgb(140, 196, 255)"
    assert style(host, "#signIn button[type=submit]", "color") == "rgb(10, 26, 46)"
    assert style(host, "#signIn input", "backgroundColor") == "rgb(18, 20, 23)"
    # The same page follows the system back to light without a reload.
    use_scheme(host, False)
    assert style(host, "body", "backgroundColor") == "rgb(255, 255, 255)"
    assert style(host, "#signIn button[type=submit]", "color") == "rgb(255, 255, 255)"


def test_the_error_page_is_dark_too(server, make_host, dark_scheme_reset):
    from host import set_dark_scheme

    set_dark_scheme(True)
    host = make_host()
    host.load(server.page("webViewSignIn", client_id="not-a-client"))
    assert style(host, "body", "backgroundColor") == "rgb(18, 20, 23)"


def test_the_stylesheet_has_no_physical_directions():
    css = (ROOT / "WebFlows" / "assets" / "capture.css").read_text()
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    physical = re.findall(r"(?:margin|padding|border)-(?:left|right)\b[^;]*|(?<![\w-])(?:left|right|float)\s*:[^;]*"
                          r"|text-align\s*:\s*(?:left|right)", css)
    assert physical == []


def test_right_to_left_mirrors_the_layout(server, host):
    host.load(server.page("webViewDemo"))
    host.wait_for_screen("signIn")
    host.run_js("(function(){var e=document.querySelector('#signIn .capture_form_error');e.textContent='Wrong';"
                "e.hidden=false;return true;})()")
    label, field = "#signIn label", "#signIn input[name=signInEmailAddress]"
    error = "#signIn .capture_form_error"
    ltr_label, ltr_field = rect(host, label, text=True), rect(host, field)
    assert abs(ltr_label["left"] - ltr_field["left"]) < 1 and ltr_label["right"] < ltr_field["right"] - 50
    assert style(host, error, "borderLeftWidth") == "4px" and style(host, error, "borderRightWidth") == "0px"

    host.run_js("(document.documentElement.dir = 'rtl', true)")
    rtl_label, rtl_field = rect(host, label, text=True), rect(host, field)
    assert abs(rtl_label["right"] - rtl_field["right"]) < 1, (rtl_label, rtl_field)
    assert rtl_label["left"] > rtl_field["left"] + 50, "the label starts at the right"
    assert style(host, error, "borderRightWidth") == "4px", "the notice's accent is on the right"
    assert style(host, error, "borderLeftWidth") == "0px"
    assert style(host, error, "borderRightColor") == style(host, error, "color")
    switch = rect(host, '#signIn [data-capture-screen="forgotPassword"]', text=True)
    assert switch["right"] > 375 / 2, "a link line starts at the right"
    assert host.run_js(OVERFLOW_JS) == []


def test_text_zoom_200_percent_never_scrolls_sideways(server, host, oidc_provider):
    checked, problems = [], []
    for state in every_screen(host, server, oidc_provider, "webViewDemo",
                              only={"signIn", "signIn-error", "traditionalRegistration-errors", "resetPassword",
                                    "verifyEmail", "editProfile", "changePassword", "mergeAccounts"}):
        host.run_js("(document.documentElement.style.fontSize = '200%', true)")  # CSSOM: allowed by the CSP
        assert style(host, "body", "fontSize") == "32px", "the zoom reaches the text"
        checked.append(state)
        problems.extend("%s: %s" % (state, p) for p in host.run_js(OVERFLOW_JS))
        host.run_js("(document.documentElement.style.fontSize = '', true)")
    print("text zoom 200 %%: %d screens, %d overflowing elements" % (len(checked), len(problems)))
    assert len(checked) == 8
    assert problems == []


def test_landscape_shows_the_sign_in_button_without_scrolling(server, host):
    host.resize(812, 375)
    for flow in ("webViewSignIn", "webViewDemo", "webViewProfile"):
        host.load(server.page(flow))
        host.wait_for_screen("signIn")
        button = rect(host, "#signIn button[type=submit]")
        assert button["bottom"] <= 375, "%s: Sign in ends at %s px of 375" % (flow, button["bottom"])
        assert host.run_js("window.scrollY") == 0
    host.load(server.page("webViewSignIn", client_id=THEMED_CLIENT))
    host.wait_for_screen("signIn")
    assert rect(host, "#signIn button[type=submit]")["bottom"] <= 375, "with a logo above it too"


def test_every_control_and_link_is_a_44_px_tap_target(server, host, oidc_provider):
    small, counted = [], 0
    for flow in ("webViewDemo", "webViewProfile"):
        for state in every_screen(host, server, oidc_provider, flow):
            for control in host.run_js(CONTROLS_JS):
                counted += 1
                if control["width"] < 44 or control["height"] < 44:
                    small.append("%s/%s: %s is %.0f x %.0f px" % (flow, state, control["what"], control["width"],
                                                                control["height"]))
    print("tap targets: %d controls measured, %d under 44 px" % (counted, len(small)))
    assert counted > 100
    assert small == []


def test_a_client_theme_brands_the_page_within_the_csp(server, host, dark_scheme_reset):
    host.add_user_script(CSP_WATCH)
    host.load(server.page("webViewDemo", client_id=THEMED_CLIENT))
    host.wait_for_screen("signIn")
    # The client's title; the widget puts the screen's name before it.
    assert host.run_js("document.title") == "Sign in – Northwind account"
    assert style(host, "#signIn button[type=submit]", "backgroundColor") == "rgb(15, 110, 90)"
    assert "Avenir Next" in style(host, "body", "fontFamily")
    assert style(host, "#signIn button[type=submit]", "borderTopLeftRadius") == "24px", "the extra stylesheet"
    logo = ".capture_logo"
    host.wait_for(lambda: host.run_js("document.querySelector(%r).complete" % logo), 5, "the logo")
    assert host.run_js("document.querySelector(%r).naturalWidth > 0" % logo), "the logo loads from the service"
    assert host.run_js("document.querySelector(%r).alt" % logo) == "Northwind"
    assert rect(host, logo)["top"] < rect(host, "#signIn h1")["top"], "above the screen"
    use_scheme(host, True)
    assert style(host, "#signIn button[type=submit]", "backgroundColor") == "rgb(111, 214, 189)"
    assert style(host, "body", "backgroundColor") == "rgb(18, 20, 23)", "the built-in dark background"
    assert host.run_js("window.__cspViolations") == []

    host.load(server.page("webViewDemo", client_id=CLIENT_ID))
    host.wait_for_screen("signIn")
    assert host.run_js("document.title") == "Sign in – capture-bridge demo", "the flow's own title for other clients"
    assert host.run_js("document.querySelector('.capture_logo')") is None
