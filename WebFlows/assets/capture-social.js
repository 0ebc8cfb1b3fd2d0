/*
 * capture-social.js — sign-in with a provider: the round trip in this web view or through the system browser
 * (docs/social-handoff.md), redeeming its one-time token, the social registration and the merge with an existing
 * account (by password, or by the provider that account signs in with).
 */
(function (window, document) {
  'use strict';

  var ns = window.janrain.capture._widget;
  var t = ns.t;

  // Screens of a social sign-in in progress: without one they fall back to sign-in.
  var SOCIAL_SCREENS = { socialRegistration: true, mergeAccounts: true, traditionalAuthenticateMerge: true };
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

  // A social sign-in waiting for a form ({token, provider, purpose, verifier}: socialRegistration or the merge).
  var social = null;
  // The merge's account address, and the provider a 380 named for an account without a password (mergeAccounts
  // signs in with it), or ''.
  var mergeEmail = '';
  var mergeWith = '';
  // The provider step's outcome ({text, gentle}), shown once the next screen is up.
  var socialNotice = null;
  // The page is on its way to a provider: the buttons stay disabled.
  var leaving = false;
  // The host's choice by setProviderHandoff (an app return URI, or '' for none); undefined: the page's.
  var handOffTo;
  // The sign-in the host is running in the system browser ({provider, purpose, merge, verifier}).
  var handedOff = null;

  /* True for a social screen while no social sign-in waits for it (renderScreen shows sign-in instead). */
  function waitsForSocial(screen) {
    return !!SOCIAL_SCREENS[screen] && !social;
  }

  /* The social sign-in a form on a social screen finishes, else null. */
  function socialFor(form) {
    var screen = ns.closest(form, '.capture_screen');
    return social && screen && SOCIAL_SCREENS[screen.id] ? social : null;
  }

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
    var capture = ns.captureSettings();
    // A button of the linked-accounts section links the provider account to the signed-in user instead;
    // mergeAccounts' button signs in to the existing account and links the waiting social sign-in to it.
    var merge = button && button.hasAttribute('data-capture-merge-with') && social
      ? { token: social.token, provider: social.provider, email: mergeEmail, via: name, verifier: social.verifier }
      : null;
    // reactivateAccount's button signs in to bring back the account its owner deleted (capture-account.js).
    var purpose = button && button.hasAttribute('data-capture-link') ? 'link' : merge ? 'merge'
      : button && button.hasAttribute('data-capture-reactivate') ? 'reactivate' : 'signIn';
    if (purpose === 'link' && ns.addressUnproven(ns.storedProfile())) {
      // The service links nothing to an unproven address (a pre-hijack would keep its intruder): no round trip.
      ns.showNotice(t('widget.linkUnproven').replace('%s', ns.providerName(name)));
      return;
    }
    ns.fire('onProviderLoginStart', { statusMessage: 'providerLoginStart', provider: name, purpose: purpose });
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
      var url = ns.server + '/social/' + encodeURIComponent(name) + '/start?' + ns.encodeForm({
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
        if (ns.refreshSecret()) window.sessionStorage.setItem(SOCIAL_SECRET_KEY, ns.refreshSecret());
        if (purpose !== 'signIn') window.sessionStorage.setItem(SOCIAL_PURPOSE_KEY, purpose);
        // The first sign-in's token, for merge_token once this one is back; removed as soon as the page is.
        if (merge) window.sessionStorage.setItem(SOCIAL_MERGE_KEY, JSON.stringify(merge));
      } catch (error) {
        /* sign-in works without the secret; a link or a merge comes back as a sign-in of the same person */
      }
      afterBridgeDrained(function () { window.location.assign(url); });
    }).then(null, function () {
      providerButtonsBack();
      var text = t('widget.socialErrorOther').replace('%s', ns.providerName(name));
      ns.showNotice(text);
      ns.fire('onProviderLoginError', {
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
      verifier = ns.base64url(random);
    }
    var bytes = new Uint8Array(verifier.length);
    for (var i = 0; i < verifier.length; i++) bytes[i] = verifier.charCodeAt(i);
    return crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
      return { verifier: verifier, challenge: ns.base64url(new Uint8Array(digest)) };
    });
  }

  /* Where the provider's answer goes instead of this page (system-browser hand-off), or '' for a redirect. */
  function handOffTarget() {
    var chosen = handOffTo !== undefined ? handOffTo : ns.captureSettings().appReturnUri;
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
    var capture = ns.captureSettings();
    var server = ns.server || window.location.protocol + '//' + window.location.host;
    var url = server + '/social/' + encodeURIComponent(name) + '/start?'
      + ns.encodeForm({
        client_id: capture.clientId, flow: capture.flowName, locale: capture.locale,
        response_type: capture.responseType, app_return_uri: appReturnUri,
        code_challenge: pair.challenge, code_challenge_method: 'S256'
      });
    // A merge's first sign-in and the verifier stay in memory here: the page does not reload.
    handedOff = { provider: name, purpose: purpose, merge: merge, verifier: pair.verifier };
    ns.showNotice(t('widget.handoffWait').replace('%s', ns.providerName(name)), true);
    ns.fire('onProviderLoginHandoff', {
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
    ns.hideNotice();
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
    var values = ns.fragmentValues(fragment);
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
    ns.forgetFragment();
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
    if (secret && !ns.refreshSecret()) ns.setRefreshSecret(secret);
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
    var name = ns.providerName(provider) || 'the provider';
    if (purpose !== 'merge') merge = null;
    if (values.capture_social_error) {
      var code = values.capture_social_error;
      var text = merge ? mergeText(t(code === 'cancelled' ? 'widget.mergeCancelled' : 'widget.mergeProviderFailed'), merge)
        : purpose === 'link'
        ? t(code === 'cancelled' ? 'widget.linkCancelled' : 'widget.linkFailed').replace('%s', name)
        : t(ns.has(SOCIAL_ERRORS, code) ? 'widget.socialError.' + code : 'widget.socialErrorOther').replace('%s', name);
      // Shown on the next screen once it is up (sign-in, or editProfile for a link).
      socialNotice = { text: text, gentle: code === 'cancelled' };
      ns.fire('onProviderLoginError', {
        status: 'error', statusMessage: code, provider: provider, purpose: purpose, error: code, errorDescription: text
      });
      return { error: code, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
    }
    ns.fire('onProviderLoginSuccess', { statusMessage: 'providerLoginSuccess', provider: provider, purpose: purpose });
    return { token: values.capture_social_token, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
  }

  /* The provider step's outcome (socialNotice), once its screen is up. */
  function showSocialNotice() {
    if (!socialNotice) return;
    ns.showNotice(socialNotice.text, socialNotice.gentle);
    socialNotice = null;
  }

  /* The screen after a provider step that brought no token: mergeAccounts again for a merge (its first sign-in still
   * waits), else sign-in (or the session's screen). The notice follows (showSocialNotice). */
  function afterProviderError(answer) {
    if (answer && answer.merge) resumeMerge(answer.merge);
    else ns.renderScreen(ns.hasActiveSession() ? ns.sessionScreen() : ns.initialScreenWithoutSession());
  }

  /* A provider step that brought a token: a link to the signed-in user, or a sign-in. */
  function finishSocial(answer) {
    if (answer.purpose === 'link' && ns.hasActiveSession()) return ns.linkSocial(answer);
    return redeemSocial(answer);
  }

  // ---------------------------------------------------------------- the merge (a 380)

  /* A merge text with its placeholders filled in: %e the address, %p the provider to sign in with, %n the new one. */
  function mergeText(template, merge) {
    var values = mergeValues(merge);
    return template.replace(/%([epn])/g, function (all, key) { return values[key]; });
  }

  function mergeValues(merge) {
    return { e: merge.email || '', p: ns.providerName(merge.via), n: ns.providerName(merge.provider) };
  }

  /*
   * mergeAccounts shows the password merge ([data-capture-merge="password"]) or, when the 380 named a provider the
   * page knows (mergeWith), the sign-in with that provider ([data-capture-merge="provider"]): the lead from
   * widget.mergeProviderLead (the names in <strong>) and the [data-capture-merge-with] button.
   */
  function renderMerge(root) {
    if (ns.fillTemplate && ns.fillTemplate(root, mergeTemplateValues(), mergeTemplateMarkup())) return;
    var parts = root.querySelectorAll('[data-capture-merge]');
    if (!parts.length) return;
    var merge = social && mergeWith ? { email: mergeEmail, provider: social.provider, via: mergeWith } : null;
    for (var i = 0; i < parts.length; i++) {
      parts[i].hidden = (parts[i].getAttribute('data-capture-merge') === 'provider') !== !!merge;
    }
    if (!merge) return;
    var values = mergeValues(merge);
    var leads = root.querySelectorAll('[data-capture-merge-lead]');
    for (var l = 0; l < leads.length; l++) {
      while (leads[l].firstChild) leads[l].removeChild(leads[l].firstChild);
      var pieces = t('widget.mergeProviderLead').split(/(%[epn])/);
      for (var p = 0; p < pieces.length; p++) {
        if (/^%[epn]$/.test(pieces[p])) {
          var strong = document.createElement('strong');
          strong.textContent = values[pieces[p].charAt(1)];
          leads[l].appendChild(strong);
        } else if (pieces[p]) {
          leads[l].appendChild(document.createTextNode(pieces[p]));
        }
      }
    }
    var buttons = root.querySelectorAll('[data-capture-merge-with]');
    for (var b = 0; b < buttons.length; b++) {
      buttons[b].setAttribute('data-capture-merge-with', merge.via);
      buttons[b].textContent = mergeText(t('widget.mergeProviderButton'), merge);
      buttons[b].disabled = false;
      buttons[b].removeAttribute('aria-busy');
    }
  }

  /* The values of Janrain's merge template (a customer's mergeAccounts screen): what this merge knows. */
  function mergeTemplateValues() {
    var provider = social ? social.provider : '';
    var site = (ns.clientSettings && ns.clientSettings().site_name) || document.title;
    return {
      current_emailAddress: mergeEmail, current_provider: provider ? ns.providerName(provider) : '',
      current_provider_lowerCase: provider, existing_emailAddress: mergeEmail, existing_provider_emailAddress: mergeEmail,
      existing_provider: mergeWith ? ns.providerName(mergeWith) : site, existing_provider_lowerCase: mergeWith || 'capture',
      existing_siteName: site, foundExistingAccountText: t('widget.mergeFound'), moreInfoText: t('widget.mergeMoreInfo'),
      moreInfoHoverText: t('widget.mergeMoreInfoHover'), connectLegacyRadioText: t('widget.mergeConnect'),
      createRadioText: t('widget.mergeCreate')
    };
  }

  /* The template's buttons: sign in to the existing account (its password, or the provider the 380 named), or not. */
  function mergeTemplateMarkup() {
    var connect = mergeWith
      ? '<button type="button" class="capture_btn capture_primary" data-capture-merge-with="'
        + ns.escapeHTML(mergeWith) + '">' + ns.escapeHTML(mergeText(t('widget.mergeProviderButton'),
          { email: mergeEmail, provider: social ? social.provider : '', via: mergeWith })) + '</button>'
      : '<button type="button" class="capture_btn capture_primary" data-capture-screen="traditionalAuthenticateMerge">'
        + ns.escapeHTML(t('widget.mergeConnectButton')) + '</button>';
    return {
      connect_button: connect, rendered_current_photo: '', rendered_existing_provider_photo: '',
      create_button: '<button type="button" class="capture_btn capture_secondary" data-capture-action="cancelSocial">'
        + ns.escapeHTML(t('widget.mergeCancel')) + '</button>'
    };
  }

  /* A social sign-in now waits for a form: socialRegistration, or mergeAccounts for the account at `email`. */
  function awaitForm(answer, email, via) {
    social = answer;
    mergeEmail = email || '';
    mergeWith = via || '';
    if (mergeEmail) ns.carryAddress(mergeEmail);
  }

  /* Back on mergeAccounts with the first sign-in (after the provider step of a merge ended without a token). */
  function resumeMerge(merge) {
    awaitForm({ token: merge.token, provider: merge.provider, purpose: 'signIn', verifier: merge.verifier },
      merge.email, merge.via);
    ns.renderScreen('mergeAccounts');
  }

  /* The merge is over (done, refused or cancelled): the first sign-in no longer waits. */
  function endMerge() {
    social = null;
    mergeEmail = '';
    mergeWith = '';
  }

  /*
   * Redeems the provider step's one-time token at /oauth/auth_native: signed in (onCaptureLoginSuccess with
   * authProvider), or the socialRegistration form (310, prefilled from prereg_fields), or the merge (380).
   * With `answer.merge` (the provider step mergeAccounts started) the first sign-in's token goes as merge_token,
   * and anything but a sign-in to that account is a failure.
   */
  function redeemSocial(answer) {
    var capture = ns.captureSettings();
    var transactionId = ns.randomId();
    var name = ns.providerName(answer.provider);
    var merge = answer.merge || null;
    var params = ns.commonParams(undefined);
    params.token = answer.token;
    params.code_verifier = answer.verifier;
    params.thin_registration = capture.thinRegistration === false ? 'false' : 'true';
    if (merge) {
      params.merge_token = merge.token;
      // Only a provider account that already signs in to the account finishes the merge: never a new account.
      params.thin_registration = 'false';
    }
    params.device_token = ns.storageGet(ns.STORAGE.device) || '';
    if (ns.refreshSecret()) params.refresh_secret = ns.refreshSecret();
    if (answer.purpose === 'reactivate') params.reactivate = 'true';
    ns.showNotice(t('widget.socialWait').replace('%s', name), true);
    ns.fire('onCaptureLoginStart', { statusMessage: 'loginStart', authProvider: answer.provider }, transactionId);
    return ns.post('/oauth/auth_native', params).then(function (reply) {
      ns.hideNotice();
      var body = reply.body || {};
      if (reply.ok) {
        endMerge();
        ns.socialSignInSucceeded(body, transactionId, answer);
        return;
      }
      if (merge) {
        // Refused on merge_token (another account's, or too late), or this provider account has no account here
        // (310/380): nothing was linked, and the page cannot tell whether the first sign-in is still usable.
        var refused = ns.errorFields(reply);
        refused.authProvider = answer.provider;
        ns.fire('onCaptureLoginFailed', refused, transactionId);
        endMerge();
        ns.renderScreen(ns.signInScreen());
        ns.showNotice(body.code === 510 ? t('widget.rateLimit') : mergeText(t('widget.mergeFailed'), merge));
        return;
      }
      if (body.code === 310) {
        social = answer;
        ns.renderScreen('socialRegistration');
        var form = document.querySelector('#socialRegistration form[data-capture-form="socialRegistrationForm"]');
        var prefill = body.prereg_fields || {};
        for (var field in prefill) {
          if (!ns.has(prefill, field)) continue;
          var input = form && form.elements[field];
          // A hidden field of a customer's flow keeps the flow's value, whatever the provider's profile says.
          if (ns.flowValue && ns.flowValue(field) !== undefined) continue;
          if (input && 'value' in input && prefill[field] !== null) input.value = String(prefill[field]);
        }
        return;
      }
      if (body.code === 380) {
        // An account without a password: its 380 names a provider it signs in with ("capture": its password).
        var named = body.existing_provider;
        awaitForm(answer, body.existing_email, named && named !== 'capture' && ns.knownProvider(named) ? String(named) : '');
        ns.renderScreen('mergeAccounts');
        return;
      }
      var result = ns.errorFields(reply);
      result.authProvider = answer.provider;
      // An account its owner deleted: reactivateAccount offers this provider again (capture-account.js).
      var offered = ns.signInRefused
        && ns.signInRefused(body, result, transactionId, { provider: answer.provider, social: answer });
      ns.fire('onCaptureLoginFailed', result, transactionId);
      if (offered) return ns.renderScreen('reactivateAccount');
      if (body.code === 270 && ns.askSecondFactor && ns.askSecondFactor(body, answer)) return;
      // Documents to accept first (a first sign-in that made the account too): termsAgreement (capture-terms.js).
      if (body.code === 280 && ns.askTerms && ns.askTerms(body, answer, transactionId)) return;
      if (body.code === 112) {
        // A client that requires a confirmed address, and the provider did not confirm this one: a code was mailed.
        ns.carryAddress((body.capture_user && body.capture_user.email) || ns.typedAddress());
        ns.renderScreen('verifyEmail');
        return;
      }
      ns.showNotice(body.code === 510 ? t('widget.rateLimit')
        : body.argument === 'token' ? t('widget.socialExpired').replace('%s', name)
        : body.error_description || t('widget.socialErrorOther').replace('%s', name));
    }, function () {
      // A merge waits on mergeAccounts again: the service never answered, so nothing was spent.
      if (merge) resumeMerge(merge);
      ns.showNotice(t('widget.network'));
      ns.fire('onCaptureLoginFailed', { status: 'error', statusMessage: 'networkError', authProvider: answer.provider }, transactionId);
    });
  }

  ns.socialProviderName = function () { return social ? ns.providerName(social.provider) : ''; };
  ns.mergeEmail = function () { return mergeEmail; };
  ns.waitsForSocial = waitsForSocial;
  ns.socialFor = socialFor;
  ns.startProvider = startProvider;
  ns.pageShownAgain = pageShownAgain;
  ns.setProviderHandoff = setProviderHandoff;
  ns.completeHandOff = completeHandOff;
  ns.takeSocialReturn = takeSocialReturn;
  ns.showSocialNotice = showSocialNotice;
  ns.afterProviderError = afterProviderError;
  ns.finishSocial = finishSocial;
  ns.renderMerge = renderMerge;
  ns.endMerge = endMerge;
  ns.redeemSocial = redeemSocial;
})(window, document);
