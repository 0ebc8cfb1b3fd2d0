/*
 * capture-modal.js — Janrain's modal on a customer's page (janrain-load.js loads it before capture-dropin.js). A page
 * that does not ask to embed (`janrain.settings.type = 'embed'` or `popup: false`, as web-view pages do) gets its
 * sign-in and registration screens in #janrainModal, as Janrain's widget showed them: closed until the page asks
 * (`.capture_modal_open`, `janrain.capture.ui.modal.open()`, `renderScreen`, or `capture.screenToRender`), closed
 * by its close button (`capture.modalCloseHtml`), Escape, or a sign-in. Screens for a signed-in person stay in place.
 */
(function (window, document) {
  'use strict';

  var janrain = window.janrain;
  var widget = janrain.capture._widget;
  var core = widget.core;

  var modal = null;
  var overlay = null;
  // Until the page asks for a screen, the widget's own first render leaves the modal closed (Janrain's did).
  var quiet = false;

  function isModal(settings) {
    return settings.type !== 'embed' && settings.popup !== false && String(settings.popup) !== 'false';
  }

  function px(value, fallback) {
    return isFinite(parseFloat(value)) ? parseFloat(value) + 'px' : fallback;
  }

  /* #janrainModal (and its overlay) built, and every screen not for a signed-in person moved into it. */
  function setUp(settings, sessionScreens) {
    if (!isModal(settings) || modal) return;
    var capture = settings.capture || {};
    overlay = document.createElement('div');
    overlay.id = 'janrainModalOverlay';
    overlay.style.cssText = 'display:none;position:fixed;top:0;right:0;bottom:0;left:0;z-index:2147483000;'
      + 'background:rgba(0,0,0,0.4)';
    modal = document.createElement('div');
    modal.id = 'janrainModal';
    modal.className = 'janrain-capture-ui capture-ui-content capture_modal';
    modal.setAttribute('role', 'dialog');
    modal.setAttribute('aria-modal', 'true');
    modal.style.cssText = 'display:none;position:fixed;z-index:2147483001;top:5%;left:50%;transform:translateX(-50%);'
      + 'box-sizing:border-box;width:' + px(settings.width, '400px') + ';max-width:95%;max-height:90%;overflow:auto;'
      + 'background:#fff;padding:16px;border-style:solid;border-color:' + (capture.modalBorderColor || '#ccc')
      + ';border-width:' + px(capture.modalBorderWidth, '1px') + ';border-radius:' + px(capture.modalBorderRadius, '0');
    var closeButton = document.createElement('a');
    closeButton.href = '#';
    closeButton.className = 'janrain_modal_closebutton';
    closeButton.setAttribute('data-capture-action', 'closeModal');
    closeButton.setAttribute('aria-label', core.t('widget.close'));
    closeButton.style.cssText = 'float:right;text-decoration:none';
    // The page's own markup for its close button, as Janrain took it.
    closeButton.innerHTML = capture.modalCloseHtml || '&times;';
    modal.appendChild(closeButton);
    var screens = document.querySelectorAll('[data-capturescreenname]');
    for (var i = 0; i < screens.length; i++) {
      if (sessionScreens.indexOf(screens[i].getAttribute('data-capturescreenname')) < 0) modal.appendChild(screens[i]);
    }
    document.body.appendChild(overlay);
    document.body.appendChild(modal);
    quiet = !capture.screenToRender;
    janrain.events.onCaptureRenderComplete.addHandler(function () { quiet = false; });
    document.addEventListener('keydown', function (event) {
      if ((event.key === 'Escape' || event.keyCode === 27) && isOpen()) close();
    });
  }

  function isOpen() {
    return !!modal && modal.style.display !== 'none';
  }

  function show(open) {
    if (!modal || open === isOpen()) return;
    modal.style.display = overlay.style.display = open ? 'block' : 'none';
    core.fire(open ? 'onModalOpen' : 'onModalClose', {});
  }

  /* After renderScreen: a screen in the modal opens it (unless the page has asked for nothing yet); a screen in
   * place, or none, closes it. */
  function place(screen) {
    if (!modal) return;
    if (screen && modal.contains(screen)) {
      if (quiet) {
        screen.hidden = true;
        screen.style.display = 'none';
      } else {
        show(true);
      }
    } else {
      show(false);
    }
  }

  function open(screen) {
    quiet = false;
    if (!modal) core.fire('onModalOpen', {});
    return widget.screens.renderScreen(screen || widget.screens.initialScreenWithoutSession());
  }

  function close() {
    if (!modal) {
      core.fire('onModalClose', {});
      return true;
    }
    show(false);
    return true;
  }

  widget.modal = { setUp: setUp, place: place, open: open, close: close };
})(window, document);
