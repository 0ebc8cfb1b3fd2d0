"""Janrain's modal on a customer's desktop page (janrain_site/desktop.html: no `type` or `popup` setting): the
sign-in screen lives in #janrainModal, closed until the page asks, opened by `.capture_modal_open` and
`janrain.capture.ui.modal.open()`, closed by its close button (the page's `modalCloseHtml`) and by a sign-in."""

from conftest import PASSWORD, SHOTS

MODAL_JS = """(function(){ var m = document.getElementById('janrainModal');
    return { shown: !!m && m.style.display !== 'none', signInInside: !!m && !!m.querySelector('#signIn'),
             signInShown: !document.getElementById('signIn').hidden,
             close: ((m && m.querySelector('.janrain_modal_closebutton .fernway-close')) || {}).textContent,
             border: m ? m.style.borderColor : null }; })()"""


def test_the_sign_in_screen_opens_in_janrains_modal_and_closes_with_a_sign_in(host, janrain_site, server):
    email, _ = server.register()
    host.load(janrain_site.page("desktop.html"))
    host.wait_for_event("onCaptureRenderComplete", timeout=20)
    host.settle()
    # Nothing asked for a screen yet: the modal is closed and no screen shows.
    assert host.run_js(MODAL_JS) == {"shown": False, "signInInside": True, "signInShown": False, "close": "Close",
                                     "border": "rgb(46, 107, 80)"}
    mark, _ = host.mark()
    host.click("#signInLink")
    host.wait_for_event("onModalOpen", after=mark)
    assert host.run_js(MODAL_JS)["shown"] and host.run_js(MODAL_JS)["signInShown"]
    SHOTS.mkdir(exist_ok=True)
    host.snapshot(SHOTS / "janrain-modal-signIn.png")
    mark, _ = host.mark()
    host.click("#janrainModal .janrain_modal_closebutton")
    host.wait_for_event("onModalClose", after=mark)
    assert not host.run_js(MODAL_JS)["shown"]

    mark, _ = host.mark()
    host.run_js("(janrain.capture.ui.modal.open(), true)")
    host.wait_for_event("onModalOpen", after=mark)
    host.fill_and_submit("signIn", {"signInEmailAddress": email, "currentPassword": PASSWORD})
    host.wait_for_event("onCaptureLoginSuccess", after=mark, timeout=20)
    host.wait_for_event("onModalClose", after=mark)
    assert not host.run_js(MODAL_JS)["shown"]
