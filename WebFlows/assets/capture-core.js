/*
 * capture-core.js — what every module of the widget uses (capture-ui.js loads it first): Janrain's events, the page's
 * settings and texts, the session kept in localStorage, the sign-in's secrets kept in memory, and the requests to the
 * service. It makes the widget's private object, janrain.capture._widget, on which each module puts the one object of
 * what it offers (this one: widget.core); a module reaches another only through that object.
 */
(function (window, document) {
  'use strict';

  var janrain = window.janrain = window.janrain || {};
  janrain.settings = janrain.settings || {};
  janrain.capture = janrain.capture || {};

  // The modules' export objects (widget.core, widget.screens, …). Not enumerable: code that walks janrain.capture sees
  // only Janrain's API.
  var widget = {};
  Object.defineProperty(janrain.capture, '_widget', { value: widget, configurable: true });
  // On a customer's Janrain page (janrain-load.js): the service's origin, which every request goes to.
  var dropIn = !!janrain.capture._dropIn;
  var server = dropIn ? janrain.capture._dropIn.server : '';

  var EVENT_NAMES = [
    'onCaptureLoginStart', 'onCaptureLoginSuccess', 'onCaptureLoginFailed',
    'onCaptureRegistrationStart', 'onCaptureRegistrationSuccess', 'onCaptureRegistrationFailed',
    'onCaptureSessionFound', 'onCaptureSessionNotFound', 'onCaptureSessionCreated',
    'onCaptureSessionEnded', 'onCaptureExpiredToken', 'onCaptureInvalidToken',
    'onCaptureProfileSaveSuccess', 'onCaptureProfileSaveFailed', 'onCaptureSaveFailed',
    'onCaptureScreenShow', 'onCaptureRenderComplete', 'onCaptureEmailSent',
    'onCaptureEmailVerificationSuccess', 'onCaptureForgotPasswordCodeSuccess',
    'onCaptureValidationFailed', 'onProviderLoginStart', 'onProviderLoginSuccess', 'onProviderLoginError',
    'onProviderLoginHandoff', 'onCaptureLinkAccountSuccess', 'onCaptureLinkAccountError',
    'onCaptureUnlinkAccountSuccess', 'onCaptureUnlinkAccountError', 'onCapturePasskeyRequest',
    // Janrain's failure counterparts of the code events (beyond the minimum list in docs/contract.md §3, same names as Janrain's).
    'onCaptureForgotPasswordCodeFailed', 'onCaptureEmailVerificationFailed',
    // Janrain's modal events: fired by modal.open/close on customer pages (capture-dropin.js).
    'onModalOpen', 'onModalClose',
    // Janrain's names that customers' pages subscribe to (a missing one would break the page's onload code):
    // onCaptureRenderStart and onCaptureModalReady fire on customer pages, onCaptureSaveSuccess with every
    // profile save; the rest belong to features not offered here and never fire.
    'onCaptureRenderStart', 'onCaptureModalReady', 'onCaptureSaveSuccess', 'onCaptureAccessDenied',
    'onCaptureAccountDeactivateSuccess', 'onCaptureAccountReactivateSuccess', 'onCaptureAccountReactivateFailed',
    'onCaptureBackplaneReady',
    // Ours: the profile's sessions signed out (capture-sessions.js), its data downloaded or mailed
    // (capture-account-data.js), the documents a sign-in waits for and their acceptance (capture-terms.js).
    'onCaptureSessionsEnded', 'onCaptureSessionsEndFailed',
    'onCaptureAccountDataReady', 'onCaptureAccountDataMailed', 'onCaptureAccountDataFailed',
    'onCaptureTermsAgreementRequired', 'onCaptureTermsAccepted'
  ];

  var STORAGE = {
    token: 'janrainCaptureToken',
    expires: 'janrainCaptureToken_Expires',
    profile: 'janrainCaptureProfileData',
    lastEmail: 'janrainLastEmail',
    // Ours: marks this device as its owner's, so guesses from elsewhere cannot lock the owner out.
    device: 'captureBridgeDeviceToken'
  };

  var REQUEST_TIMEOUT_MS = 20000;

  function has(object, key) {
    return Object.prototype.hasOwnProperty.call(object, key);
  }

  // ---------------------------------------------------------------- texts

  // The page's texts in its language (Settings/locales, keys widget.*), from the page's capture-messages block.
  // `%s` in a text is the provider's name; the merge texts also use %e (address), %p and %n (providers).
  var MESSAGES = (function () {
    var block = document.getElementById('capture-messages');
    try { return (block && JSON.parse(block.textContent || '{}')) || {}; } catch (error) { return {}; }
  })();

  /* Texts that arrive later (a customer's page gets them with its flow, capture-dropin.js). */
  function addMessages(texts) {
    for (var key in texts) if (has(texts, key)) MESSAGES[key] = texts[key];
  }

  function t(key) {
    return has(MESSAGES, key) ? String(MESSAGES[key]) : key;
  }

  // ---------------------------------------------------------------- settings

  function captureSettings() {
    return (janrain.settings && janrain.settings.capture) || {};
  }

  /*
   * What the service says of a form (janrain.settings.capture.forms, docs/contract.md §2): {endpoint, attributes,
   * parameters}; null for a form the page may not send.
   */
  function formSettings(formName) {
    var forms = captureSettings().forms || {};
    var form = has(forms, formName) ? forms[formName] : null;
    return form && typeof form.endpoint === 'string' ? form : null;
  }

  /* The form's field that holds the record attribute at `path` (e.g. 'email'), or ''. */
  function fieldOf(formName, path) {
    var attributes = (formSettings(formName) || {}).attributes || {};
    for (var field in attributes) {
      if (has(attributes, field) && attributes[field] === path) return field;
    }
    return '';
  }

  /*
   * True for an input that holds an email address the code screens are about: a field of any form whose attribute
   * is the record's `email`, and the code screens' own `email` input.
   */
  function isAddressInput(name) {
    if (name === 'email') return true;
    var forms = captureSettings().forms || {};
    for (var form in forms) {
      var attributes = has(forms, form) && forms[form] && forms[form].attributes;
      if (attributes && has(attributes, name) && attributes[name] === 'email') return true;
    }
    return false;
  }

  /* What the page calls a provider (janrain.settings.providerNames), else its name. */
  function providerName(name) {
    var names = janrain.settings.providerNames || {};
    return has(names, name) ? String(names[name]) : String(name || '');
  }

  /* A provider the service offers (Janrain's janrain.settings.providers). */
  function knownProvider(name) {
    var providers = janrain.settings.providers || [];
    for (var i = 0; i < providers.length; i++) if (providers[i] === name) return true;
    return false;
  }

  // ---------------------------------------------------------------- events

  function EventChannel(name) {
    this.eventName = name;
    this.handlers = [];
  }
  EventChannel.prototype.addHandler = function (handler) {
    if (typeof handler === 'function') {
      this.handlers.push(handler);
    }
    return handler;
  };
  EventChannel.prototype.removeHandler = function (handler) {
    for (var i = 0; i < this.handlers.length; i++) {
      if (this.handlers[i] === handler) {
        this.handlers.splice(i, 1);
        return true;
      }
    }
    return false;
  };
  EventChannel.prototype.fire = function (result) {
    // A copy, so a handler that removes itself does not skip its neighbour.
    var handlers = this.handlers.slice();
    for (var i = 0; i < handlers.length; i++) {
      try {
        handlers[i](result);
      } catch (error) {
        if (window.console && window.console.error) {
          window.console.error('janrain.events.' + this.eventName + ' handler failed', error);
        }
      }
    }
  };

  // A plain object whose only own enumerable properties are the event names: bridge scripts iterate it.
  var events = janrain.events = {};
  var channels = {};
  for (var n = 0; n < EVENT_NAMES.length; n++) {
    channels[EVENT_NAMES[n]] = events[EVENT_NAMES[n]] = new EventChannel(EVENT_NAMES[n]);
  }

  // The screen on show, which every event names (set by capture-screens.js through screenShown only).
  var currentScreen = null;
  // The screens shown before it, for Janrain's back button (at most capture.maxScreenHistory, else 10).
  var screenHistory = [];

  function screenShown(name, back) {
    if (back) {
      screenHistory.pop();
    } else if (currentScreen !== null && currentScreen !== name) {
      screenHistory.push(currentScreen);
      var limit = Number(captureSettings().maxScreenHistory) || 10;
      while (screenHistory.length > limit) screenHistory.shift();
    }
    currentScreen = name;
  }

  /* Bytes (a Uint8Array) as base64url without padding (RFC 4648 §5), as PKCE and WebAuthn write them. */
  function base64url(bytes) {
    var text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return window.btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function randomId() {
    var bytes = [];
    var crypto = window.crypto || window.msCrypto;
    if (crypto && crypto.getRandomValues) {
      var array = new Uint8Array(16);
      crypto.getRandomValues(array);
      for (var i = 0; i < array.length; i++) bytes.push(array[i]);
    } else {
      for (var j = 0; j < 16; j++) bytes.push(Math.floor(Math.random() * 256));
    }
    var hex = '';
    for (var k = 0; k < bytes.length; k++) hex += (bytes[k] < 16 ? '0' : '') + bytes[k].toString(16);
    return hex;
  }

  /* Fires an event with the fields every result carries (docs/contract.md §3). */
  function fire(name, fields, transactionId) {
    var capture = captureSettings();
    var result = {
      status: 'success',
      statusMessage: '',
      screen: currentScreen,
      flow: capture.flowName,
      version: capture.flowVersion,
      transactionId: transactionId || randomId()
    };
    for (var key in fields) {
      if (has(fields, key) && fields[key] !== undefined) {
        result[key] = fields[key];
      }
    }
    deliver(name, result);
    return result;
  }

  /*
   * On a customer's page, each event reaches the page's handlers in a task of its own, in order: Janrain's first
   * web-view bridge turns every event into a `janrain:` navigation, and a web view keeps only the last navigation a
   * task starts. (Janrain's own widget fired its events from separate network callbacks.)
   */
  var undelivered = [];

  function deliver(name, result) {
    if (!dropIn) {
      channels[name].fire(result);
      return;
    }
    undelivered.push([name, result]);
    if (undelivered.length === 1) window.setTimeout(deliverNext, 0);
  }

  function deliverNext() {
    var next = undelivered[0];
    try {
      channels[next[0]].fire(next[1]);
    } finally {
      undelivered.shift();
      if (undelivered.length) window.setTimeout(deliverNext, 0);
    }
  }

  // ---------------------------------------------------------------- storage and session

  function storageGet(key) {
    try { return window.localStorage.getItem(key); } catch (error) { return null; }
  }
  function storageSet(key, value) {
    try { window.localStorage.setItem(key, value); } catch (error) { /* private mode: session is per page */ }
  }
  function storageRemove(key) {
    try { window.localStorage.removeItem(key); } catch (error) { /* nothing stored */ }
  }

  function storedToken() {
    return storageGet(STORAGE.token);
  }

  function storedProfile() {
    var raw = storageGet(STORAGE.profile);
    if (!raw) return null;
    try { return JSON.parse(raw); } catch (error) { return null; }
  }

  function tokenExpired() {
    var raw = storageGet(STORAGE.expires);
    if (!raw) return false;
    var time = Date.parse(raw);
    return !isNaN(time) && time <= Date.now();
  }

  function saveSession(token, expiresInSeconds, profile) {
    storageSet(STORAGE.token, token);
    storageSet(STORAGE.expires, new Date(Date.now() + expiresInSeconds * 1000).toUTCString());
    if (profile) saveProfile(profile);
  }

  function saveProfile(profile) {
    storageSet(STORAGE.profile, JSON.stringify(profile));
    if (profile && profile.email) storageSet(STORAGE.lastEmail, profile.email);
  }

  function clearSession() {
    storageRemove(STORAGE.token);
    storageRemove(STORAGE.expires);
    storageRemove(STORAGE.profile);
  }

  function hasActiveSession() {
    return !!storedToken() && !tokenExpired();
  }

  // Memory only, never stored. refreshSecret: the host's refresh_secret (setRefreshSecret), sent with sign-in and
  // registration. signOutToken: with response_type=code, the sign-in's sign-out token (revokes its chain).
  var refreshSecret = null;
  var signOutToken = null;

  function setRefreshSecret(secret) {
    refreshSecret = typeof secret === 'string' && secret.length > 0 ? secret : null;
    return refreshSecret !== null;
  }

  /* The sign-out token, forgotten as it is handed over (each is used at most once). */
  function takeSignOutToken() {
    var token = signOutToken;
    signOutToken = null;
    return token;
  }

  // ---------------------------------------------------------------- network

  function encodeForm(params) {
    var parts = [];
    for (var key in params) {
      if (has(params, key) && params[key] !== undefined && params[key] !== null) {
        parts.push(encodeURIComponent(key) + '=' + encodeURIComponent(params[key]));
      }
    }
    return parts.join('&');
  }

  /*
   * POSTs a form body; resolves with {ok, status, body} for any HTTP answer (JSON or not) and
   * rejects only when the server could not be reached or did not answer in time.
   */
  function post(path, params, options) {
    var init = {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Accept': 'application/json' },
      body: encodeForm(params)
    };
    if (options && options.keepalive) init.keepalive = true;
    var controller = typeof window.AbortController === 'function' ? new window.AbortController() : null;
    if (controller) init.signal = controller.signal;
    var timer = controller ? window.setTimeout(function () { controller.abort(); }, REQUEST_TIMEOUT_MS) : null;
    return window.fetch(server + path, init).then(function (response) {
      return response.text().then(function (text) {
        if (timer) window.clearTimeout(timer);
        var body = null;
        try { body = JSON.parse(text); } catch (error) { body = null; }
        return { ok: !!(body && body.stat === 'ok'), status: response.status, body: body };
      });
    }, function (error) {
      if (timer) window.clearTimeout(timer);
      throw error;
    });
  }

  function commonParams(formName) {
    var capture = captureSettings();
    return {
      client_id: capture.clientId,
      flow: capture.flowName,
      flow_version: capture.flowVersion,
      locale: capture.locale,
      redirect_uri: capture.redirectUri,
      response_type: capture.responseType,
      code_challenge: capture.codeChallenge,
      code_challenge_method: capture.codeChallenge ? capture.codeChallengeMethod : undefined,
      oidc_request: capture.oidcRequest,
      form: formName
    };
  }

  /* statusMessage for a failed call: the reply's error name, as Janrain's widget reports it. */
  function errorStatusMessage(body) {
    if (body.code === 510) return 'rateLimitExceeded';
    return body.error || 'unexpectedError';
  }

  /* The error fields of an event result for an API error reply. */
  function errorFields(reply, statusMessage) {
    var body = reply.body || {};
    return {
      status: 'error',
      statusMessage: statusMessage || errorStatusMessage(body),
      code: body.code,
      error: body.error,
      errorDescription: body.error_description,
      invalidFields: body.invalid_fields
    };
  }

  /* True when an API error says the access token itself is unusable (not a field problem). */
  function isTokenError(reply) {
    var body = reply.body || {};
    return body.code === 414 || body.error === 'invalid_access_token' || body.error === 'account_deactivated';
  }

  // ---------------------------------------------------------------- DOM and address helpers

  function closest(element, selector) {
    while (element && element.nodeType === 1) {
      if (element.matches ? element.matches(selector) : element.webkitMatchesSelector(selector)) return element;
      element = element.parentNode;
    }
    return null;
  }

  /* Clicks inside an element one of `table`'s selectors matches ([[selector, handler], …], the first match wins):
   * the handler gets the element, and the browser's own action is dropped. */
  function onClicks(table) {
    document.addEventListener('click', function (event) {
      for (var i = 0; i < table.length; i++) {
        var element = closest(event.target, table[i][0]);
        if (element) {
          event.preventDefault();
          table[i][1](element);
          return;
        }
      }
    });
  }

  /* `a=1&b=x%40y` (a leading # is dropped) as {a: '1', b: 'x@y'}; a pair with a malformed escape is left out. */
  function fragmentValues(fragment) {
    var values = {};
    var pairs = String(fragment || '').replace(/^#/, '').split('&');
    for (var i = 0; i < pairs.length; i++) {
      var cut = pairs[i].indexOf('=');
      if (cut <= 0) continue;
      try {
        values[decodeURIComponent(pairs[i].slice(0, cut))] = decodeURIComponent(pairs[i].slice(cut + 1));
      } catch (error) { /* a malformed escape: ignore that pair */ }
    }
    return values;
  }

  /* Drops the fragment from the address bar and history (it held a one-time secret or a code). */
  function forgetFragment() {
    if (!window.history || !window.history.replaceState) return;
    try {
      window.history.replaceState(window.history.state, '', String(window.location.href).split('#')[0]);
    } catch (error) { /* keep going: the page still works */ }
  }

  widget.core = {
    // the page: a customer's Janrain page or the service's own; where requests go
    dropIn: dropIn, server: server,
    // texts and settings
    has: has, t: t, addMessages: addMessages, captureSettings: captureSettings, formSettings: formSettings,
    fieldOf: fieldOf, isAddressInput: isAddressInput, providerName: providerName, knownProvider: knownProvider,
    // events, and the screen they name
    fire: fire, randomId: randomId, base64url: base64url, screenShown: screenShown,
    currentScreen: function () { return currentScreen; },
    previousScreen: function () { return screenHistory.length ? screenHistory[screenHistory.length - 1] : null; },
    // storage and the session
    STORAGE: STORAGE, storageGet: storageGet, storageSet: storageSet, storageRemove: storageRemove,
    storedToken: storedToken, storedProfile: storedProfile, tokenExpired: tokenExpired, saveSession: saveSession,
    saveProfile: saveProfile, clearSession: clearSession, hasActiveSession: hasActiveSession,
    // the sign-in's secrets, in memory
    refreshSecret: function () { return refreshSecret; }, setRefreshSecret: setRefreshSecret,
    keepSignOutToken: function (token) { signOutToken = token || null; },
    holdsSignOutToken: function () { return signOutToken !== null; }, takeSignOutToken: takeSignOutToken,
    // requests
    encodeForm: encodeForm, post: post, commonParams: commonParams, errorFields: errorFields,
    isTokenError: isTokenError,
    // the DOM and the address bar
    closest: closest, onClicks: onClicks, fragmentValues: fragmentValues, forgetFragment: forgetFragment
  };
})(window, document);
