/*
 * capture-ui.js — the registration widget behind the flow pages.
 *
 * Exposes Janrain's widget API (janrain.capture.ui.*, janrain.events.*) so that page and host code
 * written for Janrain Registration keeps working. Plain ES5 with fetch, no dependencies, no build
 * step, no eval, no inline styles: it must run in an old WKWebView under a strict CSP.
 *
 * Screens are elements whose id is the screen name (class "capture_screen"); forms carry
 * data-capture-form="<formName>"; the service renders the fields and validates every submission
 * against the same flow definition, so this script does no validation of its own.
 */
(function (window, document) {
  'use strict';

  var janrain = window.janrain = window.janrain || {};
  janrain.settings = janrain.settings || {};

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
    'onCaptureUnlinkAccountSuccess', 'onCaptureUnlinkAccountError',
    // Janrain's failure counterparts of the code events (beyond the minimum list in docs/contract.md §3, same names as Janrain's).
    'onCaptureForgotPasswordCodeFailed', 'onCaptureEmailVerificationFailed'
  ];

  var STORAGE = {
    token: 'janrainCaptureToken',
    expires: 'janrainCaptureToken_Expires',
    profile: 'janrainCaptureProfileData',
    lastEmail: 'janrainLastEmail',
    // Ours: marks this device as its owner's, so guesses from elsewhere cannot lock the owner out.
    device: 'captureBridgeDeviceToken'
  };

  /*
   * Which endpoint a form posts to, and which events describe it. `token`: the form acts on the signed-in
   * user (access_token is sent, a dead token ends the session). `only`: the endpoint takes just these
   * parameters (no flow context). `sent`/`done`: the events and the screen of a success.
   */
  var FORMS = {
    signInForm: {
      endpoint: '/oauth/auth_native_traditional', kind: 'login',
      start: ['onCaptureLoginStart'], failed: ['onCaptureLoginFailed']
    },
    registrationForm: {
      endpoint: '/oauth/register_native_traditional', kind: 'registration',
      start: ['onCaptureRegistrationStart'], failed: ['onCaptureRegistrationFailed']
    },
    editProfileForm: {
      endpoint: '/oauth/update_profile_native', kind: 'profile', token: true,
      start: [], failed: ['onCaptureProfileSaveFailed', 'onCaptureSaveFailed']
    },
    forgotPasswordForm: {
      endpoint: '/oauth/forgot_password_native', kind: 'forgotPassword', emailField: 'signInEmailAddress',
      start: [], failed: ['onCaptureForgotPasswordCodeFailed'],
      sent: [['onCaptureEmailSent', 'emailSent'], ['onCaptureForgotPasswordCodeSuccess', 'forgotPasswordCodeSent']],
      done: 'forgotPasswordSuccess'
    },
    resetPasswordForm: {
      endpoint: '/oauth/reset_password_native', kind: 'resetPassword', emailField: 'email',
      start: [], failed: ['onCaptureForgotPasswordCodeFailed'], sent: [], done: 'resetPasswordSuccess'
    },
    resendVerificationForm: {
      endpoint: '/oauth/verify_email_native', kind: 'resendVerification', emailField: 'emailAddress',
      start: [], failed: ['onCaptureEmailVerificationFailed'],
      sent: [['onCaptureEmailSent', 'emailSent']], done: 'resendVerificationSuccess'
    },
    // Not a Settings form: the code and the address are all /access/useVerificationCode takes.
    useVerificationCodeForm: {
      endpoint: '/access/useVerificationCode', kind: 'verifyEmail', emailField: 'email',
      only: ['verification_code', 'email', 'client_id', 'locale', 'flow'],
      start: [], failed: ['onCaptureEmailVerificationFailed'],
      sent: [['onCaptureEmailVerificationSuccess', 'emailVerified']], done: 'verifyEmailSuccess'
    },
    changePasswordForm: {
      endpoint: '/oauth/update_profile_native', kind: 'changePassword', token: true,
      start: [], failed: ['onCaptureProfileSaveFailed', 'onCaptureSaveFailed'], done: 'newPasswordSuccess'
    },
    // A first social sign-in the provider's profile was not enough for (310): the form, with the one-time token.
    socialRegistrationForm: {
      endpoint: '/oauth/register_native', kind: 'registration',
      start: ['onCaptureRegistrationStart'], failed: ['onCaptureRegistrationFailed']
    }
  };

  // The page's texts in its language (Settings/locales, keys widget.*), from the page's capture-messages block.
  // `%s` in a text is the provider's name; the merge texts also use %e (address), %p and %n (providers).
  var MESSAGES = (function () {
    var block = document.getElementById('capture-messages');
    try { return (block && JSON.parse(block.textContent || '{}')) || {}; } catch (error) { return {}; }
  })();

  function t(key) {
    return Object.prototype.hasOwnProperty.call(MESSAGES, key) ? String(MESSAGES[key]) : key;
  }

  // Screens of a social sign-in in progress (state.social): without one they fall back to sign-in.
  var SOCIAL_SCREENS = { socialRegistration: true, mergeAccounts: true, traditionalAuthenticateMerge: true };

  // What the page says when the provider step comes back with #capture_social_error=<code> (the service's codes).
  var SOCIAL_ERRORS = {
    cancelled: t('widget.socialError.cancelled'),
    provider_error: t('widget.socialError.provider_error'),
    provider_unreachable: t('widget.socialError.provider_unreachable'),
    invalid_id_token: t('widget.socialError.invalid_id_token'),
    state_mismatch: t('widget.socialError.state_mismatch')
  };
  var SOCIAL_ERROR_OTHER = t('widget.socialErrorOther');
  var SOCIAL_EXPIRED_MESSAGE = t('widget.socialExpired');
  var SOCIAL_WAIT_MESSAGE = t('widget.socialWait');
  var HANDOFF_WAIT_MESSAGE = t('widget.handoffWait');
  // The merge for an account without a password (its 380 named a provider, not "capture"): %e the account's
  // address, %p the provider to sign in to it with, %n the provider just used. The lead shows them in <strong>.
  var MERGE_PROVIDER_LEAD = t('widget.mergeProviderLead');
  var MERGE_PROVIDER_BUTTON = t('widget.mergeProviderButton');
  var MERGE_CANCELLED_MESSAGE = t('widget.mergeCancelled');
  var MERGE_PROVIDER_FAILED_MESSAGE = t('widget.mergeProviderFailed');
  var MERGE_FAILED_MESSAGE = t('widget.mergeFailed');
  // Linking a provider account from editProfile, and unlinking one.
  var LINK_WAIT_MESSAGE = t('widget.linkWait');
  var LINKED_MESSAGE = t('widget.linked');
  var LINK_CANCELLED_MESSAGE = t('widget.linkCancelled');
  var LINK_FAILED_MESSAGE = t('widget.linkFailed');
  var LINK_TAKEN_MESSAGE = t('widget.linkTaken');
  var LINK_UNPROVEN_MESSAGE = t('widget.linkUnproven');
  var UNLINKED_MESSAGE = t('widget.unlinked');
  var UNLINK_LAST_MESSAGE = t('widget.unlinkLast');
  var UNLINK_FAILED_MESSAGE = t('widget.unlinkFailed');
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

  // Screens a message's link may open (#screen=…&code=…&email=…), and the code input they fill.
  var LINK_SCREENS = { resetPassword: true, verifyEmail: true };
  // Inputs that hold the address a code goes to; it is carried from screen to screen.
  var ADDRESS_INPUTS = { signInEmailAddress: true, emailAddress: true, email: true };

  // Screens that only make sense with a session; without one the sign-in screen is shown instead.
  var SESSION_SCREENS = { editProfile: true, changePassword: true, newPasswordSuccess: true, signedIn: true };

  // Entity attribute → editProfileForm field.
  var PROFILE_FIELDS = {
    displayName: 'displayName', givenName: 'firstName', familyName: 'lastName',
    email: 'emailAddress', birthday: 'birthdate', phone: 'phone'
  };

  var REQUEST_TIMEOUT_MS = 20000;
  // How long a page opened with ?session=pending waits for the host's createCaptureSession before showing sign-in.
  var HOST_SESSION_WAIT_MS = 10000;
  var RATE_LIMIT_MESSAGE = t('widget.rateLimit');
  var LOCKED_MESSAGE = t('widget.locked');
  var RESET_ACTION = t('widget.resetAction');
  var IN_USE_ACTION = t('widget.inUseAction');
  var NETWORK_MESSAGE = t('widget.network');
  var SESSION_ENDED_MESSAGE = t('widget.sessionEnded');

  // address: the email address carried between the sign-in and code screens (never stored).
  // refreshSecret: the host's refresh_secret (setRefreshSecret), sent with sign-in and registration; memory only.
  // signOutToken: with response_type=code, the sign-in's sign-out token (revokes its chain); memory only.
  // social: a social sign-in waiting for a form ({token, provider, verifier}: socialRegistration or the merge); memory only.
  // handOffTo: the host's choice by setProviderHandoff (an app return URI, or '' for none); undefined: the page's.
  // handedOff: the provider whose sign-in the host is running in the system browser.
  // mergeWith: the provider a 380 named for an account without a password (mergeAccounts signs in with it), or ''.
  var state = {
    started: false, wired: false, currentScreen: null, address: '', refreshSecret: null, signOutToken: null,
    social: null, mergeEmail: '', mergeWith: '', socialNotice: null, leaving: false, handOffTo: undefined,
    handedOff: null, pageTitle: document.title, hostSessionTimer: null
  };

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

  function captureSettings() {
    return (janrain.settings && janrain.settings.capture) || {};
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
      screen: state.currentScreen,
      flow: capture.flowName,
      version: capture.flowVersion,
      transactionId: transactionId || randomId()
    };
    for (var key in fields) {
      if (Object.prototype.hasOwnProperty.call(fields, key) && fields[key] !== undefined) {
        result[key] = fields[key];
      }
    }
    channels[name].fire(result);
    return result;
  }

  // ---------------------------------------------------------------- storage

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

  // ---------------------------------------------------------------- network

  function encodeForm(params) {
    var parts = [];
    for (var key in params) {
      if (Object.prototype.hasOwnProperty.call(params, key) && params[key] !== undefined && params[key] !== null) {
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
    return window.fetch(path, init).then(function (response) {
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

  // ---------------------------------------------------------------- screens

  function screens() {
    return document.querySelectorAll('.capture_screen');
  }

  function screenExists(name) {
    var element = name && document.getElementById(name);
    return !!(element && (' ' + element.className + ' ').indexOf(' capture_screen ') >= 0);
  }

  function signInScreen() {
    if (storageGet(STORAGE.lastEmail) && screenExists('returnTraditional')) return 'returnTraditional';
    return 'signIn';
  }

  /* The screen to show after a session is found or created. */
  function sessionScreen() {
    var wanted = captureSettings().screenToRender;
    if (wanted && screenExists(wanted)) return wanted;
    if (screenExists('signedIn')) return 'signedIn';
    if (screenExists('editProfile')) return 'editProfile';
    return signInScreen();
  }

  function initialScreenWithoutSession() {
    var wanted = captureSettings().screenToRender;
    if (wanted && screenExists(wanted) && !SESSION_SCREENS[wanted]) return wanted;
    return signInScreen();
  }

  function bindProfile(root, override) {
    var profile = override || storedProfile() || {};
    var values = {
      email: profile.email, displayName: profile.displayName || profile.email,
      givenName: profile.givenName, familyName: profile.familyName,
      lastEmail: storageGet(STORAGE.lastEmail),
      address: carriedAddress(),
      providerName: state.social ? providerName(state.social.provider) : '',
      mergeEmail: state.mergeEmail
    };
    var bound = root.querySelectorAll('[data-capture-bind]');
    for (var i = 0; i < bound.length; i++) {
      var value = values[bound[i].getAttribute('data-capture-bind')];
      bound[i].textContent = value === undefined || value === null ? '' : String(value);
    }
    // "Confirm your address" reminders: only when the profile says the address is not verified yet.
    var unverified = addressUnproven(profile);
    var reminders = root.querySelectorAll('[data-capture-if="emailUnverified"]');
    for (var r = 0; r < reminders.length; r++) reminders[r].hidden = !unverified;
  }

  /* The signed-in record says its address is not proven yet (no reminder, no link until it is). */
  function addressUnproven(profile) {
    return !!(profile && profile.email && Object.prototype.hasOwnProperty.call(profile, 'emailVerified')
      && !profile.emailVerified);
  }

  function fillForms(root) {
    var profile = storedProfile() || {};
    var forms = root.querySelectorAll('form[data-capture-form="editProfileForm"]');
    for (var f = 0; f < forms.length; f++) {
      for (var attribute in PROFILE_FIELDS) {
        if (!Object.prototype.hasOwnProperty.call(PROFILE_FIELDS, attribute)) continue;
        var input = forms[f].elements[PROFILE_FIELDS[attribute]];
        if (input && 'value' in input) {
          var value = profile[attribute];
          input.value = value === undefined || value === null ? '' : String(value);
        }
      }
    }
    var lastEmail = storageGet(STORAGE.lastEmail);
    var returning = root.id === 'returnTraditional' ? root.querySelectorAll('input[name="signInEmailAddress"]') : [];
    for (var r = 0; r < returning.length; r++) {
      if (!returning[r].value && lastEmail) returning[r].value = lastEmail;
    }
    var address = carriedAddress();
    if (address && root.id !== 'returnTraditional') {
      // The address typed on the previous screen (or named by a message's link) goes along.
      var inputs = root.querySelectorAll('form[data-capture-form] input');
      for (var a = 0; a < inputs.length; a++) {
        var form = inputs[a].form;
        var formName = form && form.getAttribute('data-capture-form');
        if (!ADDRESS_INPUTS[inputs[a].name] || formName === 'editProfileForm') continue;
        if ((formName === 'registrationForm' || formName === 'socialRegistrationForm') && inputs[a].value) continue;
        inputs[a].value = address;
      }
    }
  }

  /* The address the code screens are about: the one carried from the last screen, else the signed-in user's. */
  function carriedAddress() {
    if (state.address) return state.address;
    var profile = hasActiveSession() ? storedProfile() : null;
    return (profile && profile.email) || '';
  }

  /* The address in the first filled address input of `root`, if any. */
  function addressIn(root) {
    var inputs = root ? root.querySelectorAll('input') : [];
    for (var i = 0; i < inputs.length; i++) {
      if (ADDRESS_INPUTS[inputs[i].name] && inputs[i].value && inputs[i].value.indexOf('@') > 0) {
        return inputs[i].value.replace(/^\s+|\s+$/g, '');
      }
    }
    return '';
  }

  /*
   * A message's link: #screen=resetPassword&code=K7QD-3MXP&email=a%40b.co. Read once, then removed from the
   * address bar and history so the code does not linger; returns the screen to show, or null.
   */
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

  function takeLink() {
    var values = fragmentValues(window.location.hash);
    if (!values.screen || !LINK_SCREENS[values.screen] || !screenExists(values.screen)) return null;
    if (window.history && window.history.replaceState) {
      try {
        window.history.replaceState(window.history.state, '', String(window.location.href).split('#')[0]);
      } catch (error) { /* keep going: the screen still shows */ }
    }
    if (values.email) state.address = values.email;
    var codes = document.getElementById(values.screen).querySelectorAll('input[name="verification_code"]');
    for (var c = 0; c < codes.length; c++) codes[c].value = values.code || '';
    return values.screen;
  }

  function renderScreen(name, options) {
    if (SESSION_SCREENS[name] && !hasActiveSession()) name = signInScreen();
    if (SOCIAL_SCREENS[name] && !state.social) name = signInScreen();
    if (!screenExists(name)) {
      if (!screenExists('signIn')) return false;
      name = 'signIn';
    }
    var all = screens();
    var target = document.getElementById(name);
    for (var i = 0; i < all.length; i++) {
      if (all[i] !== target) all[i].hidden = true;
    }
    clearMessages(target);
    bindProfile(target);
    renderMerge(target);
    renderLinkedAccounts(target);
    fillForms(target);
    target.hidden = false;
    var loading = document.getElementById('capture_loading');
    if (loading) loading.hidden = true;
    var previous = state.currentScreen;
    state.currentScreen = name;
    if (previous !== null && !(options && options.keepFocus)) {
      // Screen readers and keyboards follow the change; the heading has tabindex="-1".
      var heading = target.querySelector('h1, h2');
      if (heading && heading.focus) heading.focus();
    }
    // The window title names the screen too (screen readers announce it; the app switcher shows it).
    var heading1 = target.querySelector('h1');
    var screenTitle = heading1 ? (heading1.textContent || '').replace(/\s+/g, ' ').replace(/^ | $/g, '') : '';
    document.title = screenTitle && screenTitle !== state.pageTitle ? screenTitle + ' – ' + state.pageTitle : state.pageTitle;
    fire('onCaptureScreenShow', { statusMessage: 'screenShown', screen: name });
    return true;
  }

  /* Fired once the widget has put its first screen up (start, or a host-injected session). */
  function renderComplete() {
    showSocialNotice();
    fire('onCaptureRenderComplete', { statusMessage: 'renderComplete', screen: state.currentScreen });
  }

  /* The provider step's outcome (state.socialNotice), once its screen is up. */
  function showSocialNotice() {
    if (!state.socialNotice) return;
    showNotice(state.socialNotice.text, state.socialNotice.gentle);
    state.socialNotice = null;
  }

  /* A page-level notice (network trouble) that does not belong to one form. */
  function showNotice(text, gentle) {
    var notice = document.getElementById('capture_notice');
    if (!notice) {
      notice = document.createElement('p');
      notice.id = 'capture_notice';
      var container = document.querySelector('.capture_container') || document.body;
      container.insertBefore(notice, container.firstChild);
    }
    // A gentle notice (a cancelled sign-in, "signing you in…") is news, not an error.
    notice.className = gentle ? 'capture_notice capture_notice_info' : 'capture_notice';
    notice.setAttribute('role', gentle ? 'status' : 'alert');
    notice.textContent = text;
    notice.hidden = false;
  }

  function hideNotice() {
    var notice = document.getElementById('capture_notice');
    if (notice) notice.hidden = true;
  }

  // ---------------------------------------------------------------- messages

  function clearMessages(root) {
    if (!root) return;
    var tips = root.querySelectorAll('.capture_tip_error, .capture_form_error, .capture_form_success');
    for (var i = 0; i < tips.length; i++) {
      tips[i].textContent = '';
      tips[i].hidden = true;
    }
    var invalid = root.querySelectorAll('[aria-invalid]');
    for (var j = 0; j < invalid.length; j++) invalid[j].removeAttribute('aria-invalid');
    var items = root.querySelectorAll('.capture_form_item.capture_error');
    for (var k = 0; k < items.length; k++) {
      items[k].className = items[k].className.replace(/\s*\bcapture_error\b/g, '');
    }
    var generated = root.querySelectorAll('[data-capture-generated]');
    for (var g = 0; g < generated.length; g++) generated[g].parentNode.removeChild(generated[g]);
  }

  /* A way forward offered with a message: a link-styled button to another screen (null if the page lacks it). */
  function actionLink(label, screen) {
    if (!screenExists(screen)) return null;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'capture_link';
    button.setAttribute('data-capture-screen', screen);
    button.textContent = label;
    var line = document.createElement('span');
    line.className = 'capture_message_action';
    line.setAttribute('data-capture-generated', '');
    line.appendChild(button);
    return line;
  }

  function showFormMessage(form, text, className, action) {
    var node = form.querySelector('.' + (className || 'capture_form_error'));
    if (!node && form.parentNode) node = form.parentNode.querySelector('.' + (className || 'capture_form_error'));
    if (!node) return;
    node.textContent = text;
    if (action) node.appendChild(action);
    node.hidden = false;
  }

  /* Puts a way forward right under a field's message (e.g. "address in use" → sign in or reset). */
  function addFieldAction(form, field, action) {
    var input = action && form.querySelector('[name="' + field + '"]');
    var tip = input && input.id ? document.getElementById(input.id + '_error') : null;
    if (!tip) return;
    var holder = document.createElement('p');
    holder.className = 'capture_field_action';
    holder.setAttribute('data-capture-generated', '');
    action.removeAttribute('data-capture-generated');
    holder.appendChild(action);
    tip.parentNode.insertBefore(holder, tip.nextSibling);
  }

  /* Shows each message next to its field; returns messages whose field is not in this form. */
  function showFieldErrors(form, invalidFields) {
    var orphaned = [];
    for (var field in invalidFields) {
      if (!Object.prototype.hasOwnProperty.call(invalidFields, field)) continue;
      var messages = invalidFields[field];
      var text = Object.prototype.toString.call(messages) === '[object Array]' ? messages.join(' ') : String(messages);
      var input = form.querySelector('[name="' + field.replace(/["\\]/g, '') + '"]');
      var tip = input && input.id ? document.getElementById(input.id + '_error') : null;
      if (!input || !tip || closest(input, '[hidden]')) {
        // No place next to the field (or the field is a hidden copy): the form's own message says it.
        orphaned.push(text);
        continue;
      }
      tip.textContent = text;
      tip.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      var item = input.parentNode;
      if (item && item.className.indexOf('capture_error') < 0) item.className += ' capture_error';
    }
    // The first invalid field in screen order (invalid_fields' keys come sorted by name, not by place).
    var marked = form.querySelectorAll('[aria-invalid="true"]');
    if (marked.length) {
      showErrorSummary(form, marked);
      if (marked[0].focus) marked[0].focus();
    }
    return orphaned;
  }

  /*
   * The form's message (role="alert", so it is announced as a group): how many fields need fixing, each a link-styled
   * button that takes focus to its field.
   */
  function showErrorSummary(form, marked) {
    var node = form.querySelector('.capture_form_error');
    if (!node) return;
    node.textContent = t(marked.length === 1 ? 'widget.fixOneField' : 'widget.fixFields').replace('%d', String(marked.length));
    var list = document.createElement('ul');
    list.className = 'capture_error_summary';
    list.setAttribute('data-capture-generated', '');
    for (var i = 0; i < marked.length; i++) {
      var label = marked[i].id ? form.querySelector('label[for="' + marked[i].id + '"]') : null;
      var item = document.createElement('li');
      var jump = document.createElement('button');
      jump.type = 'button';
      jump.className = 'capture_link';
      jump.setAttribute('data-capture-focus', marked[i].id);
      jump.textContent = label ? label.textContent : marked[i].name;
      item.appendChild(jump);
      list.appendChild(item);
    }
    node.appendChild(list);
    node.hidden = false;
  }

  // ---------------------------------------------------------------- forms

  function formFields(form) {
    var values = {};
    var elements = form.elements;
    for (var i = 0; i < elements.length; i++) {
      var element = elements[i];
      if (!element.name || element.disabled) continue;
      var type = (element.type || '').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset') continue;
      if ((type === 'checkbox' || type === 'radio') && !element.checked) continue;
      values[element.name] = element.value;
    }
    return values;
  }

  /*
   * While a form is sent its submit button says so with aria-disabled, not `disabled`: a disabled button loses focus
   * (to <body>), and a keyboard or screen-reader user would lose their place. A second submit is ignored meanwhile.
   */
  function setBusy(form, busy) {
    var buttons = form.querySelectorAll('button[type="submit"], input[type="submit"]');
    for (var i = 0; i < buttons.length; i++) {
      if (busy) buttons[i].setAttribute('aria-disabled', 'true'); else buttons[i].removeAttribute('aria-disabled');
    }
    if (busy) form.setAttribute('aria-busy', 'true'); else form.removeAttribute('aria-busy');
  }

  /*
   * <div data-capture-mirror="email" hidden>{* emailAddress *}</div>: a form field that takes its value from the
   * input named `email` elsewhere on the screen, so one address field serves two forms (verifyEmail).
   */
  function copyMirrored(form) {
    var mirrors = form.querySelectorAll('[data-capture-mirror]');
    for (var m = 0; m < mirrors.length; m++) {
      var screen = closest(form, '.capture_screen') || document;
      var source = screen.querySelector('input[name="' + mirrors[m].getAttribute('data-capture-mirror').replace(/["\\]/g, '') + '"]');
      var targets = mirrors[m].querySelectorAll('input');
      for (var t = 0; t < targets.length; t++) if (source) targets[t].value = source.value;
    }
  }

  function submitForm(form) {
    var formName = form.getAttribute('data-capture-form');
    var spec = FORMS[formName];
    if (!spec || form.getAttribute('aria-busy') === 'true') return null;
    copyMirrored(form);
    var transactionId = randomId();
    var params = commonParams(formName);
    var fields = formFields(form);
    for (var key in fields) {
      if (Object.prototype.hasOwnProperty.call(fields, key)) params[key] = fields[key];
    }
    if (spec.only) {
      var allowed = {};
      for (var o = 0; o < spec.only.length; o++) allowed[spec.only[o]] = params[spec.only[o]];
      params = allowed;
    }
    if (spec.emailField && fields[spec.emailField]) state.address = fields[spec.emailField].replace(/^\s+|\s+$/g, '');
    if (spec.token) params.access_token = storedToken();
    if (spec.kind === 'login' || spec.kind === 'registration') {
      params.device_token = storageGet(STORAGE.device) || '';
      if (state.refreshSecret) params.refresh_secret = state.refreshSecret;
    }
    // The social sign-in this form finishes: its token registers (socialRegistrationForm) or, after the password, merges.
    var social = socialFor(form);
    if (social && formName === 'signInForm') params.merge_token = social.token;
    else if (social) params.token = social.token;
    if (social) params.code_verifier = social.verifier;

    var screenElement = form.parentNode;
    while (screenElement && screenElement !== document && (' ' + screenElement.className + ' ').indexOf(' capture_screen ') < 0) {
      screenElement = screenElement.parentNode;
    }
    clearMessages(screenElement && screenElement !== document ? screenElement : form);
    hideNotice();
    for (var s = 0; s < spec.start.length; s++) {
      fire(spec.start[s], { statusMessage: spec.kind + 'Start', form: formName }, transactionId);
    }
    setBusy(form, true);

    return post(spec.endpoint, params).then(function (reply) {
      setBusy(form, false);
      if (reply.ok && spec.done) {
        codeStepSucceeded(form, formName, spec, reply.body, transactionId);
      } else if (reply.ok) {
        if (social) state.social = null;
        succeeded(form, formName, spec, reply.body, transactionId, social);
      } else {
        failed(form, formName, spec, reply, transactionId);
      }
    }, function () {
      setBusy(form, false);
      showFormMessage(form, NETWORK_MESSAGE);
      for (var f = 0; f < spec.failed.length; f++) {
        fire(spec.failed[f], { status: 'error', statusMessage: 'networkError', form: formName }, transactionId);
      }
    });
  }

  function failed(form, formName, spec, reply, transactionId) {
    var body = reply.body || {};
    var result = errorFields(reply);
    result.form = formName;
    if ((spec.kind === 'login' || spec.kind === 'registration') && body.code === 112) {
      // An address not yet confirmed, for a client that requires it (a sign-in with the right password, or the
      // account just made): the service just mailed a code for it.
      for (var v = 0; v < spec.failed.length; v++) fire(spec.failed[v], result, transactionId);
      state.address = addressIn(form) || state.address;
      renderScreen('verifyEmail');
      return;
    }
    if (body.invalid_fields) {
      var orphaned = showFieldErrors(form, body.invalid_fields);
      if (orphaned.length) showFormMessage(form, orphaned.join(' '));
      if (body.code === 380) addFieldAction(form, 'emailAddress', actionLink(IN_USE_ACTION, 'signIn'));
      fire('onCaptureValidationFailed', result, transactionId);
    } else if (spec.kind === 'login' && (body.code === 510 || body.code === 210)) {
      // Locked out or the wrong password: resetting is the way forward, right in the message.
      showFormMessage(form, body.code === 510 ? LOCKED_MESSAGE : body.error_description || t('widget.invalidCredentials'),
        null, actionLink(RESET_ACTION, 'forgotPassword'));
    } else {
      showFormMessage(form, body.code === 510 ? RATE_LIMIT_MESSAGE : body.error_description || body.error ||
        t('widget.httpError').replace('%d', String(reply.status)));
    }
    for (var f = 0; f < spec.failed.length; f++) fire(spec.failed[f], result, transactionId);
    if (spec.token && isTokenError(reply)) {
      // The session behind this form is gone: say so and end it rather than leave a dead form.
      fire(body.code === 414 ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
        errorFields(reply, body.code === 414 ? 'accessTokenExpired' : 'invalidAccessToken'), transactionId);
      endSession(false);
      showNotice(SESSION_ENDED_MESSAGE);
    }
  }

  /* `social` ({provider}) when the sign-in came through a provider: authProvider names it. */
  function succeeded(form, formName, spec, body, transactionId, social) {
    var user = body.capture_user || {};
    if (spec.kind === 'profile') {
      saveProfile(user);
      bindProfile(document.getElementById(state.currentScreen) || document.body);
      showFormMessage(form, t('widget.profileSaved'), 'capture_form_success');
      fire('onCaptureProfileSaveSuccess', {
        statusMessage: 'profileSaved', form: formName, userData: user
      }, transactionId);
      return;
    }
    if (body.device_token) storageSet(STORAGE.device, body.device_token);
    var code = body.authorization_code;
    var token = code ? undefined : body.access_token;
    var expiresIn = token ? (Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600) : undefined;
    // Code mode: the only way this page can end the sign-in on the server (kept in memory, never stored).
    state.signOutToken = code && body.sign_out_token ? body.sign_out_token : null;
    if (token) {
      saveSession(token, expiresIn, user);
      fire('onCaptureSessionCreated', {
        statusMessage: 'sessionCreated', accessToken: token, expiresIn: expiresIn, userData: user
      }, transactionId);
    } else if (user.email) {
      // response_type=code: the page keeps no session, only the address for the next visit.
      storageSet(STORAGE.lastEmail, user.email);
    }
    var success = {
      statusMessage: body.is_new ? 'registered' : 'loggedIn',
      accessToken: token,
      expiresIn: expiresIn,
      authorizationCode: code,
      oneTime: !!code,
      keepMeLoggedIn: false,
      authProvider: social ? social.provider : 'capture',
      userData: {
        uuid: user.uuid, email: user.email, displayName: user.displayName,
        givenName: user.givenName, familyName: user.familyName
      }
    };
    if (spec.kind === 'registration' || (social && body.is_new)) fire('onCaptureRegistrationSuccess', success, transactionId);
    fire('onCaptureLoginSuccess', success, transactionId);
    if (token) {
      renderScreen(sessionScreen());
    } else if (screenExists('signedIn')) {
      // No session in the page (response_type=code): the host finishes the sign-in.
      showSignedInWithoutSession('signedIn', user);
    }
  }

  /* A forgot/reset/resend/verify/change-password step went through: its events, then its success screen. */
  function codeStepSucceeded(form, formName, spec, body, transactionId) {
    var user = body.capture_user;
    if (spec.token && user) saveProfile(user);
    var fields = { form: formName };
    for (var s = 0; s < (spec.sent || []).length; s++) {
      fields.statusMessage = spec.sent[s][1];
      fire(spec.sent[s][0], fields, transactionId);
    }
    if (spec.kind === 'changePassword') {
      fire('onCaptureProfileSaveSuccess', { statusMessage: 'passwordChanged', form: formName, userData: user }, transactionId);
    }
    // Spent codes and passwords leave the form.
    var secrets = form.querySelectorAll('input[type="password"], input[name="verification_code"]');
    for (var i = 0; i < secrets.length; i++) secrets[i].value = '';
    var own = sessionIsFor(state.address);
    if (spec.kind === 'resetPassword' && own) {
      // A reset ends every session of the account, this page's included.
      clearSession();
      fire('onCaptureSessionEnded', { statusMessage: 'sessionEnded' }, transactionId);
    }
    renderScreen(spec.done);
    if (spec.kind === 'verifyEmail' && own) refreshProfile();
  }

  /* True when the page holds a session of the account with this address. */
  function sessionIsFor(address) {
    var profile = storedToken() ? storedProfile() : null;
    return !!(profile && profile.email && address && profile.email.toLowerCase() === address.toLowerCase());
  }

  /* Re-reads the signed-in user's record (e.g. emailVerified after a code), quietly. */
  function refreshProfile() {
    var token = storedToken();
    return post('/entity', { access_token: token, client_id: captureSettings().clientId }).then(function (reply) {
      if (reply.ok && storedToken() === token && reply.body.result) saveProfile(reply.body.result);
    }, function () { /* the next start checks again */ });
  }

  function showSignedInWithoutSession(name, user) {
    var all = screens();
    var target = document.getElementById(name);
    for (var i = 0; i < all.length; i++) all[i].hidden = all[i] !== target;
    bindProfile(target, user);
    state.currentScreen = name;
    fire('onCaptureScreenShow', { statusMessage: 'screenShown', screen: name });
  }

  // ---------------------------------------------------------------- sessions

  /*
   * Asks the service whether the token still works and fires what it finds.
   * Resolves true (session found), false (session ended) or null (service unreachable).
   */
  function verifySession(token, transactionId) {
    return post('/entity', { access_token: token, client_id: captureSettings().clientId }).then(function (reply) {
      if (storedToken() !== token) return false; // ended meanwhile
      if (reply.ok) {
        var user = (reply.body && reply.body.result) || {};
        saveProfile(user);
        // "Welcome back" greets whoever last held a session here, host-injected sessions included.
        if (user.email) storageSet(STORAGE.lastEmail, user.email);
        fire('onCaptureSessionFound', {
          statusMessage: 'profileFound', accessToken: token, userData: user
        }, transactionId);
        return true;
      }
      var expired = reply.body && reply.body.code === 414;
      fire(expired ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
        errorFields(reply, expired ? 'accessTokenExpired' : 'invalidAccessToken'), transactionId);
      endSession(false);
      showNotice(SESSION_ENDED_MESSAGE);
      return false;
    }, function () {
      // Unreachable: keep the stored session (a reload retries) but say so instead of hanging.
      showNotice(NETWORK_MESSAGE);
      return null;
    });
  }

  /*
   * Ends the page's session and, with `revoke`, the sign-in's whole chain on the service: through the stored access
   * token (response_type=token) or the sign-out token (response_type=code, where the page holds no access token).
   * Returns true when there was something to revoke.
   */
  function endSession(revoke, nextScreen) {
    var token = storedToken();
    var signOutToken = state.signOutToken;
    state.signOutToken = null;
    var handle = token || signOutToken;
    if (revoke && handle) {
      post('/oauth/revoke', {
        token: handle, token_type_hint: token ? 'access_token' : undefined, client_id: captureSettings().clientId
      }, { keepalive: true }).then(null, function () { /* best effort */ });
    }
    clearSession();
    fire('onCaptureSessionEnded', { statusMessage: 'sessionEnded' });
    renderScreen(nextScreen || initialScreenWithoutSession());
    return !!(revoke && handle);
  }

  // ---------------------------------------------------------------- social sign-in (redirect mode)

  function providerName(name) {
    var names = janrain.settings.providerNames || {};
    return Object.prototype.hasOwnProperty.call(names, name) ? String(names[name]) : String(name || '');
  }

  /* The social sign-in a form on a social screen finishes, else null. */
  function socialFor(form) {
    var screen = closest(form, '.capture_screen');
    return state.social && screen && SOCIAL_SCREENS[screen.id] ? state.social : null;
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
    if (!name || state.leaving) return;
    var capture = captureSettings();
    // A button of the linked-accounts section links the provider account to the signed-in user instead;
    // mergeAccounts' button signs in to the existing account and links the waiting social sign-in to it.
    var merge = button && button.hasAttribute('data-capture-merge-with') && state.social
      ? {
        token: state.social.token, provider: state.social.provider, email: state.mergeEmail, via: name,
        verifier: state.social.verifier
      } : null;
    var purpose = button && button.hasAttribute('data-capture-link') ? 'link' : merge ? 'merge' : 'signIn';
    if (purpose === 'link' && addressUnproven(storedProfile())) {
      // The service links nothing to an unproven address (a pre-hijack would keep its intruder): no round trip.
      showNotice(LINK_UNPROVEN_MESSAGE.replace('%s', providerName(name)));
      return;
    }
    fire('onProviderLoginStart', { statusMessage: 'providerLoginStart', provider: name, purpose: purpose });
    var appReturnUri = handOffTarget();
    state.leaving = true;
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
      var url = '/social/' + encodeURIComponent(name) + '/start?' + encodeForm({
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
        if (state.refreshSecret) window.sessionStorage.setItem(SOCIAL_SECRET_KEY, state.refreshSecret);
        if (purpose !== 'signIn') window.sessionStorage.setItem(SOCIAL_PURPOSE_KEY, purpose);
        // The first sign-in's token, for merge_token once this one is back; removed as soon as the page is.
        if (merge) window.sessionStorage.setItem(SOCIAL_MERGE_KEY, JSON.stringify(merge));
      } catch (error) {
        /* sign-in works without the secret; a link or a merge comes back as a sign-in of the same person */
      }
      afterBridgeDrained(function () { window.location.assign(url); });
    }).then(null, function () {
      providerButtonsBack();
      var text = SOCIAL_ERROR_OTHER.replace('%s', providerName(name));
      showNotice(text);
      fire('onProviderLoginError', {
        status: 'error', statusMessage: 'unsupportedBrowser', provider: name, purpose: purpose,
        error: 'unsupported_browser', errorDescription: text
      });
    });
  }

  /* The provider buttons usable again (the page stays). */
  function providerButtonsBack() {
    state.leaving = false;
    var buttons = document.querySelectorAll(PROVIDER_BUTTONS);
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = false;
      buttons[i].removeAttribute('aria-busy');
    }
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
      verifier = base64url(random);
    }
    var bytes = new Uint8Array(verifier.length);
    for (var i = 0; i < verifier.length; i++) bytes[i] = verifier.charCodeAt(i);
    return crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
      return { verifier: verifier, challenge: base64url(new Uint8Array(digest)) };
    });
  }

  function base64url(bytes) {
    var text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return window.btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  /* Where the provider's answer goes instead of this page (system-browser hand-off), or '' for a redirect. */
  function handOffTarget() {
    var chosen = state.handOffTo !== undefined ? state.handOffTo : captureSettings().appReturnUri;
    return typeof chosen === 'string' ? chosen : '';
  }

  /*
   * System-browser hand-off (docs/social-handoff.md): the page stays; the host opens `url` in
   * ASWebAuthenticationSession / Custom Tabs, the service finally sends that browser to `appReturnUri` with the
   * provider step's answer in the fragment, and the host hands that address back with completeProviderLogin.
   */
  function handOff(name, appReturnUri, purpose, merge, pair) {
    var capture = captureSettings();
    var url = window.location.protocol + '//' + window.location.host + '/social/' + encodeURIComponent(name) + '/start?'
      + encodeForm({
        client_id: capture.clientId, flow: capture.flowName, locale: capture.locale,
        response_type: capture.responseType, app_return_uri: appReturnUri,
        code_challenge: pair.challenge, code_challenge_method: 'S256'
      });
    // A merge's first sign-in and the verifier stay in memory here: the page does not reload.
    state.handedOff = { provider: name, purpose: purpose, merge: merge, verifier: pair.verifier };
    showNotice(HANDOFF_WAIT_MESSAGE.replace('%s', providerName(name)), true);
    fire('onProviderLoginHandoff', {
      statusMessage: 'providerLoginHandoff', provider: name, purpose: purpose, url: url, appReturnUri: appReturnUri
    });
  }

  /*
   * The fields of a provider step's answer in a fragment (capture_social_token=…&provider=… or
   * capture_social_error=…&provider=…), or null when it is not one.
   */
  function socialAnswer(fragment) {
    var values = fragmentValues(fragment);
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
    if (window.history && window.history.replaceState) {
      try {
        window.history.replaceState(window.history.state, '', String(window.location.href).split('#')[0]);
      } catch (error) { /* keep going */ }
    }
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
    if (secret && !state.refreshSecret) state.refreshSecret = secret;
    if (purpose === 'merge' && merge) return providerStepEnded(values, 'merge', verifier, merge);
    return providerStepEnded(values, purpose === 'link' ? 'link' : 'signIn', verifier);
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
    var name = providerName(provider) || 'the provider';
    if (purpose !== 'merge') merge = null;
    if (values.capture_social_error) {
      var code = values.capture_social_error;
      var text = merge ? mergeText(code === 'cancelled' ? MERGE_CANCELLED_MESSAGE : MERGE_PROVIDER_FAILED_MESSAGE, merge)
        : purpose === 'link'
        ? (code === 'cancelled' ? LINK_CANCELLED_MESSAGE : LINK_FAILED_MESSAGE).replace('%s', name)
        : (SOCIAL_ERRORS[code] || SOCIAL_ERROR_OTHER).replace('%s', name);
      // Shown on the next screen once it is up (sign-in, or editProfile for a link).
      state.socialNotice = { text: text, gentle: code === 'cancelled' };
      fire('onProviderLoginError', {
        status: 'error', statusMessage: code, provider: provider, purpose: purpose, error: code, errorDescription: text
      });
      return { error: code, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
    }
    fire('onProviderLoginSuccess', { statusMessage: 'providerLoginSuccess', provider: provider, purpose: purpose });
    return { token: values.capture_social_token, provider: provider, purpose: purpose, merge: merge, verifier: verifier };
  }

  /* The screen after a provider step that brought no token: mergeAccounts again for a merge (its first sign-in still
   * waits), else sign-in (or the session's screen). The notice follows (showSocialNotice). */
  function afterProviderError(social) {
    if (social && social.merge) resumeMerge(social.merge);
    else renderScreen(hasActiveSession() ? sessionScreen() : initialScreenWithoutSession());
  }

  // ---------------------------------------------------------------- merge through a provider (380 naming one)

  function knownProvider(name) {
    var providers = janrain.settings.providers || [];
    for (var i = 0; i < providers.length; i++) if (providers[i] === name) return true;
    return false;
  }

  /* A MERGE_* text with its placeholders filled in: %e the address, %p the provider to sign in with, %n the new one. */
  function mergeText(template, merge) {
    var values = mergeValues(merge);
    return template.replace(/%([epn])/g, function (all, key) { return values[key]; });
  }

  function mergeValues(merge) {
    return { e: merge.email || '', p: providerName(merge.via), n: providerName(merge.provider) };
  }

  /*
   * mergeAccounts shows the password merge ([data-capture-merge="password"]) or, when the 380 named a provider the
   * page knows (state.mergeWith), the sign-in with that provider ([data-capture-merge="provider"]): the lead from
   * MERGE_PROVIDER_LEAD (the names in <strong>) and the [data-capture-merge-with] button.
   */
  function renderMerge(root) {
    var parts = root.querySelectorAll('[data-capture-merge]');
    if (!parts.length) return;
    var merge = state.social && state.mergeWith
      ? { email: state.mergeEmail, provider: state.social.provider, via: state.mergeWith } : null;
    for (var i = 0; i < parts.length; i++) {
      parts[i].hidden = (parts[i].getAttribute('data-capture-merge') === 'provider') !== !!merge;
    }
    if (!merge) return;
    var values = mergeValues(merge);
    var leads = root.querySelectorAll('[data-capture-merge-lead]');
    for (var l = 0; l < leads.length; l++) {
      while (leads[l].firstChild) leads[l].removeChild(leads[l].firstChild);
      var pieces = MERGE_PROVIDER_LEAD.split(/(%[epn])/);
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
      buttons[b].textContent = mergeText(MERGE_PROVIDER_BUTTON, merge);
      buttons[b].disabled = false;
      buttons[b].removeAttribute('aria-busy');
    }
  }

  /* Back on mergeAccounts with the first sign-in (after the provider step of a merge ended without a token). */
  function resumeMerge(merge) {
    state.social = { token: merge.token, provider: merge.provider, purpose: 'signIn', verifier: merge.verifier };
    state.mergeEmail = merge.email || '';
    state.mergeWith = merge.via;
    if (state.mergeEmail) state.address = state.mergeEmail;
    renderScreen('mergeAccounts');
  }

  /* The merge is over (done, refused or cancelled): the first sign-in no longer waits. */
  function endMerge() {
    state.social = null;
    state.mergeEmail = '';
    state.mergeWith = '';
  }

  /* A provider step that brought a token: a link to the signed-in user, or a sign-in. */
  function finishSocial(social) {
    if (social.purpose === 'link' && hasActiveSession()) return linkSocial(social);
    return redeemSocial(social);
  }

  // ---------------------------------------------------------------- linked accounts (editProfile)

  /*
   * The linked-accounts section of `root`: the record's `profiles` (from /entity) with an Unlink button each, and
   * the Link buttons. Shown when the service has providers or the record has links.
   */
  function renderLinkedAccounts(root) {
    var sections = root.querySelectorAll('[data-capture-linked]');
    if (!sections.length) return;
    var profile = storedProfile() || {};
    var linked = Object.prototype.toString.call(profile.profiles) === '[object Array]' ? profile.profiles : [];
    var providers = janrain.settings.providers || [];
    for (var i = 0; i < sections.length; i++) {
      var list = sections[i].querySelector('[data-capture-linked-list]');
      if (list) {
        while (list.firstChild) list.removeChild(list.firstChild);
        for (var k = 0; k < linked.length; k++) list.appendChild(linkedAccountItem(linked[k]));
        list.hidden = linked.length === 0;
      }
      sections[i].hidden = providers.length === 0 && linked.length === 0;
    }
  }

  function linkedAccountItem(account) {
    var name = providerName(account.domain);
    var item = document.createElement('li');
    item.className = 'capture_linked_item';
    var text = document.createElement('span');
    text.className = 'capture_linked_text';
    text.appendChild(document.createTextNode(name));
    if (account.email) {
      var email = document.createElement('span');
      email.className = 'capture_linked_email';
      email.textContent = String(account.email);
      text.appendChild(email);
    }
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'capture_btn capture_secondary';
    button.setAttribute('data-capture-unlink', String(account.identifier || ''));
    button.setAttribute('data-capture-provider-name', name);
    button.setAttribute('aria-label', t(account.email ? 'widget.unlinkNamedWithEmail' : 'widget.unlinkNamed')
      .replace('%s', name).replace('%e', String(account.email || '')));
    button.textContent = t('widget.unlink');
    item.appendChild(text);
    item.appendChild(button);
    return item;
  }

  /* After a link or an unlink: the record as the service now has it, the list redrawn, and a note. */
  function linkedAccountsChanged(user, text, gentle) {
    if (user) saveProfile(user);
    renderLinkedAccounts(document);
    showNotice(text, gentle);
  }

  /* The provider account of a provider step, added to the signed-in user (/oauth/link_account_native). */
  function linkSocial(social) {
    var name = providerName(social.provider);
    var transactionId = randomId();
    var params = commonParams(undefined);
    params.token = social.token;
    params.code_verifier = social.verifier;
    params.access_token = storedToken();
    showNotice(LINK_WAIT_MESSAGE.replace('%s', name), true);
    return post('/oauth/link_account_native', params).then(function (reply) {
      var body = reply.body || {};
      if (reply.ok) {
        linkedAccountsChanged(body.capture_user, LINKED_MESSAGE.replace('%s', name), true);
        fire('onCaptureLinkAccountSuccess', {
          statusMessage: 'accountLinked', provider: social.provider, userData: body.capture_user
        }, transactionId);
        return;
      }
      var result = errorFields(reply);
      result.provider = social.provider;
      fire('onCaptureLinkAccountError', result, transactionId);
      var refusal = body.code !== 403 ? LINK_FAILED_MESSAGE
        : addressUnproven(storedProfile()) ? LINK_UNPROVEN_MESSAGE : LINK_TAKEN_MESSAGE;
      linkedAccountsChanged(null, refusal.replace('%s', name), false);
    }, function () {
      showNotice(NETWORK_MESSAGE);
      fire('onCaptureLinkAccountError', { status: 'error', statusMessage: 'networkError', provider: social.provider }, transactionId);
    });
  }

  /* An Unlink button: /oauth/unlink_account_native with the account's identifier. */
  function unlinkAccount(button) {
    var identifier = button.getAttribute('data-capture-unlink');
    var name = button.getAttribute('data-capture-provider-name') || '';
    var capture = captureSettings();
    var transactionId = randomId();
    button.disabled = true;
    return post('/oauth/unlink_account_native', {
      client_id: capture.clientId, flow: capture.flowName, flow_version: capture.flowVersion, locale: capture.locale,
      redirect_uri: capture.redirectUri, identifier_to_remove: identifier, access_token: storedToken()
    }).then(function (reply) {
      var body = reply.body || {};
      button.disabled = false;
      if (reply.ok) {
        linkedAccountsChanged(body.capture_user, UNLINKED_MESSAGE.replace('%s', name), true);
        fire('onCaptureUnlinkAccountSuccess', {
          statusMessage: 'accountUnlinked', identifier: identifier, userData: body.capture_user
        }, transactionId);
        return;
      }
      var result = errorFields(reply);
      result.identifier = identifier;
      fire('onCaptureUnlinkAccountError', result, transactionId);
      showNotice(body.code === 403 ? UNLINK_LAST_MESSAGE : UNLINK_FAILED_MESSAGE.replace('%s', name));
    }, function () {
      button.disabled = false;
      showNotice(NETWORK_MESSAGE);
      fire('onCaptureUnlinkAccountError', { status: 'error', statusMessage: 'networkError', identifier: identifier }, transactionId);
    });
  }

  /*
   * Redeems the provider step's one-time token at /oauth/auth_native: signed in (onCaptureLoginSuccess with
   * authProvider), or the socialRegistration form (310, prefilled from prereg_fields), or the merge (380).
   * With `social.merge` (the provider step mergeAccounts started) the first sign-in's token goes as merge_token,
   * and anything but a sign-in to that account is a failure.
   */
  function redeemSocial(social) {
    var capture = captureSettings();
    var transactionId = randomId();
    var name = providerName(social.provider);
    var merge = social.merge || null;
    var params = commonParams(undefined);
    params.token = social.token;
    params.code_verifier = social.verifier;
    params.thin_registration = capture.thinRegistration === false ? 'false' : 'true';
    if (merge) {
      params.merge_token = merge.token;
      // Only a provider account that already signs in to the account finishes the merge: never a new account.
      params.thin_registration = 'false';
    }
    params.device_token = storageGet(STORAGE.device) || '';
    if (state.refreshSecret) params.refresh_secret = state.refreshSecret;
    showNotice(SOCIAL_WAIT_MESSAGE.replace('%s', name), true);
    fire('onCaptureLoginStart', { statusMessage: 'loginStart', authProvider: social.provider }, transactionId);
    return post('/oauth/auth_native', params).then(function (reply) {
      hideNotice();
      var body = reply.body || {};
      if (reply.ok) {
        endMerge();
        succeeded(null, 'socialSignIn', FORMS.signInForm, body, transactionId, social);
        return;
      }
      if (merge) {
        // Refused on merge_token (another account's, or too late), or this provider account has no account here
        // (310/380): nothing was linked, and the page cannot tell whether the first sign-in is still usable.
        var refused = errorFields(reply);
        refused.authProvider = social.provider;
        fire('onCaptureLoginFailed', refused, transactionId);
        endMerge();
        renderScreen(signInScreen());
        showNotice(body.code === 510 ? RATE_LIMIT_MESSAGE : mergeText(MERGE_FAILED_MESSAGE, merge));
        return;
      }
      if (body.code === 310) {
        state.social = social;
        renderScreen('socialRegistration');
        var form = document.querySelector('#socialRegistration form[data-capture-form="socialRegistrationForm"]');
        var prefill = body.prereg_fields || {};
        for (var field in prefill) {
          if (!Object.prototype.hasOwnProperty.call(prefill, field)) continue;
          var input = form && form.elements[field];
          if (input && 'value' in input && prefill[field] !== null) input.value = String(prefill[field]);
        }
        return;
      }
      if (body.code === 380) {
        state.social = social;
        state.mergeEmail = body.existing_email || '';
        // An account without a password: its 380 names a provider it signs in with ("capture": its password).
        var named = body.existing_provider;
        state.mergeWith = named && named !== 'capture' && knownProvider(named) ? String(named) : '';
        if (state.mergeEmail) state.address = state.mergeEmail;
        renderScreen('mergeAccounts');
        return;
      }
      var result = errorFields(reply);
      result.authProvider = social.provider;
      fire('onCaptureLoginFailed', result, transactionId);
      if (body.code === 112) {
        // A client that requires a confirmed address, and the provider did not confirm this one: a code was mailed.
        state.address = (body.capture_user && body.capture_user.email) || state.address;
        renderScreen('verifyEmail');
        return;
      }
      showNotice(body.code === 510 ? RATE_LIMIT_MESSAGE
        : body.argument === 'token' ? SOCIAL_EXPIRED_MESSAGE.replace('%s', name)
        : body.error_description || SOCIAL_ERROR_OTHER.replace('%s', name));
    }, function () {
      // A merge waits on mergeAccounts again: the service never answered, so nothing was spent.
      if (merge) resumeMerge(merge);
      showNotice(NETWORK_MESSAGE);
      fire('onCaptureLoginFailed', { status: 'error', statusMessage: 'networkError', authProvider: social.provider }, transactionId);
    });
  }

  function start() {
    wire();
    if (state.started) return;
    state.started = true;
    // Back from a provider (#capture_social_token=… or #capture_social_error=…): finish that first.
    var social = takeSocialReturn();
    if (social && social.token && social.purpose === 'link' && hasActiveSession()) {
      // Back from linking a provider: the session is checked as on any load, then the account linked.
      verifySession(storedToken()).then(function (found) {
        renderScreen(found ? sessionScreen() : initialScreenWithoutSession());
        renderComplete();
        if (found) linkSocial(social);
      });
      return;
    }
    if (social && social.token) {
      renderScreen(initialScreenWithoutSession());
      renderComplete();
      redeemSocial(social);
      return;
    }
    if (social && social.merge) {
      // The provider step of a merge ended without a token: the first sign-in still waits on mergeAccounts.
      afterProviderError(social);
      renderComplete();
      return;
    }
    // A message's link names the screen to show first, whatever the session.
    var linked = takeLink();
    var token = storedToken();
    if (!token && !linked && awaitingHostSession()) {
      // The host said a token is coming (?session=pending): no sign-in form flashes up meanwhile. The page is ready
      // for commands (onCaptureRenderComplete); createCaptureSession shows the session, the timeout sign-in.
      state.hostSessionTimer = window.setTimeout(function () {
        state.hostSessionTimer = null;
        if (storedToken()) return;
        fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
        renderScreen(initialScreenWithoutSession());
      }, HOST_SESSION_WAIT_MS);
      renderComplete();
      return;
    }
    if (!token) {
      fire('onCaptureSessionNotFound', { statusMessage: 'sessionNotFound' });
      renderScreen(linked || initialScreenWithoutSession());
      renderComplete();
      return;
    }
    if (tokenExpired()) {
      fire('onCaptureExpiredToken', { status: 'error', statusMessage: 'accessTokenExpired' });
      endSession(false, linked);
      renderComplete();
      return;
    }
    verifySession(token).then(function (found) {
      if (linked) {
        if (state.currentScreen !== linked) renderScreen(linked);
      } else if (found) {
        renderScreen(sessionScreen());
      } else if (found === null) {
        renderScreen(initialScreenWithoutSession());
      }
      renderComplete();
    });
  }

  /* `?session=pending` on the page's address: the host will hand over a token with createCaptureSession. */
  function awaitingHostSession() {
    return /[?&]session=pending(&|$)/.test(String(window.location.search || ''));
  }

  /*
   * The host signed the person out natively (and revoked the tokens itself): the page forgets its session quietly,
   * with no request and no "session ended" banner, fires onCaptureSessionEnded and shows sign-in. Returns true when
   * the page held a session.
   */
  function clearCaptureSession() {
    wire();
    var had = !!storedToken() || !!state.signOutToken;
    state.signOutToken = null;
    clearSession();
    hideNotice();
    fire('onCaptureSessionEnded', { statusMessage: 'sessionCleared' });
    renderScreen(initialScreenWithoutSession());
    return had;
  }

  /* Sign-in after a code step: the address it was for, not a different remembered one. */
  function signInAfterCode() {
    var last = storageGet(STORAGE.lastEmail);
    if (state.address && last && state.address.toLowerCase() !== last.toLowerCase()) return 'signIn';
    return signInScreen();
  }

  /*
   * The host hands the page a token it holds (e.g. after a refresh), optionally with its lifetime in seconds.
   * Returns true when the token was taken and is being checked (the events say how that went), false for an argument
   * that is not a token. Never a Promise: WKWebView's evaluateJavaScript reports one as an error.
   */
  function createCaptureSession(accessToken, expiresInSeconds) {
    wire();
    state.started = true;
    if (!accessToken || typeof accessToken !== 'string') return false;
    if (state.hostSessionTimer) {
      window.clearTimeout(state.hostSessionTimer);
      state.hostSessionTimer = null;
    }
    var expiresIn = Number(expiresInSeconds) > 0 ? Math.floor(Number(expiresInSeconds)) : undefined;
    hideNotice();
    storageRemove(STORAGE.profile);
    state.signOutToken = null;
    saveSession(accessToken, expiresIn || 3600, null);
    verifySession(accessToken).then(function (found) {
      if (found) {
        // The host handed the page a working token: the page now holds a session (Janrain fires this too).
        fire('onCaptureSessionCreated', {
          statusMessage: 'sessionCreated', accessToken: accessToken, expiresIn: expiresIn, userData: storedProfile()
        });
        renderScreen(sessionScreen());
      }
      else if (found === null) renderScreen(initialScreenWithoutSession());
    });
    return true;
  }

  /*
   * The host's refresh_secret for Janrain's signed refresh (/oauth/refresh_access_token), sent with the next sign-in
   * or registration. Kept in this closure only: never stored, never in a URL. A non-empty string is taken (true);
   * anything else forgets the secret (false).
   */
  function setRefreshSecret(secret) {
    state.refreshSecret = typeof secret === 'string' && secret.length > 0 ? secret : null;
    return state.refreshSecret !== null;
  }

  /*
   * The host turns the system-browser hand-off on (an app return URI on the client's redirect URIs) or off (anything
   * else), whatever the page's app_return_uri said. Returns whether it is on.
   */
  function setProviderHandoff(appReturnUri) {
    state.handOffTo = typeof appReturnUri === 'string' ? appReturnUri : '';
    return state.handOffTo.length > 0;
  }

  /*
   * The host hands back the address the system browser ended on (the app return URI with the provider step's answer
   * in its fragment), and the sign-in finishes in this page; null or '' when the person closed the browser first.
   * Returns true when taken, false when there is nothing to finish (not an answer, or no hand-off under way).
   */
  function completeProviderLogin(returnUrl) {
    wire();
    var values;
    // Only a hand-off this page started is finished, with its verifier: any other address is not taken.
    var handedOff = state.handedOff;
    if (!handedOff) return false;
    if (returnUrl === null || returnUrl === undefined || returnUrl === '') {
      values = { capture_social_error: 'cancelled', provider: handedOff.provider };
    } else {
      var text = String(returnUrl);
      values = text.indexOf('#') >= 0 ? socialAnswer(text.slice(text.indexOf('#') + 1)) : null;
      if (!values) return false;
    }
    state.handedOff = null;
    hideNotice();
    var social = providerStepEnded(values, handedOff.purpose, handedOff.verifier, handedOff.merge);
    if (social.token) {
      finishSocial(social);
    } else {
      afterProviderError(social);
      showSocialNotice();
    }
    return true;
  }

  // ---------------------------------------------------------------- wiring

  function closest(element, selector) {
    while (element && element.nodeType === 1) {
      if (element.matches ? element.matches(selector) : element.webkitMatchesSelector(selector)) return element;
      element = element.parentNode;
    }
    return null;
  }

  function wire() {
    if (state.wired) return;
    state.wired = true;
    document.addEventListener('submit', function (event) {
      var form = closest(event.target, 'form[data-capture-form]');
      if (!form) return;
      event.preventDefault();
      submitForm(form);
    }, true);
    // Back (from the provider) to a page the browser kept: its provider buttons work again.
    window.addEventListener('pageshow', function (event) {
      if (!event.persisted || !state.leaving) return;
      takeStoredMerge();
      try {
        window.sessionStorage.removeItem(SOCIAL_VERIFIER_KEY);
      } catch (error) { /* none kept */ }
      providerButtonsBack();
    });
    // A message's link opened while the page is already showing (same page, new fragment: no reload).
    window.addEventListener('hashchange', function () {
      var social = takeSocialReturn();
      if (social && social.token) {
        finishSocial(social);
        return;
      }
      if (social) {
        afterProviderError(social);
        renderComplete();
        return;
      }
      var linked = takeLink();
      if (linked) renderScreen(linked);
    });
    document.addEventListener('click', function (event) {
      var provider = closest(event.target, '[data-capture-provider]');
      if (provider) {
        event.preventDefault();
        startProvider(provider.getAttribute('data-capture-provider'), provider);
        return;
      }
      var mergeWith = closest(event.target, '[data-capture-merge-with]');
      if (mergeWith) {
        event.preventDefault();
        startProvider(mergeWith.getAttribute('data-capture-merge-with'), mergeWith);
        return;
      }
      var jumpTo = closest(event.target, '[data-capture-focus]');
      if (jumpTo) {
        // The error summary's links take focus to their field.
        event.preventDefault();
        var field = document.getElementById(jumpTo.getAttribute('data-capture-focus'));
        if (field && field.focus) field.focus();
        return;
      }
      var reveal = closest(event.target, '[data-capture-reveal]');
      if (reveal) {
        // Show password: the input's type flips, the toggle says whether it is pressed; the name stays.
        event.preventDefault();
        var secret = document.getElementById(reveal.getAttribute('aria-controls'));
        var shown = reveal.getAttribute('aria-pressed') !== 'true';
        if (secret) secret.type = shown ? 'text' : 'password';
        reveal.setAttribute('aria-pressed', shown ? 'true' : 'false');
        return;
      }
      var unlink = closest(event.target, '[data-capture-unlink]');
      if (unlink) {
        event.preventDefault();
        if (!unlink.disabled) unlinkAccount(unlink);
        return;
      }
      var link = closest(event.target, '[data-capture-screen], [data-capture-action]');
      if (!link) return;
      event.preventDefault();
      var action = link.getAttribute('data-capture-action');
      // The address typed on this screen goes along to the next one (forgot password, sign in, …).
      var typed = addressIn(closest(link, '.capture_screen'));
      if (typed) state.address = typed;
      if (action === 'signOut') {
        endSession(true);
      } else if (action === 'cancelSocial') {
        // The provider account stays unlinked; its token simply expires.
        endMerge();
        renderScreen(signInScreen());
      } else if (action === 'forgetEmail') {
        storageRemove(STORAGE.lastEmail);
        state.address = '';
        renderScreen('signIn');
      } else if (action === 'signIn') {
        renderScreen(hasActiveSession() ? sessionScreen() : signInAfterCode());
      } else {
        renderScreen(link.getAttribute('data-capture-screen'));
      }
    });
  }

  janrain.capture = janrain.capture || {};
  janrain.capture.ui = {
    start: start,
    // Host commands return plain values (true/false), never a Promise or undefined (docs/bridge-protocol.md).
    createCaptureSession: createCaptureSession,
    endCaptureSession: function () { return endSession(true); },
    renderScreen: function (name) { return renderScreen(String(name)); },
    hasActiveSession: hasActiveSession,
    setRefreshSecret: setRefreshSecret,
    clearCaptureSession: clearCaptureSession,
    setProviderHandoff: setProviderHandoff,
    completeProviderLogin: completeProviderLogin
  };

  var loadedOnce = false;
  function loaded() {
    if (loadedOnce) return;
    loadedOnce = true;
    if (typeof window.janrainCaptureWidgetOnLoad === 'function') {
      window.janrainCaptureWidgetOnLoad();
    } else {
      janrain.capture.ui.start();
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', loaded);
  } else {
    loaded();
  }
})(window, document);
