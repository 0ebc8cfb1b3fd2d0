/*
 * capture-passkeys.js — passkeys: the ceremony (here, or by the host), signing in with one from the sign-in screens,
 * and the signed-in user's list on editProfile (add, remove). capture-factors.js draws that section with the
 * authenticator app's; requests and the section's messages go through capture-sections.js.
 *
 * The relay: where navigator.credentials can run a ceremony the page runs it itself; where it is missing, or refuses
 * this page (NotSupportedError, SecurityError: a web view whose app lacks the associated domain), the page fires
 * onCapturePasskeyRequest ({kind, options}: WebAuthn's JSON options) and waits for the host's
 * janrain.capture.ui.completePasskey(<credential JSON> | null) (docs/bridge-protocol.md, "Passkeys").
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

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
    return buffer ? core.base64url(new Uint8Array(buffer)) : undefined;
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
      core.fire('onCapturePasskeyRequest', { statusMessage: 'passkeyRequest', kind: kind, options: options });
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

  // ---------------------------------------------------------------- sign-in with a passkey

  /*
   * The sign-in screens' "Sign in with a passkey": address-first when the screen's address field holds an address,
   * else discoverable. Success is a sign-in form's (onCaptureLoginSuccess, the token or code to the host).
   */
  function signInWithPasskey(button) {
    if (busy || widget.sections.isBusy(button)) return;
    var screen = core.closest(button, '.capture_screen') || document.body;
    var form = screen.querySelector('form[data-capture-form="signInForm"], form[data-capture-form="userInformationForm"]');
    var capture = core.captureSettings();
    var address = widget.screens.addressIn(form || screen);
    // A form out of sight (reactivateAccount's, for a passkey) cannot show the message: the notice does.
    if (form && core.closest(form, '[hidden]')) form = null;
    var transactionId = core.randomId();
    var started = false;
    widget.screens.clearMessages(screen);
    widget.screens.hideNotice();
    busy = true;
    widget.sections.setBusy(button, true);
    var done = function () {
      busy = false;
      widget.sections.setBusy(button, false);
    };
    widget.sections.send('/passkey/sign_in_options', {
      client_id: capture.clientId, flow: capture.flowName, locale: capture.locale, email: address || undefined
    }).then(function (body) {
      return ceremony('get', body.options);
    }).then(function (credential) {
      if (credential === null) return widget.screens.showNotice(t('widget.passkeyCancelled'), true);
      started = true;
      core.fire('onCaptureLoginStart', { statusMessage: 'loginStart', form: 'passkey' }, transactionId);
      var params = core.commonParams(undefined);
      params.credential = credential;
      params.device_token = core.storageGet(core.STORAGE.device) || '';
      if (core.refreshSecret()) params.refresh_secret = core.refreshSecret();
      widget.account.reactivationParams(button, params);
      return widget.sections.send('/oauth/auth_native_passkey', params).then(function (body) {
        done();
        widget.forms.signInSucceeded(body, transactionId);
      });
    }).then(done, function (failure) {
      done();
      var reply = failure && failure.reply;
      var body = (reply && reply.body) || {};
      if (started) {
        var result = reply ? core.errorFields(reply) : { status: 'error', statusMessage: 'networkError' };
        result.form = 'passkey';
        // An account its owner deleted: reactivateAccount offers the passkey again (capture-account.js).
        var offered = widget.account.signInRefused(body, result, transactionId, { address: address, passkey: true });
        core.fire('onCaptureLoginFailed', result, transactionId);
        if (offered) return widget.screens.renderScreen('reactivateAccount');
        // Documents to accept first: termsAgreement finishes this sign-in (capture-terms.js).
        if (body.code === 280 && widget.terms.askTerms(body, null, transactionId)) return;
      }
      if (body.code === 112) {
        // A client that requires a confirmed address: a code was just mailed to the account's.
        widget.screens.carryAddress((body.capture_user && body.capture_user.email) || address);
        widget.screens.renderScreen('verifyEmail');
        return;
      }
      var text = widget.sections.failureText(failure, reply ? t('widget.passkeyRefused') : t('widget.passkeyFailed'));
      if (form) widget.screens.showFormMessage(form, text); else widget.screens.showNotice(text);
    });
  }

  // ---------------------------------------------------------------- editProfile: the user's passkeys

  function passkeyItem(passkey) {
    var name = String(passkey.name || '');
    var item = document.createElement('li');
    item.className = 'capture_linked_item';
    var text = document.createElement('span');
    text.className = 'capture_linked_text';
    var title = document.createElement('strong');
    title.textContent = name;
    text.appendChild(title);
    var lines = [t('widget.passkeyCreated').replace('%s', widget.sections.day(passkey.created)),
      passkey.lastUsed ? t('widget.passkeyLastUsed').replace('%s', widget.sections.day(passkey.lastUsed))
        : t('widget.passkeyNeverUsed')];
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
    var token = core.storedToken();
    if (list) shown = { token: token, list: list };
    else if (!shown || shown.token !== token) shown = { token: token, list: (core.storedProfile() || {}).passkeys || [] };
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
    if (busy || widget.sections.isBusy(form)) return;
    var section = core.closest(form, '[data-capture-passkeys]');
    var input = form.elements.passkeyName;
    var name = String(input.value || '').replace(/^\s+|\s+$/g, '');
    var token = core.storedToken();
    widget.sections.clearSection(section);
    busy = true;
    widget.sections.setBusy(form, true);
    widget.sections.send('/passkey/registration_options', { access_token: token }).then(function (body) {
      return ceremony('create', body.options);
    }).then(function (credential) {
      if (credential === null) return widget.sections.note(section, t('widget.passkeyAddCancelled'), 'info');
      return widget.sections.send('/passkey/register', { access_token: token, credential: credential, name: name || undefined })
        .then(function (body) {
          var added = body.passkey || {};
          input.value = '';
          showPasskeys(shown.list.concat([added]));
          widget.sections.note(section, t('widget.passkeyAdded').replace('%s', String(added.name || name)), 'success');
          widget.factors.loadFactors();
        });
    }).then(function () {
      busy = false;
      widget.sections.setBusy(form, false);
    }, function (failure) {
      busy = false;
      widget.sections.setBusy(form, false);
      if (widget.sections.sessionGone(failure) || widget.sections.signInFirst(failure, form)) return;
      widget.screens.showFormMessage(form, widget.sections.failureText(failure, t('widget.passkeyNotAdded')));
    });
  }

  function removePasskey(button) {
    if (widget.sections.isBusy(button)) return;
    var section = core.closest(button, '[data-capture-passkeys]');
    var id = button.getAttribute('data-capture-passkey-remove');
    var name = button.getAttribute('data-capture-passkey-name') || '';
    widget.sections.clearSection(section);
    widget.sections.setBusy(button, true);
    widget.sections.send('/passkey/remove', { access_token: core.storedToken(), passkey_id: id }).then(function () {
      showPasskeys(shown.list.filter(function (passkey) { return passkey.id !== id; }));
      widget.sections.note(section, t('widget.passkeyRemoved').replace('%s', name), 'success');
      // The button is gone: the section's heading keeps the place.
      var heading = section.querySelector('h2');
      if (heading && heading.focus) heading.focus();
      widget.factors.loadFactors();
    }, function (failure) {
      widget.sections.setBusy(button, false);
      if (widget.sections.sessionGone(failure) || widget.sections.signInFirst(failure, section)) return;
      widget.screens.showFormMessage(section,
        widget.sections.failureText(failure, t('widget.passkeyNotRemoved').replace('%s', name)));
    });
  }

  // ---------------------------------------------------------------- clicks and submissions

  core.onClicks([
    ['[data-capture-passkey-sign-in]', signInWithPasskey],
    ['[data-capture-passkey-remove]', removePasskey]
  ]);

  widget.passkeys = {
    completePasskey: completePasskey,
    showPasskeys: showPasskeys,
    addPasskey: addPasskey
  };
})(window, document);
