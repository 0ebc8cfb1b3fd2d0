/*
 * capture-social.js — sign-in with a provider: the round trip in this web view or through the system browser
 * (docs/social-handoff.md), and the provider step's answer (a one-time token, or why there is none). What the token
 * leads to (a sign-in, socialRegistration, a merge) is capture-social-forms.js's.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // The service's codes when the provider step comes back with #capture_social_error=<code>; others get the catch-all.
  var SOCIAL_ERRORS = { cancelled: true, provider_error: true, provider_unreachable: true, invalid_id_token: true, state_mismatch: true };
  // The host's refresh_secret crosses the provider round trip here (the page reloads), taken back at once.
  var SOCIAL_SECRET_KEY = 'captureBridgeSocialRefreshSecret';
  // Why the page went to the provider ('link' from editProfile; sign-in otherwise), across the same reload.
  var SOCIAL_PURPOSE_KEY = 'captureBridgeSocialPurpose';
  // A merge through a provider: the first sign-in's one-time token (its merge_token) across the same reload.
  var SOCIAL_MERGE_KEY = 'captureBridgeSocialMerge';
  // The verifier of the sign-in this page started (its S256 went to /social/{provider}/start): only a page that holds
  // one redeems a provider's answer, and only with it (docs/contract.md §15). Across the same reload, taken back at once.
  var SOCIAL_VERIFIER_KEY = 'captureBridgeSocialVerifier';
  // Buttons that leave for a provider: the service's, and mergeAccounts' "Continue with <provider>".
  var PROVIDER_BUTTONS = '[data-capture-provider], [data-capture-merge-with]';
  // How long a tap on a provider waits for the host to drain the bridge's queue before the page leaves.
  var BRIDGE_DRAIN_WAIT_MS = 1500;

  // The provider step's outcome ({text, gentle}), shown once the next screen is up.
  var socialNotice = null;
  // The page is on its way to a provider: the buttons stay disabled.
  var leaving = false;
  // The host's choice by setProviderHandoff (an app return URI, or '' for none); undefined: the page's.
  var handOffTo;
  // The sign-in the host is running in the system browser ({provider, purpose, merge, verifier}).
  var handedOff = null;

  /* Calls `then` once the host drained the bridge's queue (or after BRIDGE_DRAIN_WAIT_MS): the page is about to go. */
  function afterBridgeDrained(then) {
    var deadline = Date.now() + BRIDGE_DRAIN_WAIT_MS;
    (function check() {
      var queue = window.createJanrainBridge && window.createJanrainBridge.eventQueue;
      if (!queue || !queue.length || Date.now() >= deadline) then();
      else window.setTimeout(check, 20);
    })();
  }

  /*
   * A tap on a provider's button: onProviderLoginStart, then the whole web view goes to the service's
   * /social/{provider}/start (no popup), which sends it to the provider and, after the provider, back to this page.
   */
  function startProvider(name, button) {
    if (!name || leaving) return;
    var capture = core.captureSettings();
    // A button of the linked-accounts section links the provider account to the signed-in user instead;
    // mergeAccounts' button signs in to the existing account and links the waiting social sign-in to it.
    var merge = button && button.hasAttribute('data-capture-merge-with') ? widget.socialForms.mergeThrough(name) : null;
    // reactivateAccount's button signs in to bring back the account its owner deleted (capture-account.js).
    var purpose = button && button.hasAttribute('data-capture-link') ? 'link' : merge ? 'merge'
      : button && button.hasAttribute('data-capture-reactivate') ? 'reactivate' : 'signIn';
    if (purpose === 'link' && widget.screens.addressUnproven(core.storedProfile())) {
      // The service links nothing to an unproven address (a pre-hijack would keep its intruder): no round trip.
      widget.screens.showNotice(t('widget.linkUnproven').replace('%s', core.providerName(name)));
      return;
    }
    core.fire('onProviderLoginStart', { statusMessage: 'providerLoginStart', provider: name, purpose: purpose });
    var appReturnUri = handOffTarget();
    leaving = true;
    var buttons = document.querySelectorAll(PROVIDER_BUTTONS);
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    if (button) button.setAttribute('aria-busy', 'true');
    // A merge's second sign-in is started with the first one's verifier: one code_verifier redeems both tokens.
    initiatorPair(merge && merge.verifier).then(function (pair) {
      if (appReturnUri) {
        providerButtonsBack();
        handOff(name, appReturnUri, purpose, merge, pair);
        return;
      }
      var url = core.server + '/social/' + encodeURIComponent(name) + '/start?' + core.encodeForm({
        client_id: capture.clientId, flow: capture.flowName, locale: capture.locale,
        response_type: capture.responseType, redirect_uri: capture.redirectUri,
        code_challenge: pair.challenge, code_challenge_method: 'S256'
      });
      // The verifier and the host's refresh_secret must survive the reload the round trip ends with (removed again
      // on return). Without the verifier nothing the provider answers can be redeemed: the page does not leave.
      try {
        window.sessionStorage.setItem(SOCIAL_VERIFIER_KEY, pair.verifier);
      } catch (error) {
        throw new Error('no sessionStorage');
      }
      try {
        if (core.refreshSecret()) window.sessionStorage.setItem(SOCIAL_SECRET_KEY, core.refreshSecret());
        if (purpose !== 'signIn') window.sessionStorage.setItem(SOCIAL_PURPOSE_KEY, purpose);
        // The first sign-in's token, for merge_token once this one is back; removed as soon as the page is.
        if (merge) window.sessionStorage.setItem(SOCIAL_MERGE_KEY, JSON.stringify(merge));
      } catch (error) {
        /* sign-in works without the secret; a link or a merge comes back as a sign-in of the same person */
      }
      afterBridgeDrained(function () { window.location.assign(url); });
    }).then(null, function () {
      providerButtonsBack();
      var text = t('widget.socialErrorOther').replace('%s', core.providerName(name));
      widget.screens.showNotice(text);
      core.fire('onProviderLoginError', {
        status: 'error', statusMessage: 'unsupportedBrowser', provider: name, purpose: purpose,
        error: 'unsupported_browser', errorDescription: text
      });
    });
  }

  /* The provider buttons usable again (the page stays). */
  function providerButtonsBack() {
    leaving = false;
    var buttons = document.querySelectorAll(PROVIDER_BUTTONS);
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = false;
      buttons[i].removeAttribute('aria-busy');
    }
  }

  /* Back (from the provider) to a page the browser kept: what the round trip left behind goes, the buttons work. */
  function pageShownAgain() {
    if (!leaving) return;
    takeStoredMerge();
    try { window.sessionStorage.removeItem(SOCIAL_VERIFIER_KEY); } catch (error) { /* none kept */ }
    providerButtonsBack();
  }

  /*
   * The proof this page started a social sign-in (InitiatorBinding, docs/contract.md §15): a fresh verifier (or `verifier`, a
   * merge's first one) and its S256 challenge, through a promise. Web Crypto works on https and loopback pages only;
   * elsewhere the promise is rejected and no sign-in starts.
   */
  function initiatorPair(verifier) {
    var crypto = window.crypto;
    if (!crypto || !crypto.subtle || !crypto.getRandomValues) return Promise.reject(new Error('no Web Crypto'));
    if (!verifier) {
      var random = new Uint8Array(32);
      crypto.getRandomValues(random);
      verifier = core.base64url(random);
    }
    var bytes = new Uint8Array(verifier.length);
    for (var i = 0; i < verifier.length; i++) bytes[i] = verifier.charCodeAt(i);
    return crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
      return { verifier: verifier, challenge: core.base64url(new Uint8Array(digest)) };
    });
  }

  /* Where the provider's answer goes instead of this page (system-browser hand-off), or '' for a redirect. */
  function handOffTarget() {
    var chosen = handOffTo !== undefined ? handOffTo : core.captureSettings().appReturnUri;
    return typeof chosen === 'string' ? chosen : '';
  }

  /*
   * The host turns the system-browser hand-off on (an app return URI on the client's redirect URIs) or off (anything
   * else), whatever the page's app_return_uri said. Returns whether it is on.
   */
  function setProviderHandoff(appReturnUri) {
    handOffTo = typeof appReturnUri === 'string' ? appReturnUri : '';
    return handOffTo.length > 0;
  }

  /*
   * System-browser hand-off (docs/social-handoff.md): the page stays; the host opens `url` in
   * ASWebAuthenticationSession / Custom Tabs, the service finally sends that browser to `appReturnUri` with the
   * provider step's answer in the fragment, and the host hands that address back with completeProviderLogin.
   */
  function handOff(name, appReturnUri, purpose, merge, pair) {
    var capture = core.captureSettings();
    var server = core.server || window.location.protocol + '//' + window.location.host;
    var url = server + '/social/' + encodeURIComponent(name) + '/start?'
      + core.encodeForm({
        client_id: capture.clientId, flow: capture.flowName, locale: capture.locale,
        response_type: capture.responseType, app_return_uri: appReturnUri,
        code_challenge: pair.challenge, code_challenge_method: 'S256'
      });
    // A merge's first sign-in and the verifier stay in memory here: the page does not reload.
    handedOff = { provider: name, purpose: purpose, merge: merge, verifier: pair.verifier };
    widget.screens.showNotice(t('widget.handoffWait').replace('%s', core.providerName(name)), true);
    core.fire('onProviderLoginHandoff', {
      statusMessage: 'providerLoginHandoff', provider: name, purpose: purpose, url: url, appReturnUri: appReturnUri
    });
  }

  /*
   * The host hands back the address the system browser ended on (the app return URI with the provider step's answer
   * in its fragment), and the sign-in finishes in this page; null or '' when the person closed the browser first.
   * Returns true when taken, false when there is nothing to finish (not an answer, or no hand-off under way).
   */
  function completeHandOff(returnUrl) {
    var values;
    // Only a hand-off this page started is finished, with its verifier: any other address is not taken.
    var started = handedOff;
    if (!started) return false;
    if (returnUrl === null || returnUrl === undefined || returnUrl === '') {
      values = { capture_social_error: 'cancelled', provider: started.provider };
    } else {
      var text = String(returnUrl);
      values = text.indexOf('#') >= 0 ? socialAnswer(text.slice(text.indexOf('#') + 1)) : null;
      if (!values) return false;
    }
    handedOff = null;
    widget.screens.hideNotice();
    var answer = providerStepEnded(values, started.purpose, started.verifier, started.merge);
    if (answer.token) {
      finishSocial(answer);
    } else {
      afterProviderError(answer);
      showSocialNotice();
    }
    return true;
  }

  /*
   * The fields of a provider step's answer in a fragment (capture_social_token=…&provider=… or
   * capture_social_error=…&provider=…), or null when it is not one.
   */
  function socialAnswer(fragment) {
    var values = core.fragmentValues(fragment);
    return values.capture_social_token || values.capture_social_error ? values : null;
  }

  /*
   * Back from a provider in this web view (#capture_social_…): read once and removed from the address bar and
   * history at once (the token is a one-time secret). Returns {token|error, provider, verifier} or null. An answer
   * this page did not start a sign-in for (no verifier kept: a link someone sent) is dropped without a word.
   */
  function takeSocialReturn() {
    var values = socialAnswer(window.location.hash);
    var merge = takeStoredMerge();
    if (!values) return null;
    core.forgetFragment();
    var secret = null;
    var purpose = null;
    var verifier = null;
    try {
      secret = window.sessionStorage.getItem(SOCIAL_SECRET_KEY);
      purpose = window.sessionStorage.getItem(SOCIAL_PURPOSE_KEY);
      verifier = window.sessionStorage.getItem(SOCIAL_VERIFIER_KEY);
      window.sessionStorage.removeItem(SOCIAL_SECRET_KEY);
      window.sessionStorage.removeItem(SOCIAL_PURPOSE_KEY);
      window.sessionStorage.removeItem(SOCIAL_VERIFIER_KEY);
    } catch (error) { /* none kept */ }
    if (!verifier) return null;
    if (secret && !core.refreshSecret()) core.setRefreshSecret(secret);
    if (purpose === 'merge' && merge) return providerStepEnded(values, 'merge', verifier, merge);
    return providerStepEnded(values, purpose === 'link' || purpose === 'reactivate' ? purpose : 'signIn', verifier);
  }

  /* The merge kept across the provider round trip (SOCIAL_MERGE_KEY), removed at once; null when none. */
  function takeStoredMerge() {
    var merge = null;
    try {
      var kept = window.sessionStorage.getItem(SOCIAL_MERGE_KEY);
      window.sessionStorage.removeItem(SOCIAL_MERGE_KEY);
      merge = kept ? JSON.parse(kept) : null;
    } catch (error) { /* none kept, or unreadable */ }
    return merge && typeof merge.token === 'string' && typeof merge.via === 'string'
      && typeof merge.verifier === 'string' ? merge : null;
  }

  /*
   * The provider step's answer: onProviderLoginError and a notice for the next screen, or onProviderLoginSuccess.
   * `purpose` is 'link' when it was started from the linked-accounts section, 'merge' from mergeAccounts (`merge`:
   * the first sign-in, {token, provider, email, via, verifier}). `verifier` proves this page started the step.
   * Returns {token|error, provider, purpose, merge, verifier}.
   */
  function providerStepEnded(values, purpose, verifier, merge) {
    var provider = values.provider || '';
    var name = core.providerName(provider) || 'the provider';
    if (purpose !== 'merge') merge = null;
    if (values.capture_social_error) {
      var code = values.capture_social_error;
      var text = merge
        ? widget.socialForms.mergeText(t(code === 'cancelled' ? 'widget.mergeCancelled' : 'widget.mergeProviderFailed'), merge)
        : purpose === 'link'
        ? t(code === 'cancelled' ? 'widget.linkCancelled' : 'widget.linkFailed').replace('%s', name)
        : t(core.has(SOCIAL_ERRORS, code) ? 'widget.socialError.' + code : 'widget.socialErrorOther').replace('%s', name);
      // Shown on the next screen once it is up (sign-in, or editProfile for a link).
      socialNotice = { text: text, gentle: code === 'cancelled' };
      core.fire('onProviderLoginError', {
        status: 'error', statusMessage: code, provider: provider, purpose: purpose, error: code, errorDescription: text
      });
      return { error: code, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
    }
    core.fire('onProviderLoginSuccess', { statusMessage: 'providerLoginSuccess', provider: provider, purpose: purpose });
    return { token: values.capture_social_token, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
  }

  /* The provider step's outcome (socialNotice), once its screen is up. */
  function showSocialNotice() {
    if (!socialNotice) return;
    widget.screens.showNotice(socialNotice.text, socialNotice.gentle);
    socialNotice = null;
  }

  /* The screen after a provider step that brought no token: mergeAccounts again for a merge (its first sign-in still
   * waits), else sign-in (or the session's screen). The notice follows (showSocialNotice). */
  function afterProviderError(answer) {
    if (answer && answer.merge) widget.socialForms.resumeMerge(answer.merge);
    else widget.screens.renderScreen(core.hasActiveSession() ? widget.screens.sessionScreen()
      : widget.screens.initialScreenWithoutSession());
  }

  /* A provider step that brought a token: a link to the signed-in user, or a sign-in. */
  function finishSocial(answer) {
    if (answer.purpose === 'link' && core.hasActiveSession()) return widget.linked.linkSocial(answer);
    return widget.socialForms.redeemSocial(answer);
  }

  widget.social = {
    startProvider: startProvider,
    pageShownAgain: pageShownAgain,
    setProviderHandoff: setProviderHandoff,
    completeHandOff: completeHandOff,
    takeSocialReturn: takeSocialReturn,
    showSocialNotice: showSocialNotice,
    afterProviderError: afterProviderError,
    finishSocial: finishSocial
  };
})(window, document);
