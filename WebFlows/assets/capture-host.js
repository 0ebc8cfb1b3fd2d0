/*
 * capture-host.js — the widget's start, the host's commands (janrain.capture.ui, docs/bridge-protocol.md), the
 * page's clicks and submissions, and Janrain's load hook. capture-ui.js loads it last: it starts the widget.
 */
(function (window, document) {
  'use strict';

  var ns = window.janrain.capture._widget;

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
      ns.verifySession(ns.storedToken()).then(function (found) {
        ns.renderScreen(found ? ns.sessionScreen() : ns.initialScreenWithoutSession());
        ns.renderComplete();
        if (found) ns.linkSocial(social);
      });
    },
    // Back from a provider's sign-in with its one-time token: redeemed while the sign-in screen shows.
    redeemProvider: function (social) {
      ns.renderScreen(ns.initialScreenWithoutSession());
      ns.renderComplete();
      ns.redeemSocial(social);
    },
    // The provider step of a merge ended without a token: the first sign-in still waits on mergeAccounts.
    resumeMerge: function (social) {
      ns.afterProviderError(social);
      ns.renderComplete();
    },
    // The host said a token is coming (?session=pending): no sign-in form flashes up meanwhile. The page is ready
    // for commands; createCaptureSession shows the session, the timeout sign-in.
    awaitHostSession: function () {
      hostSessionTimer = window.setTimeout(function () {
        hostSessionTimer = null;
        if (ns.storedToken()) return;
        ns.fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
        ns.renderScreen(ns.initialScreenWithoutSession());
      }, HOST_SESSION_WAIT_MS);
      ns.renderComplete();
    },
    noSession: function (social, linked) {
      ns.fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
      ns.renderScreen(linked || ns.initialScreenWithoutSession());
      ns.renderComplete();
    },
    expiredSession: function (social, linked) {
      ns.fire('onCaptureExpiredToken', { status: 'error', statusMessage: 'accessTokenExpired' });
      ns.endSession(false, linked);
      ns.renderComplete();
    },
    // A stored session: the service says whether it still works; a message's link still wins.
    checkSession: function (social, linked) {
      ns.verifySession(ns.storedToken()).then(function (found) {
        if (linked) {
          if (ns.currentScreen() !== linked) ns.renderScreen(linked);
        } else if (found) {
          ns.renderScreen(ns.sessionScreen());
        } else if (found === null) {
          ns.renderScreen(ns.initialScreenWithoutSession());
        }
        ns.renderComplete();
      });
    }
  };

  /* Which OPENINGS entry this load takes. A provider's answer comes first; an error one without a merge waits for
   * the sign-in screen like any other load (its notice follows). */
  function openingFor(social, linked) {
    if (social && social.token) return social.purpose === 'link' && ns.hasActiveSession() ? 'linkProvider' : 'redeemProvider';
    if (social && social.merge) return 'resumeMerge';
    if (!ns.storedToken()) return !linked && awaitingHostSession() ? 'awaitHostSession' : 'noSession';
    return ns.tokenExpired() ? 'expiredSession' : 'checkSession';
  }

  function start() {
    wire();
    if (started) return;
    started = true;
    // Back from a provider (#capture_social_token=… or #capture_social_error=…), or a message's link (#screen=…):
    // the fragment is read once and leaves the address bar.
    var social = ns.takeSocialReturn();
    var linked = ns.takeLink();
    OPENINGS[openingFor(social, linked)](social, linked);
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
    var had = !!ns.storedToken() || ns.holdsSignOutToken();
    ns.takeSignOutToken();
    ns.clearSession();
    ns.hideNotice();
    ns.fire('onCaptureSessionEnded', { statusMessage: 'sessionCleared' });
    ns.renderScreen(ns.initialScreenWithoutSession());
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
    ns.hideNotice();
    ns.storageRemove(ns.STORAGE.profile);
    ns.takeSignOutToken();
    ns.saveSession(accessToken, expiresIn || 3600, null);
    ns.verifySession(accessToken).then(function (found) {
      if (found) {
        // The host handed the page a working token: the page now holds a session (Janrain fires this too).
        ns.fire('onCaptureSessionCreated', {
          statusMessage: 'sessionCreated', accessToken: accessToken, expiresIn: expiresIn, userData: ns.storedProfile()
        });
        ns.renderScreen((ns.resumeScreen && ns.resumeScreen(ns.storedProfile())) || ns.sessionScreen());
      }
      else if (found === null) ns.renderScreen(ns.initialScreenWithoutSession());
    });
    return true;
  }

  /*
   * The host hands back the address the system browser ended on; see completeHandOff in capture-social.js.
   */
  function completeProviderLogin(returnUrl) {
    wire();
    return ns.completeHandOff(returnUrl);
  }

  // ---------------------------------------------------------------- the page's clicks and submissions

  /* What a link or button with data-capture-action does; anything else shows its data-capture-screen. */
  var ACTIONS = {
    signOut: function () { ns.endSession(true); },
    // "Sign in again to continue" (capture-account.js): signed out, and back on this screen after the sign-in.
    signInAgain: function () { ns.signInAgain(); },
    // The provider account stays unlinked; its token simply expires.
    cancelSocial: function () {
      ns.endMerge();
      ns.renderScreen(ns.signInScreen());
    },
    forgetEmail: function () {
      ns.storageRemove(ns.STORAGE.lastEmail);
      if (ns.forgetReturnExperience) ns.forgetReturnExperience();
      ns.carryAddress('');
      ns.renderScreen('signIn');
    },
    signIn: function () {
      ns.renderScreen(ns.hasActiveSession() ? ns.sessionScreen() : ns.signInAfterCode());
    },
    // Janrain's modal on a customer's page (capture-modal.js): .capture_modal_open and its close button.
    openModal: function () {
      if (ns.modal) ns.modal.open();
    },
    closeModal: function () {
      if (ns.modal) ns.modal.close();
    },
    // Janrain's {* resendLink *} and data-capturecontrol="resendVerificationEmail" (capture-dropin.js).
    resendVerification: function () {
      if (ns.resendVerification) ns.resendVerification();
    },
    // Janrain's {* backButton *}: the screen before this one.
    back: function () {
      var previous = ns.previousScreen();
      if (previous) ns.renderScreen(previous, { back: true });
    }
  };

  function followLink(link) {
    var action = link.getAttribute('data-capture-action');
    // The address typed on this screen goes along to the next one (forgot password, sign in, …).
    var typed = ns.addressIn(ns.closest(link, '.capture_screen'));
    if (typed) ns.carryAddress(typed);
    if (action && ns.has(ACTIONS, action)) ACTIONS[action]();
    else ns.renderScreen(link.getAttribute('data-capture-screen'));
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
      ns.startProvider(button.getAttribute('data-capture-provider'), button);
    }],
    ['[data-capture-merge-with]', function (button) {
      ns.startProvider(button.getAttribute('data-capture-merge-with'), button);
    }],
    // The error summary's links take focus to their field.
    ['[data-capture-focus]', function (jump) {
      var field = document.getElementById(jump.getAttribute('data-capture-focus'));
      if (field && field.focus) field.focus();
    }],
    ['[data-capture-reveal]', revealPassword],
    ['[data-capture-unlink]', function (button) {
      if (!button.disabled) ns.unlinkAccount(button);
    }],
    ['[data-capture-screen], [data-capture-action]', followLink]
  ];

  function wire() {
    if (wired) return;
    wired = true;
    document.addEventListener('submit', function (event) {
      var form = ns.closest(event.target, 'form[data-capture-form]');
      if (!form) return;
      event.preventDefault();
      ns.submitForm(form);
    }, true);
    // Back (from the provider) to a page the browser kept: its provider buttons work again.
    window.addEventListener('pageshow', function (event) {
      if (event.persisted) ns.pageShownAgain();
    });
    // A message's link opened while the page is already showing (same page, new fragment: no reload).
    window.addEventListener('hashchange', function () {
      var social = ns.takeSocialReturn();
      if (social && social.token) {
        ns.finishSocial(social);
        return;
      }
      if (social) {
        ns.afterProviderError(social);
        ns.renderComplete();
        return;
      }
      var linked = ns.takeLink();
      if (linked) ns.renderScreen(linked);
    });
    ns.onClicks(CLICKS);
  }

  // ---------------------------------------------------------------- Janrain's API and load hook

  window.janrain.capture.ui = {
    start: start,
    // Host commands return plain values (true/false), never a Promise or undefined (docs/bridge-protocol.md).
    createCaptureSession: createCaptureSession,
    endCaptureSession: function () { return ns.endSession(true); },
    renderScreen: function (name) { return ns.renderScreen(String(name)); },
    hasActiveSession: ns.hasActiveSession,
    setRefreshSecret: ns.setRefreshSecret,
    clearCaptureSession: clearCaptureSession,
    setProviderHandoff: ns.setProviderHandoff,
    completeProviderLogin: completeProviderLogin,
    // The host's answer to onCapturePasskeyRequest (capture-passkeys.js): the credential's JSON, or null (cancelled).
    completePasskey: function (result) { return ns.completePasskey ? ns.completePasskey(result) : false; }
  };

  var loadedOnce = false;
  function loaded() {
    // On a customer's page, capture-dropin.js calls the page's hooks once it has put Janrain's API in place.
    if (loadedOnce || ns.dropIn) return;
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
