/*
 * capture-dropin.js — the widget on a customer's Janrain page (loaded last by janrain-load.js): the rest of
 * Janrain's API that such pages call, the start that reads the page's settings and asks the service for its flow,
 * and Janrain's load hooks (janrainWidgetOnload, janrainCaptureWidgetOnLoad).
 *
 * What start() does first: reads janrain.settings as the page left them in its onload callback (flowName,
 * screenToRender, language, responseType, clientId, redirectUri), fetches the flow from the service
 * (GET /flows/<flow>/widget.json: the flow's fields, forms, screens and texts, and the service's settings),
 * injects the page's stylesheets, renders the page's screens (capture-jtl.js), then starts the widget.
 */
(function (window, document) {
  'use strict';

  var janrain = window.janrain;
  var widget = janrain.capture._widget;
  var core = widget.core;
  var ui = janrain.capture.ui;
  var REQUEST_TIMEOUT_MS = 20000;

  var starting = false;
  var clientSettings = {};
  var customFunctions = {};

  function report(what, error) {
    if (window.console && window.console.error) window.console.error('janrain: ' + what, error || '');
  }

  /* A value of the page's query string (`?screenToRender=verifyEmail`), or null. */
  function queryValue(name) {
    var values = core.fragmentValues(String(window.location.search || '').replace(/^\?/, ''));
    return core.has(values, name) ? values[name] : null;
  }

  /* The page's own settings, as they are now; what a Janrain page leaves unset gets Janrain's default. */
  function pageSettings() {
    var settings = janrain.settings = janrain.settings || {};
    var capture = settings.capture = settings.capture || {};
    capture.flowName = capture.flowName || 'standard';
    capture.responseType = capture.responseType === 'code' ? 'code' : 'token';
    // A page that names its own address (location.href) means the page, not the query it was opened with.
    var here = window.location.origin + window.location.pathname;
    var named = String(capture.redirectUri || '');
    capture.redirectUri = !named || named.split(/[?#]/)[0] === here ? here : named;
    capture.screenToRender = capture.screenToRender || queryValue('screenToRender') || undefined;
    capture.locale = settings.language || capture.locale;
    // An OpenID Connect client's sign-in opened this page (docs/oidc.md): every sign-in call carries the sealed
    // request, and the reply sends the browser back to that client with a code.
    capture.oidcRequest = queryValue('oidc_request') || capture.oidcRequest;
    return settings;
  }

  /* The service's settings under the page's: the service decides where forms go and which providers exist. */
  function merge(settings, served) {
    var capture = settings.capture;
    var servedCapture = served.capture || {};
    for (var key in servedCapture) {
      if (!core.has(servedCapture, key)) continue;
      if (key === 'forms' || key === 'captureServer' || key === 'appId' || !core.has(capture, key)
          || capture[key] === undefined || capture[key] === '') {
        capture[key] = servedCapture[key];
      }
    }
    settings.providers = served.providers || [];
    settings.providerNames = served.providerNames || {};
    settings.bridge = settings.bridge || served.bridge || {};
  }

  function requestFlow(settings) {
    var capture = settings.capture;
    var url = core.server + '/flows/' + encodeURIComponent(capture.flowName) + '/widget.json?'
      + core.encodeForm({ client_id: capture.clientId, locale: capture.locale });
    var init = { method: 'GET', credentials: 'omit', headers: { 'Accept': 'application/json' } };
    var controller = typeof window.AbortController === 'function' ? new window.AbortController() : null;
    if (controller) {
      init.signal = controller.signal;
      window.setTimeout(function () { controller.abort(); }, REQUEST_TIMEOUT_MS);
    }
    return window.fetch(url, init).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok || !body || !body.flow) throw new Error((body && body.error_description) || response.status);
        return body;
      });
    });
  }

  /* capture.stylesheets, or on a phone-sized screen capture.mobileStylesheets when the page has them. */
  function injectStylesheets(capture) {
    var phone = window.matchMedia && window.matchMedia('(max-width: 640px)').matches;
    var list = (phone && capture.mobileStylesheets) || capture.stylesheets || [];
    if (typeof list === 'string') list = [list];
    for (var i = 0; i < list.length; i++) {
      var link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = String(list[i]);
      document.head.appendChild(link);
    }
  }

  function start() {
    if (starting) return;
    starting = true;
    var settings = pageSettings();
    core.fire('onCaptureRenderStart', { statusMessage: 'renderStart' });
    requestFlow(settings).then(function (served) {
      merge(settings, served.settings || {});
      clientSettings = served.clientSettings || {};
      core.addMessages(served.messages || {});
      injectStylesheets(settings.capture);
      var flow = served.flow;
      if (flow.fallbackFor) {
        // The page's own flow is not on this service (yet): the service's Janrain fallback serves its screens.
        report('the flow "' + flow.fallbackFor + '" is not on this service; its screens use "' + flow.name + '"');
        settings.capture.flowName = flow.name;
      }
      if (!settings.capture.screenToRender && flow.defaultScreen) settings.capture.defaultScreen = flow.defaultScreen;
      widget.flow.use(flow);
      widget.jtl.compileScreens(flow);
      widget.modal.setUp(settings, flow.sessionScreens || []);
      widget.host.start();
      // Janrain's "the screens are ready for renderScreen" (its modal's); pages wait for it before rendering.
      core.fire('onCaptureModalReady', { statusMessage: 'modalReady' });
    }, function (error) {
      starting = false;
      report('the flow "' + settings.capture.flowName + '" could not be loaded from ' + core.server, error);
    });
  }

  // ---------------------------------------------------------------- the return experience

  // Janrain's names: the cookie saying how the person last signed in here, and what the page shows them on return.
  var LAST_METHOD_COOKIE = 'janrainLastAuthMethod';
  var RETURN_DATA = 'janrainCaptureReturnExperienceData';

  function lastAuthMethod() {
    var match = /(?:^|;\s*)janrainLastAuthMethod=([^;]*)/.exec(document.cookie || '');
    return match ? decodeURIComponent(match[1]) : null;
  }

  function setLastAuthMethod(method) {
    var secure = window.location.protocol === 'https:' ? '; Secure' : '';
    document.cookie = LAST_METHOD_COOKIE + '=' + (method || '') + '; path=/; SameSite=Lax'
      + (method ? '; max-age=31536000' : '; max-age=0') + secure;
  }

  /* A sign-in remembered as Janrain's widget remembered it; "use another account" forgets it. */
  function rememberSignIn(result) {
    var user = result.userData || {};
    setLastAuthMethod(result.authProvider && result.authProvider !== 'capture' ? 'socialSignin' : 'traditionalSignin');
    core.storageSet(RETURN_DATA, JSON.stringify({ displayName: user.displayName, email: user.email,
      provider: result.authProvider }));
  }

  function returnData() {
    try { return JSON.parse(core.storageGet(RETURN_DATA) || 'null') || {}; } catch (error) { return {}; }
  }

  function forgetReturnExperience() {
    setLastAuthMethod(null);
    core.storageRemove(RETURN_DATA);
  }

  janrain.events.onCaptureLoginSuccess.addHandler(rememberSignIn);
  janrain.events.onCaptureRegistrationSuccess.addHandler(rememberSignIn);

  // ---------------------------------------------------------------- a mailed link (Janrain's email-link screens)

  // The code and address of the reset link that opened the page, held in memory for the new password's form.
  var linkedCode = null;
  // The link that opened the page, used once its screen is up (the first screen is up: rendered): a verification
  // link's code is spent, a reset link's checked.
  var pendingLink = null;
  var rendered = false;

  /*
   * A message's link on a customer's page (capture-screens.js takeLink; the client's verify_email_url or
   * password_recover_url, ClientPages): Janrain's verifyEmail spends its code as it renders; its
   * resetPasswordRequestCode checks its code as it renders and opens resetPassword, whose new password is sent with the
   * code. Returns the screen to show.
   */
  function openLink(values) {
    var link = { screen: values.screen, code: values.code || '', email: values.email || '' };
    pendingLink = link;
    // A link opened on a page already showing (its fragment changed): used once its screen is up.
    if (rendered) window.setTimeout(usePendingLink, 0);
    if (values.screen === 'verifyEmail') return 'verifyEmail';
    linkedCode = link;
    return widget.screens.screenExists('resetPasswordRequestCode') ? 'resetPasswordRequestCode' : 'resetPassword';
  }

  /* The code and address of the reset link that opened the page (null: none, or spent): the new password's form
   * sends them (capture-forms.js). */
  function heldLinkCode() {
    return linkedCode;
  }

  function forgetLinkedCode() {
    linkedCode = null;
  }

  /*
   * Sends a link's code to the page's own form `formName` (the verification code's, which spends it; the reset code's
   * check, which does not): `taken()` on success, else `failed(result)` and `screen` shows, saying why in its first
   * form (Janrain's verifyEmail offers resendVerificationForm there; resetPasswordRequestCode a new link).
   */
  function sendLinkCode(link, formName, taken, failed, screen) {
    var capture = core.captureSettings();
    var form = core.formSettings(formName);
    if (!form) return;
    core.post(form.endpoint, {
      verification_code: link.code, email: link.email, client_id: capture.clientId, locale: capture.locale,
      flow: capture.flowName
    }).then(function (reply) {
      if (reply.ok) {
        taken();
        return;
      }
      var result = core.errorFields(reply);
      result.screen = screen;
      failed(result);
      if (core.currentScreen() !== screen) widget.screens.renderScreen(screen);
      var first = document.getElementById(screen).querySelector('form');
      var fields = (reply.body && reply.body.invalid_fields) || {};
      var message = (fields.verification_code || [])[0] || (reply.body && reply.body.error_description);
      if (first && message) widget.screens.showFormMessage(first, message);
    }, function () {
      widget.screens.showNotice(core.t('widget.network'));
    });
  }

  function spendVerification(link) {
    sendLinkCode(link, 'useVerificationCodeForm', function () {
      core.fire('onCaptureEmailVerificationSuccess', { statusMessage: 'emailVerified', screen: 'verifyEmail' });
      widget.screens.renderScreen('verifyEmailSuccess');
    }, function (result) {
      core.fire('onCaptureEmailVerificationFailed', result);
    }, 'verifyEmail');
  }

  /* A reset link's code, checked without spending it: good, resetPassword asks for the new password. */
  function checkResetLink(link) {
    sendLinkCode(link, 'checkResetCodeForm', function () {
      if (widget.screens.screenExists('resetPassword')) widget.screens.renderScreen('resetPassword');
    }, function (result) {
      widget.dropin.forgetLinkedCode();
      core.fire('onCaptureForgotPasswordCodeFailed', result);
    }, widget.screens.screenExists('resetPasswordRequestCode') ? 'resetPasswordRequestCode' : 'resetPassword');
  }

  function usePendingLink() {
    var link = pendingLink;
    pendingLink = null;
    if (!link) return;
    if (link.screen === 'verifyEmail') spendVerification(link);
    else checkResetLink(link);
  }

  janrain.events.onCaptureRenderComplete.addHandler(function () {
    rendered = true;
    usePendingLink();
  });

  /* Janrain's resendLink: the verification mail again, for the address this screen is about. */
  function resendVerification() {
    var form = core.formSettings('resendVerificationForm');
    var email = widget.screens.carriedAddress();
    if (!form) return;
    if (!email) {
      widget.screens.renderScreen(widget.screens.screenExists('resendVerification') ? 'resendVerification'
        : widget.screens.initialScreenWithoutSession());
      return;
    }
    var params = core.commonParams('resendVerificationForm');
    params[core.fieldOf('resendVerificationForm', 'email') || 'emailAddress'] = email;
    core.post(form.endpoint, params).then(function (reply) {
      if (reply.ok) {
        core.fire('onCaptureEmailSent', { statusMessage: 'emailSent', form: 'resendVerificationForm' });
        if (widget.screens.screenExists('resendVerificationSuccess')) widget.screens.renderScreen('resendVerificationSuccess');
        else widget.screens.showNotice(core.t('widget.resendSent'));
        return;
      }
      core.fire('onCaptureEmailVerificationFailed', core.errorFields(reply));
      widget.screens.showNotice((reply.body && reply.body.error_description) || core.t('widget.network'));
    }, function () {
      widget.screens.showNotice(core.t('widget.network'));
    });
  }

  // ---------------------------------------------------------------- Janrain's API beyond the host's commands

  function profileValue(key) {
    var profile = core.storedProfile() || {};
    var values = { uuid: profile.uuid, displayName: profile.displayName, email: profile.email };
    return core.has(values, key) ? values[key] : undefined;
  }

  ui.start = start;
  // Janrain's modal (capture-modal.js); on an embedding page, opening one shows its screen in place.
  ui.modal = {
    open: function (screen) { return widget.modal.open(screen); },
    close: function () { return widget.modal.close(); }
  };
  ui.getReturnExperienceData = function (key) {
    var data = returnData();
    return key ? data[key] : data;
  };
  ui.getProfileCookieData = profileValue;
  ui.registerFunction = function (name, fn) {
    if (typeof fn === 'function') customFunctions[String(name)] = fn;
    return true;
  };
  ui.getClientSettings = function () { return clientSettings; };

  widget.dropin = {
    lastAuthMethod: lastAuthMethod,
    returnData: returnData,
    forgetReturnExperience: forgetReturnExperience,
    openLink: openLink,
    linkedCode: heldLinkCode,
    forgetLinkedCode: forgetLinkedCode,
    resendVerification: resendVerification,
    clientSettings: ui.getClientSettings
  };

  // ---------------------------------------------------------------- Janrain's load hooks

  janrain.engage = janrain.engage || {};
  janrain.engage.signin = janrain.engage.signin || {};

  function loaded() {
    janrain.engage.signin.status = 'loaded';
    var before = (janrain.settings && janrain.settings.capture && janrain.settings.capture.beforeJanrainCaptureWidgetOnLoad) || [];
    for (var i = 0; i < before.length; i++) {
      if (typeof before[i] === 'function') before[i]();
    }
    if (typeof window.janrainWidgetOnload === 'function') window.janrainWidgetOnload();
    if (typeof window.janrainCaptureWidgetOnLoad === 'function') window.janrainCaptureWidgetOnLoad();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', loaded);
  else loaded();
})(window, document);
