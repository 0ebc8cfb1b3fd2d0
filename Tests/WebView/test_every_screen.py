"""One walk over every screen of every page, per shipped language, with every check that must hold on all of them:
axe-core (WCAG 2.2 A/AA, light and dark), the phone's layout rules at 375 px and no sideways scrolling at 768 px, and
375- and 768-px screenshots, light and dark, written to .build/screenshots/screens/ for a person to look at (fixed
addresses and names, so an unchanged look gives unchanged files). One language per test, so the two workers share
them; each screen state is put up once for all its checks."""

import pytest

from conftest import CLIENT_ID, SHOTS
from screens import OVERFLOW_JS, every_screen, settle_screen, use_scheme
from test_accessibility import TAGS, assert_no_violations, run_axe
from test_screenshots import LAYOUT_CHECK

EVERY_SCREEN = SHOTS / "screens"
SIZES = ((375, 812), (768, 1024))
# The other shipped languages: their screenshots in screens/<tag>/, each page opened with its locale.
LOCALES = {"de": "de-DE", "fr": "fr-FR", "ar": "ar-SA"}

# (label, flow, client, screens to photograph: None for all, () for none). English: axe on every page and a themed
# client's; the others: the one-page flow (it holds every screen but editProfile's own page) and the profile page.
ENGLISH_RUNS = (("webViewSignIn", "webViewSignIn", CLIENT_ID, ()),
                ("webViewProfile", "webViewProfile", CLIENT_ID, {"editProfile"}),
                ("webViewDemo", "webViewDemo", CLIENT_ID, None),
                ("themed", "webViewDemo", "demo-themed-app", {"signIn", "editProfile"}))
OTHER_RUNS = (("webViewDemo", "webViewDemo", CLIENT_ID, None),
              ("webViewProfile", "webViewProfile", CLIENT_ID, {"editProfile"}))


@pytest.mark.parametrize("language", ["en"] + sorted(LOCALES))
def test_every_screen_passes_axe_and_the_layout_rules_light_and_dark(server, host, oidc_provider, dark_scheme_reset,
                                                                     language):
    locale = LOCALES.get(language)
    folder = "" if language == "en" else language + "/"
    (EVERY_SCREEN / folder).mkdir(parents=True, exist_ok=True)
    checked, found, written, schemes_seen = [], [], set(), 0
    for label, flow, client, photographed in (ENGLISH_RUNS if language == "en" else OTHER_RUNS):
        for state in every_screen(host, server, oidc_provider, flow, client_id=client, locale=locale):
            if locale:
                assert host.run_js("document.documentElement.lang") == locale, (locale, state)
                settle_screen(host)
            photograph = photographed is None or state in photographed
            # Both schemes, the one the last state ended in first: one switch per state instead of three.
            for scheme in (("dark", "light") if schemes_seen % 2 else ("light", "dark")):
                use_scheme(host, scheme == "dark")
                where = "%s%s/%s/%s" % (folder, label, state, scheme)
                violations = run_axe(host)
                checked.append(where)
                found.extend((where, v) for v in violations)
                if not photograph:
                    continue
                for width, height in SIZES:
                    host.resize(width, height)
                    if scheme == "light":
                        # The phone's layout rules at phone width (buttons span it); no sideways scrolling anywhere.
                        problems = host.run_js(LAYOUT_CHECK if width < 600 else OVERFLOW_JS)
                        assert problems == [], "%s at %d px: %s" % (where, width, problems)
                    name = "%s%s-%s-%s-%d.png" % (folder, label, state, scheme, width)
                    host.snapshot(EVERY_SCREEN / name)
                    written.add(name)
                host.resize(375, 812)
            schemes_seen += 1
    use_scheme(host, False)
    mine = EVERY_SCREEN / folder if folder else EVERY_SCREEN
    for stale in mine.glob("*.png"):
        if stale.relative_to(EVERY_SCREEN).as_posix() not in written:
            stale.unlink()
    print("screenshots: %d in .build/screenshots/screens/%s" % (len(written), folder))
    assert len(written) >= 80, (language, len(written))
    assert_no_violations(checked, found, "(%s) in %s" % (", ".join(TAGS), locale or "en"),
                         at_least=80 if language == "en" else 50)
