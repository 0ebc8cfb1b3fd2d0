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
  var ns = janrain.capture._widget;
  var ui = janrain.capture.ui;
  var startWidget = ui.start;
  var REQUEST_TIMEOUT_MS = 20000;

  var starting = false;
  var clientSettings = {};
  var customFunctions = {};

  function report(what, error) {
    if (window.console && window.console.error) window.console.error('janrain: ' + what, error || '');
  }

  /* A value of the page's query string (`?screenToRender=verifyEmail`), or null. */
  function queryValue(name) {
    var values = ns.fragmentValues(String(window.location.search || '').replace(/^\?/, ''));
    return ns.has(values, name) ? values[name] : null;
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
    return settings;
  }

  /* The service's settings under the page's: the service decides where forms go and which providers exist. */
  function merge(settings, served) {
    var capture = settings.capture;
    var servedCapture = served.capture || {};
    for (var key in servedCapture) {
      if (!ns.has(servedCapture, key)) continue;
      if (key === 'forms' || key === 'captureServer' || key === 'appId' || !ns.has(capture, key)
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
    var url = ns.server + '/flows/' + encodeURIComponent(capture.flowName) + '/widget.json?'
      + ns.encodeForm({ client_id: capture.clientId, locale: capture.locale });
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
    ns.fire('onCaptureRenderStart', { statusMessage: 'renderStart' });
    requestFlow(settings).then(function (served) {
      merge(settings, served.settings || {});
      clientSettings = served.clientSettings || {};
      ns.addMessages(served.messages || {});
      injectStylesheets(settings.capture);
      var flow = served.flow;
      if (flow.fallbackFor) {
        // The page's own flow is not on this service (yet): the service's Janrain fallback serves its screens.
        report('the flow "' + flow.fallbackFor + '" is not on this service; its screens use "' + flow.name + '"');
        settings.capture.flowName = flow.name;
      }
      if (!settings.capture.screenToRender && flow.defaultScreen) settings.capture.defaultScreen = flow.defaultScreen;
      ns.compileScreens(flow);
      servedFlow = flow;
      ns.modal.setUp(settings, flow.sessionScreens || []);
      startWidget();
      // Janrain's "the screens are ready for renderScreen" (its modal's); pages wait for it before rendering.
      ns.fire('onCaptureModalReady', { statusMessage: 'modalReady' });
    }, function (error) {
      starting = false;
      report('the flow "' + settings.capture.flowName + '" could not be loaded from ' + ns.server, error);
    });
  }

  // ---------------------------------------------------------------- a form's next screen

  var servedFlow = null;

  /* `rule` (a form's `next`, checked at import: JanrainNextRule) followed against `record`: a screen name, or null. */
  function follow(rule, record) {
    if (!rule || typeof rule !== 'object') return null;
    if (rule['if']) {
      var value = record ? record[rule['if'].compare] : undefined;
      var same = (value === undefined ? null : value) === rule['if'].to;
      return follow((rule['if'].withOperator === '!=' ? !same : same) ? rule.then : rule['else'], record);
    }
    return rule.render ? rule.render.screen : null;
  }

  /* The screen the page's own flow names after `formName` went through, when the page has it; else null. */
  ns.followNext = function (formName, record) {
    var entry = servedFlow && ns.has(servedFlow.forms || {}, formName) ? servedFlow.forms[formName] : null;
    var screen = entry ? follow(entry.next, record) : null;
    return screen && ns.screenExists(screen) ? screen : null;
  };

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
    ns.storageSet(RETURN_DATA, JSON.stringify({ displayName: user.displayName, email: user.email,
      provider: result.authProvider }));
  }

  function returnData() {
    try { return JSON.parse(ns.storageGet(RETURN_DATA) || 'null') || {}; } catch (error) { return {}; }
  }

  ns.lastAuthMethod = lastAuthMethod;
  ns.returnData = returnData;
  ns.forgetReturnExperience = function () {
    setLastAuthMethod(null);
    ns.storageRemove(RETURN_DATA);
  };
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
  ns.openLink = function (values) {
    var link = { screen: values.screen, code: values.code || '', email: values.email || '' };
    pendingLink = link;
    // A link opened on a page already showing (its fragment changed): used once its screen is up.
    if (rendered) window.setTimeout(usePendingLink, 0);
    if (values.screen === 'verifyEmail') return 'verifyEmail';
    linkedCode = link;
    return ns.screenExists('resetPasswordRequestCode') ? 'resetPasswordRequestCode' : 'resetPassword';
  };
  ns.linkedCode = function () { return linkedCode; };
  ns.forgetLinkedCode = function () { linkedCode = null; };

  /*
   * Sends a link's code to the page's own form `formName` (the verification code's, which spends it; the reset code's
   * check, which does not): `taken()` on success, else `failed(result)` and `screen` shows, saying why in its first
   * form (Janrain's verifyEmail offers resendVerificationForm there; resetPasswordRequestCode a new link).
   */
  function sendLinkCode(link, formName, taken, failed, screen) {
    var capture = ns.captureSettings();
    var form = ns.formSettings(formName);
    if (!form) return;
    ns.post(form.endpoint, {
      verification_code: link.code, email: link.email, client_id: capture.clientId, locale: capture.locale,
      flow: capture.flowName
    }).then(function (reply) {
      if (reply.ok) {
        taken();
        return;
      }
      var result = ns.errorFields(reply);
      result.screen = screen;
      failed(result);
      if (ns.currentScreen() !== screen) ns.renderScreen(screen);
      var first = document.getElementById(screen).querySelector('form');
      var fields = (reply.body && reply.body.invalid_fields) || {};
      var message = (fields.verification_code || [])[0] || (reply.body && reply.body.error_description);
      if (first && message) ns.showFormMessage(first, message);
    }, function () {
      ns.showNotice(ns.t('widget.network'));
    });
  }

  function spendVerification(link) {
    sendLinkCode(link, 'useVerificationCodeForm', function () {
      ns.fire('onCaptureEmailVerificationSuccess', { statusMessage: 'emailVerified', screen: 'verifyEmail' });
      ns.renderScreen('verifyEmailSuccess');
    }, function (result) {
      ns.fire('onCaptureEmailVerificationFailed', result);
    }, 'verifyEmail');
  }

  /* A reset link's code, checked without spending it: good, resetPassword asks for the new password. */
  function checkResetLink(link) {
    sendLinkCode(link, 'checkResetCodeForm', function () {
      if (ns.screenExists('resetPassword')) ns.renderScreen('resetPassword');
    }, function (result) {
      ns.forgetLinkedCode();
      ns.fire('onCaptureForgotPasswordCodeFailed', result);
    }, ns.screenExists('resetPasswordRequestCode') ? 'resetPasswordRequestCode' : 'resetPassword');
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
  ns.resendVerification = function () {
    var form = ns.formSettings('resendVerificationForm');
    var email = ns.carriedAddress();
    if (!form) return;
    if (!email) {
      ns.renderScreen(ns.screenExists('resendVerification') ? 'resendVerification' : ns.initialScreenWithoutSession());
      return;
    }
    var params = ns.commonParams('resendVerificationForm');
    params[ns.fieldOf('resendVerificationForm', 'email') || 'emailAddress'] = email;
    ns.post(form.endpoint, params).then(function (reply) {
      if (reply.ok) {
        ns.fire('onCaptureEmailSent', { statusMessage: 'emailSent', form: 'resendVerificationForm' });
        if (ns.screenExists('resendVerificationSuccess')) ns.renderScreen('resendVerificationSuccess');
        else ns.showNotice(ns.t('widget.resendSent'));
        return;
      }
      ns.fire('onCaptureEmailVerificationFailed', ns.errorFields(reply));
      ns.showNotice((reply.body && reply.body.error_description) || ns.t('widget.network'));
    }, function () {
      ns.showNotice(ns.t('widget.network'));
    });
  };

  // ---------------------------------------------------------------- Janrain's API beyond the host's commands

  function profileValue(key) {
    var profile = ns.storedProfile() || {};
    var values = { uuid: profile.uuid, displayName: profile.displayName, email: profile.email };
    return ns.has(values, key) ? values[key] : undefined;
  }

  ui.start = start;
  // Janrain's modal (capture-modal.js); on an embedding page, opening one shows its screen in place.
  ui.modal = {
    open: function (screen) { return ns.modal.open(screen); },
    close: function () { return ns.modal.close(); }
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
  ns.clientSettings = ui.getClientSettings;
  ns.customFunction = function (name) { return ns.has(customFunctions, name) ? customFunctions[name] : null; };

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
