"""axe-core (4.12, the copy PyPI's axe-playwright-python ships; no network), run on the page by the host as a
WKWebView's evaluateJavaScript would, so the page's CSP does not apply to it and nothing is fetched; the WCAG 2.2
A/AA rules it checks every screen against (test_every_screen.py), and proof that it looks."""

import importlib.util
import json
import pathlib

import pytest

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")  # the file only: the package's Playwright is not used
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("axe-playwright-python is not installed (scripts/install-deps.sh installs it)", pytrace=False)
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "axe.min.js"
    return path.read_text(encoding="utf-8")


AXE = None


def run_axe(host):
    """Runs axe on the page as it is; returns [(rule, impact, help, [targets and failures])]."""
    global AXE
    if AXE is None:
        AXE = axe_source()
    if host.run_js("typeof window.axe") != "object":
        kind, _ = host.command(AXE + "\n;true")
        assert host.run_js("typeof window.axe && axe.version") == "4.12.1", "axe did not load (%s)" % kind
    host.run_js("(window.__axeResult = null, axe.run(document, {runOnly: {type: 'tag', values: %s},"
                " resultTypes: ['violations']}).then(function(r){ window.__axeResult = {violations: r.violations.map("
                "function(v){ return [v.id, v.impact, v.help, v.nodes.map(function(n){"
                " return n.target.join(' ') + ': ' + n.failureSummary; })]; })}; },"
                " function(e){ window.__axeResult = {error: String(e)}; }), true)" % json.dumps(TAGS),
                # axe.run does part of its work before it returns its promise: on a busy machine that took over the
                # default 10 s once (a clean-clone run, Arabic profile page).
                timeout=30)
    result = host.wait_for(lambda: host.run_js("window.__axeResult"), 30, "axe.run to finish")
    assert "error" not in result, "axe.run failed: %s" % result["error"]
    return result["violations"]


def assert_no_violations(checked, found, what, at_least):
    """Prints how many screen states axe checked and what it found, and fails with every violation listed."""
    summary = "axe-core 4.12.1 %s: %d screen states checked, %d violations" % (
        what, len(checked), sum(len(v[3]) for _, v in found))
    print(summary)
    assert len(checked) >= at_least, summary
    assert found == [], summary + ":\n" + "\n".join(
        "%s: %s (%s) %s\n    %s" % (where, v[0], v[1], v[2], "\n    ".join(v[3])) for where, v in found)


def test_axe_sees_a_violation_when_there_is_one(server, host):
    """The check above is only worth its zero if axe really looks: text too pale to read is found."""
    host.load(server.page("webViewSignIn"))
    host.wait_for_screen("signIn")
    host.run_js("(function(){var p=document.createElement('p');p.textContent='Faint words';p.style.color='#d0d0d0';"
                "document.querySelector('#signIn').appendChild(p);return true;})()")
    assert [v[0] for v in run_axe(host)] == ["color-contrast"]
