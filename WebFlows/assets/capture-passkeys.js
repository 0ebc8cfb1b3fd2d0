/*
 * capture-passkeys.js — passkeys: the ceremony (here, or by the host), signing in with one from the sign-in screens,
 * and the signed-in user's list on editProfile (add, remove). capture-factors.js draws that section with the
 * authenticator app's and uses the helpers at the end (ns.factorTools).
 *
 * The relay: where navigator.credentials can run a ceremony the page runs it itself; where it is missing, or refuses
 * this page (NotSupportedError, SecurityError: a web view whose app lacks the associated domain), the page fires
 * onCapturePasskeyRequest ({kind, options}: WebAuthn's JSON options) and waits for the host's
 * janrain.capture.ui.completePasskey(<credential JSON> | null) (docs/bridge-protocol.md, "Passkeys").
 */
(function (window, document) {
  'use strict';

  var ns = window.janrain.capture._widget;
  var t = ns.t;

  // How long the page waits for the host's answer beyond the options' own timeout (or five minutes without one).
  var RELAY_GRACE_MS = 30000;
  var CEREMONY_MS = 300000;

  // The ceremony the host runs for the page ({resolve, reject, timer}), answered by completePasskey.
  var relayed = null;
  // A passkey ceremony is under way (one at a time).
  var busy = false;
  // The signed-in user's passkeys as last shown ({token, list}).
  var shown = null;

  // ---------------------------------------------------------------- the ceremony: here, or by the host

  /* base64url text as bytes. */
  function bytesOf(text) {
    var base64 = String(text || '').replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4) base64 += '=';
    var raw = window.atob(base64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  function text64(buffer) {
    return buffer ? ns.base64url(new Uint8Array(buffer)) : undefined;
  }

  function canRunHere() {
    var credentials = window.navigator.credentials;
    return !!window.PublicKeyCredential && !!credentials && typeof credentials.create === 'function'
      && typeof credentials.get === 'function';
  }

  /* The service's JSON options as the Web Authentication API takes them: binary members as bytes. */
  function publicKeyOptions(kind, options) {
    var type = window.PublicKeyCredential;
    var parse = kind === 'create' ? type.parseCreationOptionsFromJSON : type.parseRequestOptionsFromJSON;
    if (typeof parse === 'function') {
      try { return parse.call(type, options); } catch (error) { /* decoded by hand below */ }
    }
    var copy = JSON.parse(JSON.stringify(options));
    copy.challenge = bytesOf(copy.challenge);
    if (copy.user) copy.user.id = bytesOf(copy.user.id);
    var lists = [copy.excludeCredentials || [], copy.allowCredentials || []];
    for (var l = 0; l < lists.length; l++) {
      for (var i = 0; i < lists[l].length; i++) lists[l][i].id = bytesOf(lists[l][i].id);
    }
    return copy;
  }

  /* A credential as its JSON serialisation (RegistrationResponseJSON / AuthenticationResponseJSON). */
  function credentialJSON(credential) {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    var answer = credential.response;
    var response = { clientDataJSON: text64(answer.clientDataJSON) };
    if (answer.attestationObject) {
      response.attestationObject = text64(answer.attestationObject);
      if (typeof answer.getTransports === 'function') response.transports = answer.getTransports();
    } else {
      response.authenticatorData = text64(answer.authenticatorData);
      response.signature = text64(answer.signature);
      response.userHandle = text64(answer.userHandle);
    }
    return {
      id: credential.id, rawId: text64(credential.rawId), type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: typeof credential.getClientExtensionResults === 'function'
        ? credential.getClientExtensionResults() : {},
      response: response
    };
  }

  /*
   * A passkey ceremony (`kind` 'create' or 'get', the service's JSON options). Resolves with the credential's JSON
   * text, or null when the person cancelled; rejects with {ceremony: error} when it failed.
   */
  function ceremony(kind, options) {
    if (!canRunHere()) return relay(kind, options);
    var request;
    try {
      request = window.navigator.credentials[kind]({ publicKey: publicKeyOptions(kind, options) });
    } catch (error) {
      return relay(kind, options);
    }
    return Promise.resolve(request).then(function (credential) {
      return credential ? JSON.stringify(credentialJSON(credential)) : null;
    }, function (error) {
      var name = error && error.name;
      if (name === 'NotSupportedError' || name === 'SecurityError') return relay(kind, options);
      if (name === 'NotAllowedError' || name === 'AbortError') return null;
      throw { ceremony: error };
    });
  }

  /* The host runs the ceremony: onCapturePasskeyRequest, answered by completePasskey (or given up after a while). */
  function relay(kind, options) {
    if (relayed) finishRelay(null);
    return new Promise(function (resolve, reject) {
      var wait = (Number(options && options.timeout) > 0 ? Number(options.timeout) : CEREMONY_MS) + RELAY_GRACE_MS;
      var pending = { resolve: resolve, reject: reject };
      pending.timer = window.setTimeout(function () {
        if (relayed !== pending) return;
        relayed = null;
        reject({ ceremony: { name: 'TimeoutError' } });
      }, wait);
      // Set before the event: a handler in the page may answer at once.
      relayed = pending;
      ns.fire('onCapturePasskeyRequest', { statusMessage: 'passkeyRequest', kind: kind, options: options });
    });
  }

  function finishRelay(text, failed) {
    var pending = relayed;
    relayed = null;
    window.clearTimeout(pending.timer);
    if (failed) pending.reject({ ceremony: { name: 'DataError' } });
    else pending.resolve(text);
  }

  /*
   * The host's answer (janrain.capture.ui.completePasskey): the credential as JSON text or as an object, or null when
   * the person cancelled. Returns true when a request was waiting for it, else false; never a Promise.
   */
  function completePasskey(result) {
    if (!relayed) return false;
    if (result === null || result === undefined || result === '') {
      finishRelay(null);
      return true;
    }
    var text = typeof result === 'string' ? result : null;
    try {
      if (text === null) text = JSON.stringify(result);
      var parsed = JSON.parse(text);
      if (!parsed || typeof parsed !== 'object' || Object.prototype.toString.call(parsed) === '[object Array]') throw 0;
    } catch (error) {
      finishRelay(null, true);
      return true;
    }
    finishRelay(text);
    return true;
  }

  // ---------------------------------------------------------------- requests and messages (ns.factorTools)

  /* A request whose failure is {reply} (the service said no) or {network: true}; resolves with the reply's body. */
  function send(path, params) {
    return ns.post(path, params).then(function (reply) {
      if (!reply.ok) throw { reply: reply };
      return reply.body;
    }, function () {
      throw { network: true };
    });
  }

  /* The sentence for a failure: the network, the rate limit, an authenticator that has one already, else `text`. */
  function failureText(failure, text) {
    var body = (failure && failure.reply && failure.reply.body) || {};
    if (failure && failure.network) return t('widget.network');
    if (body.code === 510) return t('widget.rateLimit');
    if (failure && failure.ceremony && failure.ceremony.name === 'InvalidStateError') return t('widget.passkeyExists');
    return text;
  }

  /* A dead access token behind a profile action: say so and end the session. Returns true when it was one. */
  function sessionGone(failure) {
    var reply = failure && failure.reply;
    if (!reply || !ns.isTokenError(reply)) return false;
    var expired = reply.body && reply.body.code === 414;
    ns.fire(expired ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
      ns.errorFields(reply, expired ? 'accessTokenExpired' : 'invalidAccessToken'));
    ns.endSession(false);
    ns.showNotice(t('widget.sessionEnded'));
    return true;
  }

  /* A change refused for want of a recent sign-in: `where` offers one (capture-account.js). True when it was that. */
  function signInFirst(failure, where) {
    return !!(failure && failure.reply && ns.askRecentSignIn && ns.askRecentSignIn(where, failure.reply.body));
  }

  /* A button or form at work: aria-disabled, not disabled, so focus stays where it is. */
  function setBusy(element, on) {
    var buttons = element.tagName === 'FORM' ? element.querySelectorAll('button[type="submit"]') : [element];
    for (var i = 0; i < buttons.length; i++) {
      if (on) buttons[i].setAttribute('aria-disabled', 'true'); else buttons[i].removeAttribute('aria-disabled');
    }
    if (on) element.setAttribute('aria-busy', 'true'); else element.removeAttribute('aria-busy');
  }

  function isBusy(element) {
    return element.getAttribute('aria-busy') === 'true' || element.getAttribute('aria-disabled') === 'true';
  }

  /* A section's note (role="status"): `kind` 'success' or 'info'. */
  function note(section, text, kind) {
    var node = section.querySelector('[data-capture-factor-note]');
    if (!node) return;
    node.className = 'capture_form_success' + (kind === 'info' ? ' capture_factor_info' : '');
    node.textContent = text;
    node.hidden = false;
  }

  function clearSection(section) {
    ns.clearMessages(section);
    ns.hideNotice();
  }

  // ---------------------------------------------------------------- sign-in with a passkey

  /*
   * The sign-in screens' "Sign in with a passkey": address-first when the screen's address field holds an address,
   * else discoverable. Success is a sign-in form's (onCaptureLoginSuccess, the token or code to the host).
   */
  function signInWithPasskey(button) {
    if (busy || isBusy(button)) return;
    var screen = ns.closest(button, '.capture_screen') || document.body;
    var form = screen.querySelector('form[data-capture-form="signInForm"], form[data-capture-form="userInformationForm"]');
    var capture = ns.captureSettings();
    var address = ns.addressIn(form || screen);
    // A form out of sight (reactivateAccount's, for a passkey) cannot show the message: the notice does.
    if (form && ns.closest(form, '[hidden]')) form = null;
    var transactionId = ns.randomId();
    var started = false;
    ns.clearMessages(screen);
    ns.hideNotice();
    busy = true;
    setBusy(button, true);
    var done = function () {
      busy = false;
      setBusy(button, false);
    };
    send('/passkey/sign_in_options', {
      client_id: capture.clientId, flow: capture.flowName, locale: capture.locale, email: address || undefined
    }).then(function (body) {
      return ceremony('get', body.options);
    }).then(function (credential) {
      if (credential === null) return ns.showNotice(t('widget.passkeyCancelled'), true);
      started = true;
      ns.fire('onCaptureLoginStart', { statusMessage: 'loginStart', form: 'passkey' }, transactionId);
      var params = ns.commonParams(undefined);
      params.credential = credential;
      params.device_token = ns.storageGet(ns.STORAGE.device) || '';
      if (ns.refreshSecret()) params.refresh_secret = ns.refreshSecret();
      if (ns.reactivationParams) ns.reactivationParams(button, params);
      return send('/oauth/auth_native_passkey', params).then(function (body) {
        done();
        ns.signInSucceeded(body, transactionId);
      });
    }).then(done, function (failure) {
      done();
      var reply = failure && failure.reply;
      var body = (reply && reply.body) || {};
      if (started) {
        var result = reply ? ns.errorFields(reply) : { status: 'error', statusMessage: 'networkError' };
        result.form = 'passkey';
        // An account its owner deleted: reactivateAccount offers the passkey again (capture-account.js).
        var offered = ns.signInRefused
          && ns.signInRefused(body, result, transactionId, { address: address, passkey: true });
        ns.fire('onCaptureLoginFailed', result, transactionId);
        if (offered) return ns.renderScreen('reactivateAccount');
        // Documents to accept first: termsAgreement finishes this sign-in (capture-terms.js).
        if (body.code === 280 && ns.askTerms && ns.askTerms(body, null, transactionId)) return;
      }
      if (body.code === 112) {
        // A client that requires a confirmed address: a code was just mailed to the account's.
        ns.carryAddress((body.capture_user && body.capture_user.email) || address);
        ns.renderScreen('verifyEmail');
        return;
      }
      var text = failureText(failure, reply ? t('widget.passkeyRefused') : t('widget.passkeyFailed'));
      if (form) ns.showFormMessage(form, text); else ns.showNotice(text);
    });
  }

  // ---------------------------------------------------------------- editProfile: the user's passkeys

  /* A service date ("2026-11-28 05:25:32.200000 +0000") as the page's language writes a day. */
  function day(text) {
    var parts = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(String(text || ''));
    if (!parts) return '';
    var date = new Date(Date.UTC(+parts[1], parts[2] - 1, +parts[3], +parts[4], +parts[5], +parts[6]));
    try {
      return date.toLocaleDateString(document.documentElement.lang || undefined,
        { year: 'numeric', month: 'short', day: 'numeric' });
    } catch (error) {
      return parts[1] + '-' + parts[2] + '-' + parts[3];
    }
  }

  function passkeyItem(passkey) {
    var name = String(passkey.name || '');
    var item = document.createElement('li');
    item.className = 'capture_linked_item';
    var text = document.createElement('span');
    text.className = 'capture_linked_text';
    var title = document.createElement('strong');
    title.textContent = name;
    text.appendChild(title);
    var lines = [t('widget.passkeyCreated').replace('%s', day(passkey.created)),
      passkey.lastUsed ? t('widget.passkeyLastUsed').replace('%s', day(passkey.lastUsed)) : t('widget.passkeyNeverUsed')];
    for (var i = 0; i < lines.length; i++) {
      var line = document.createElement('span');
      line.className = 'capture_factor_meta';
      line.textContent = lines[i];
      text.appendChild(line);
    }
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'capture_btn capture_secondary';
    button.setAttribute('data-capture-passkey-remove', String(passkey.id || ''));
    button.setAttribute('data-capture-passkey-name', name);
    button.setAttribute('aria-label', t('widget.passkeyRemoveNamed').replace('%s', name));
    button.textContent = t('widget.passkeyRemove');
    item.appendChild(text);
    item.appendChild(button);
    return item;
  }

  /* The passkeys sections of the page show `list` (or, without one, what is known for this session). */
  function showPasskeys(list) {
    var token = ns.storedToken();
    if (list) shown = { token: token, list: list };
    else if (!shown || shown.token !== token) shown = { token: token, list: (ns.storedProfile() || {}).passkeys || [] };
    var sections = document.querySelectorAll('[data-capture-passkeys]');
    for (var i = 0; i < sections.length; i++) {
      var holder = sections[i].querySelector('[data-capture-passkey-list]');
      while (holder.firstChild) holder.removeChild(holder.firstChild);
      for (var k = 0; k < shown.list.length; k++) holder.appendChild(passkeyItem(shown.list[k]));
      holder.hidden = shown.list.length === 0;
      sections[i].querySelector('[data-capture-passkeys-none]').hidden = shown.list.length > 0;
    }
  }

  function addPasskey(form) {
    if (busy || isBusy(form)) return;
    var section = ns.closest(form, '[data-capture-passkeys]');
    var input = form.elements.passkeyName;
    var name = String(input.value || '').replace(/^\s+|\s+$/g, '');
    var token = ns.storedToken();
    clearSection(section);
    busy = true;
    setBusy(form, true);
    send('/passkey/registration_options', { access_token: token }).then(function (body) {
      return ceremony('create', body.options);
    }).then(function (credential) {
      if (credential === null) return note(section, t('widget.passkeyAddCancelled'), 'info');
      return send('/passkey/register', { access_token: token, credential: credential, name: name || undefined })
        .then(function (body) {
          var added = body.passkey || {};
          input.value = '';
          showPasskeys(shown.list.concat([added]));
          note(section, t('widget.passkeyAdded').replace('%s', String(added.name || name)), 'success');
          ns.loadFactors();
        });
    }).then(function () {
      busy = false;
      setBusy(form, false);
    }, function (failure) {
      busy = false;
      setBusy(form, false);
      if (sessionGone(failure) || signInFirst(failure, form)) return;
      ns.showFormMessage(form, failureText(failure, t('widget.passkeyNotAdded')));
    });
  }

  function removePasskey(button) {
    if (isBusy(button)) return;
    var section = ns.closest(button, '[data-capture-passkeys]');
    var id = button.getAttribute('data-capture-passkey-remove');
    var name = button.getAttribute('data-capture-passkey-name') || '';
    clearSection(section);
    setBusy(button, true);
    send('/passkey/remove', { access_token: ns.storedToken(), passkey_id: id }).then(function () {
      showPasskeys(shown.list.filter(function (passkey) { return passkey.id !== id; }));
      note(section, t('widget.passkeyRemoved').replace('%s', name), 'success');
      // The button is gone: the section's heading keeps the place.
      var heading = section.querySelector('h2');
      if (heading && heading.focus) heading.focus();
      ns.loadFactors();
    }, function (failure) {
      setBusy(button, false);
      if (sessionGone(failure) || signInFirst(failure, section)) return;
      ns.showFormMessage(section, failureText(failure, t('widget.passkeyNotRemoved').replace('%s', name)));
    });
  }

  // ---------------------------------------------------------------- clicks and submissions

  ns.onClicks([
    ['[data-capture-passkey-sign-in]', signInWithPasskey],
    ['[data-capture-passkey-remove]', removePasskey]
  ]);

  ns.completePasskey = completePasskey;
  ns.day = day;
  ns.showPasskeys = showPasskeys;
  ns.addPasskey = addPasskey;
  ns.factorTools = {
    send: send, failureText: failureText, sessionGone: sessionGone, signInFirst: signInFirst, setBusy: setBusy,
    isBusy: isBusy, note: note, clearSection: clearSection
  };
})(window, document);
