/*
 * capture-host.js — the widget's start, the host's commands (janrain.capture.ui, docs/bridge-protocol.md), the
 * page's clicks and submissions, and Janrain's load hook. capture-ui.js loads it last: it starts the widget.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;

  // How long a page opened with ?session=pending waits for the host's createCaptureSession before showing sign-in.
  var HOST_SESSION_WAIT_MS = 10000;

  var started = false;
  var wired = false;
  var hostSessionTimer = null;

  // ---------------------------------------------------------------- start

  /*
   * How a load begins, chosen by openingFor. Each puts the first screen up and fires onCaptureRenderComplete (the
   * host's "ready for commands"); `social` is the provider step this load came back from, `linked` the screen a
   * message's link named.
   */
  var OPENINGS = {
    // Back from linking a provider: the session is checked as on any load, then the account linked.
    linkProvider: function (social) {
      widget.forms.verifySession(core.storedToken()).then(function (found) {
        widget.screens.renderScreen(found ? widget.screens.sessionScreen() : widget.screens.initialScreenWithoutSession());
        widget.screens.renderComplete();
        if (found) widget.linked.linkSocial(social);
      });
    },
    // Back from a provider's sign-in with its one-time token: redeemed while the sign-in screen shows.
    redeemProvider: function (social) {
      widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
      widget.screens.renderComplete();
      widget.socialForms.redeemSocial(social);
    },
    // The provider step of a merge ended without a token: the first sign-in still waits on mergeAccounts.
    resumeMerge: function (social) {
      widget.social.afterProviderError(social);
      widget.screens.renderComplete();
    },
    // The host said a token is coming (?session=pending): no sign-in form flashes up meanwhile. The page is ready
    // for commands; createCaptureSession shows the session, the timeout sign-in.
    awaitHostSession: function () {
      hostSessionTimer = window.setTimeout(function () {
        hostSessionTimer = null;
        if (core.storedToken()) return;
        core.fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
        widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
      }, HOST_SESSION_WAIT_MS);
      widget.screens.renderComplete();
    },
    noSession: function (social, linked) {
      core.fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
      widget.screens.renderScreen(linked || widget.screens.initialScreenWithoutSession());
      widget.screens.renderComplete();
    },
    expiredSession: function (social, linked) {
      core.fire('onCaptureExpiredToken', { status: 'error', statusMessage: 'accessTokenExpired' });
      widget.forms.endSession(false, linked);
      widget.screens.renderComplete();
    },
    // A stored session: the service says whether it still works; a message's link still wins.
    checkSession: function (social, linked) {
      widget.forms.verifySession(core.storedToken()).then(function (found) {
        if (linked) {
          if (core.currentScreen() !== linked) widget.screens.renderScreen(linked);
        } else if (found) {
          widget.screens.renderScreen(widget.screens.sessionScreen());
        } else if (found === null) {
          widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
        }
        widget.screens.renderComplete();
      });
    }
  };

  /* Which OPENINGS entry this load takes. A provider's answer comes first; an error one without a merge waits for
   * the sign-in screen like any other load (its notice follows). */
  function openingFor(social, linked) {
    if (social && social.token) return social.purpose === 'link' && core.hasActiveSession() ? 'linkProvider' : 'redeemProvider';
    if (social && social.merge) return 'resumeMerge';
    if (!core.storedToken()) return !linked && awaitingHostSession() ? 'awaitHostSession' : 'noSession';
    return core.tokenExpired() ? 'expiredSession' : 'checkSession';
  }

  function start() {
    wire();
    if (started) return;
    started = true;
    if (widget.arrival.pending()) startEarly();
    else open();
  }

  function open() {
    // Back from a provider (#capture_social_token=… or #capture_social_error=…), or a message's link (#screen=…):
    // the fragment is read once and leaves the address bar.
    var social = widget.social.takeSocialReturn();
    var linked = widget.screens.takeLink();
    OPENINGS[openingFor(social, linked)](social, linked);
  }

  /* The service's own page, its other modules still to come (capture-arrival.js): a load with nothing to resume (no
   * fragment, no session, no token promised) shows its first screen now — noSession's opening — and is ready for
   * commands once they have run; any other load opens then. */
  function startEarly() {
    if (window.location.hash || core.storedToken() || awaitingHostSession()) {
      widget.arrival.fetchRest(open);
      return;
    }
    core.fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
    widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
    widget.arrival.fetchRest(function () {
      widget.screens.renderParts(document.getElementById(core.currentScreen()));
      widget.screens.renderComplete();
    });
  }

  /* `?session=pending` on the page's address: the host will hand over a token with createCaptureSession. */
  function awaitingHostSession() {
    return /[?&]session=pending(&|$)/.test(String(window.location.search || ''));
  }

  // ---------------------------------------------------------------- host commands

  /*
   * The host signed the person out natively (and revoked the tokens itself): the page forgets its session quietly,
   * with no request and no "session ended" banner, fires onCaptureSessionEnded and shows sign-in. Returns true when
   * the page held a session.
   */
  function clearCaptureSession() {
    wire();
    var had = !!core.storedToken() || core.holdsSignOutToken();
    core.takeSignOutToken();
    core.clearSession();
    widget.screens.hideNotice();
    core.fire('onCaptureSessionEnded', { statusMessage: 'sessionCleared' });
    widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
    return had;
  }

  /*
   * The host hands the page a token it holds (e.g. after a refresh), optionally with its lifetime in seconds.
   * Returns true when the token was taken and is being checked (the events say how that went), false for an argument
   * that is not a token. Never a Promise: WKWebView's evaluateJavaScript reports one as an error.
   */
  function createCaptureSession(accessToken, expiresInSeconds) {
    wire();
    started = true;
    if (!accessToken || typeof accessToken !== 'string') return false;
    if (hostSessionTimer) {
      window.clearTimeout(hostSessionTimer);
      hostSessionTimer = null;
    }
    var expiresIn = Number(expiresInSeconds) > 0 ? Math.floor(Number(expiresInSeconds)) : undefined;
    widget.screens.hideNotice();
    core.storageRemove(core.STORAGE.profile);
    core.takeSignOutToken();
    core.saveSession(accessToken, expiresIn || 3600, null);
    widget.forms.verifySession(accessToken).then(function (found) {
      if (found) {
        // The host handed the page a working token: the page now holds a session (Janrain fires this too).
        core.fire('onCaptureSessionCreated', {
          statusMessage: 'sessionCreated', accessToken: accessToken, expiresIn: expiresIn, userData: core.storedProfile()
        });
        widget.screens.renderScreen(widget.account.resumeScreen(core.storedProfile()) || widget.screens.sessionScreen());
      }
      else if (found === null) widget.screens.renderScreen(widget.screens.initialScreenWithoutSession());
    });
    return true;
  }

  /*
   * The host hands back the address the system browser ended on; see completeHandOff in capture-social.js.
   */
  function completeProviderLogin(returnUrl) {
    wire();
    return widget.social.completeHandOff(returnUrl);
  }

  // ---------------------------------------------------------------- the page's clicks and submissions

  /* What a link or button with data-capture-action does; anything else shows its data-capture-screen. */
  var ACTIONS = {
    signOut: function () { widget.forms.endSession(true); },
    // "Sign in again to continue" (capture-account.js): signed out, and back on this screen after the sign-in.
    signInAgain: function () { widget.account.signInAgain(); },
    // The provider account stays unlinked; its token simply expires.
    cancelSocial: function () {
      widget.socialForms.endMerge();
      widget.screens.renderScreen(widget.screens.signInScreen());
    },
    forgetEmail: function () {
      core.storageRemove(core.STORAGE.lastEmail);
      if (widget.dropin) widget.dropin.forgetReturnExperience();
      widget.screens.carryAddress('');
      widget.screens.renderScreen('signIn');
    },
    signIn: function () {
      widget.screens.renderScreen(core.hasActiveSession() ? widget.screens.sessionScreen() : widget.screens.signInAfterCode());
    },
    // Janrain's modal on a customer's page (capture-modal.js): .capture_modal_open and its close button.
    openModal: function () {
      if (widget.modal) widget.modal.open();
    },
    closeModal: function () {
      if (widget.modal) widget.modal.close();
    },
    // Janrain's {* resendLink *} and data-capturecontrol="resendVerificationEmail" (capture-dropin.js).
    resendVerification: function () {
      if (widget.dropin) widget.dropin.resendVerification();
    },
    // Janrain's {* backButton *}: the screen before this one.
    back: function () {
      var previous = core.previousScreen();
      if (previous) widget.screens.renderScreen(previous, { back: true });
    }
  };

  function followLink(link) {
    var action = link.getAttribute('data-capture-action');
    // The address typed on this screen goes along to the next one (forgot password, sign in, …).
    var typed = widget.screens.addressIn(core.closest(link, '.capture_screen'));
    if (typed) widget.screens.carryAddress(typed);
    if (action && core.has(ACTIONS, action)) ACTIONS[action]();
    else widget.screens.renderScreen(link.getAttribute('data-capture-screen'));
  }

  /* Show password: the input's type flips, the toggle says whether it is pressed; the name stays. */
  function revealPassword(reveal) {
    var secret = document.getElementById(reveal.getAttribute('aria-controls'));
    var shown = reveal.getAttribute('aria-pressed') !== 'true';
    if (secret) secret.type = shown ? 'text' : 'password';
    reveal.setAttribute('aria-pressed', shown ? 'true' : 'false');
  }

  /* The first of these selectors that a click's target (or an ancestor of it) matches decides what the click does. */
  var CLICKS = [
    ['[data-capture-provider]', function (button) {
      widget.social.startProvider(button.getAttribute('data-capture-provider'), button);
    }],
    ['[data-capture-merge-with]', function (button) {
      widget.social.startProvider(button.getAttribute('data-capture-merge-with'), button);
    }],
    // The error summary's links take focus to their field.
    ['[data-capture-focus]', function (jump) {
      var field = document.getElementById(jump.getAttribute('data-capture-focus'));
      if (field && field.focus) field.focus();
    }],
    ['[data-capture-reveal]', revealPassword],
    ['[data-capture-unlink]', function (button) {
      if (!button.disabled) widget.linked.unlinkAccount(button);
    }],
    ['[data-capture-screen], [data-capture-action]', followLink]
  ];

  function wire() {
    if (wired) return;
    wired = true;
    document.addEventListener('submit', function (event) {
      var form = core.closest(event.target, 'form[data-capture-form]');
      if (!form) return;
      event.preventDefault();
      widget.forms.submitForm(form);
    }, true);
    // Back (from the provider) to a page the browser kept: its provider buttons work again.
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) widget.arrival.after(function () { widget.social.pageShownAgain(); });
    });
    window.addEventListener('hashchange', function () { widget.arrival.after(fragmentChanged); });
    core.onClicks(CLICKS);
  }

  /* A message's link opened while the page is already showing (same page, new fragment: no reload), or a provider's
   * answer handed back to it. */
  function fragmentChanged() {
    var social = widget.social.takeSocialReturn();
    if (social && social.token) {
      widget.social.finishSocial(social);
      return;
    }
    if (social) {
      widget.social.afterProviderError(social);
      widget.screens.renderComplete();
      return;
    }
    var linked = widget.screens.takeLink();
    if (linked) widget.screens.renderScreen(linked);
  }

  // ---------------------------------------------------------------- Janrain's API and load hook

  window.janrain.capture.ui = {
    start: start,
    // Host commands return plain values (true/false), never a Promise or undefined (docs/bridge-protocol.md).
    createCaptureSession: createCaptureSession,
    endCaptureSession: function () { return widget.forms.endSession(true); },
    renderScreen: function (name) { return widget.screens.renderScreen(String(name)); },
    hasActiveSession: core.hasActiveSession,
    setRefreshSecret: core.setRefreshSecret,
    clearCaptureSession: clearCaptureSession,
    setProviderHandoff: function (appReturnUri) { return widget.social.setProviderHandoff(appReturnUri); },
    completeProviderLogin: completeProviderLogin,
    // The host's answer to onCapturePasskeyRequest (capture-passkeys.js): the credential's JSON, or null (cancelled).
    completePasskey: function (result) { return widget.passkeys.completePasskey(result); }
  };

  widget.host = { start: start };

  var loadedOnce = false;
  function loaded() {
    // On a customer's page, capture-dropin.js calls the page's hooks once it has put Janrain's API in place.
    if (loadedOnce || core.dropIn) return;
    loadedOnce = true;
    if (typeof window.janrainCaptureWidgetOnLoad === 'function') {
      window.janrainCaptureWidgetOnLoad();
    } else {
      window.janrain.capture.ui.start();
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', loaded);
  } else {
    loaded();
  }
})(window, document);
