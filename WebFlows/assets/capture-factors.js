/*
 * capture-factors.js — the second factor: the twoFactor screen after a password (or a provider) that an authenticator
 * app or a recovery code completes, and editProfile's authenticator-app section (set-up, its recovery codes shown
 * once, turning it off). Also draws editProfile's factor sections from /factors (the passkeys through
 * widget.passkeys); requests and the sections' messages go through widget.sections (capture-sections.js).
 *
 * The tickets (a sign-in's second_factor_ticket, a set-up's setup_ticket) are kept in this closure only: never
 * stored, never in a URL.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // The service ends a second-factor ticket after five wrong codes or five minutes.
  var MAX_WRONG_CODES = 5;
  var TICKET_LIFE_MS = 5 * 60 * 1000;

  // A sign-in waiting for its second factor ({ticket, social, started, wrong}).
  var waiting = null;
  // The authenticator app's set-up under way: the ticket /second_factor/confirm takes with the first code.
  var setupTicket = null;
  // Whether the signed-in user has the authenticator app on (null: not known yet), and recovery codes left.
  var app = { token: null, enabled: null, left: 0 };
  // The authenticator section's view while something is under way ('setup', 'codes'), else null: on or off.
  var appView = null;

  // ---------------------------------------------------------------- the second factor after a password

  /*
   * A sign-in answered 270: the twoFactor screen, the ticket in memory. `social`: the provider sign-in it finishes.
   * Returns false when the page has no twoFactor screen (the answer is then shown as any refusal).
   */
  function askSecondFactor(body, social) {
    if (!body.second_factor_ticket || !widget.screens.screenExists('twoFactor')) return false;
    waiting = { ticket: body.second_factor_ticket, social: social || null, started: Date.now(), wrong: 0 };
    widget.screens.renderScreen('twoFactor');
    return true;
  }

  /* twoFactor without a sign-in waiting for it: renderScreen shows sign-in instead. */
  function waitsForSecondFactor(name) {
    return name === 'twoFactor' && !waiting;
  }

  function submitSecondFactor(form) {
    var step = waiting;
    if (!step || widget.sections.isBusy(form)) return;
    var input = form.elements.code;
    var code = String(input.value || '').replace(/^\s+|\s+$/g, '');
    widget.screens.clearMessages(core.closest(form, '.capture_screen') || form);
    widget.screens.hideNotice();
    if (!code) {
      widget.screens.showFieldErrors(form, { code: [t('widget.secondFactorMissing')] });
      return;
    }
    var capture = core.captureSettings();
    var transactionId = core.randomId();
    var provider = step.social ? step.social.provider : undefined;
    core.fire('onCaptureLoginStart', { statusMessage: 'loginStart', form: 'twoFactorForm', authProvider: provider },
      transactionId);
    widget.sections.setBusy(form, true);
    core.post('/oauth/auth_native_second_factor', {
      client_id: capture.clientId, flow: capture.flowName, locale: capture.locale, ticket: step.ticket, code: code
    }).then(function (reply) {
      widget.sections.setBusy(form, false);
      if (waiting !== step) return;  // the person left the screen meanwhile
      var body = reply.body || {};
      if (reply.ok) {
        waiting = null;
        input.value = '';
        if (step.social) {
          widget.socialForms.endMerge();
          widget.forms.socialSignInSucceeded(body, transactionId, step.social);
        } else {
          widget.forms.signInSucceeded(body, transactionId);
        }
        return;
      }
      var result = core.errorFields(reply);
      result.form = 'twoFactorForm';
      result.authProvider = provider;
      core.fire('onCaptureLoginFailed', result, transactionId);
      if (body.code === 280 && widget.terms.askTerms(body, step.social, transactionId)) {
        // The right code, but documents to accept first: termsAgreement finishes this sign-in (capture-terms.js).
        input.value = '';
        return;
      }
      if (body.code !== 210) {
        widget.screens.showFormMessage(form, widget.sections.failureText({ reply: reply },
          body.error_description || t('widget.httpError').replace('%d', String(reply.status))));
        return;
      }
      step.wrong += 1;
      var late = Date.now() - step.started > TICKET_LIFE_MS;
      if (step.wrong >= MAX_WRONG_CODES || late) {
        // The ticket is spent: the password again, for a new one.
        waiting = null;
        input.value = '';
        widget.screens.renderScreen(widget.screens.signInScreen());
        widget.screens.showNotice(t(late ? 'widget.secondFactorExpired' : 'widget.secondFactorTooMany'));
        return;
      }
      widget.screens.showFieldErrors(form, { code: [t('widget.secondFactorWrong')] });
    }, function () {
      widget.sections.setBusy(form, false);
      widget.screens.showFormMessage(form, t('widget.network'));
      core.fire('onCaptureLoginFailed', {
        status: 'error', statusMessage: 'networkError', form: 'twoFactorForm', authProvider: provider
      }, transactionId);
    });
  }

  /*
   * "Use a recovery code" / "Use a code from your app" (`toRecovery` undefined: the other one): the field's label,
   * hint and keyboard follow; each [data-capture-swap] holds the text it shows for the other kind.
   */
  function switchCodeKind(element, toRecovery) {
    var screen = core.closest(element, '.capture_screen') || document;
    var form = screen.querySelector('form[data-capture-factor="twoFactor"]');
    if (!form) return;
    var recovery = toRecovery === undefined ? form.getAttribute('data-capture-code-kind') !== 'recovery' : toRecovery;
    var input = form.elements.code;
    input.value = '';
    if ((form.getAttribute('data-capture-code-kind') === 'recovery') === recovery) return;
    form.setAttribute('data-capture-code-kind', recovery ? 'recovery' : 'app');
    var swapped = screen.querySelectorAll('[data-capture-swap]');
    for (var i = 0; i < swapped.length; i++) {
      var other = swapped[i].getAttribute('data-capture-swap');
      swapped[i].setAttribute('data-capture-swap', swapped[i].textContent);
      swapped[i].textContent = other;
    }
    input.setAttribute('inputmode', recovery ? 'text' : 'numeric');
    input.setAttribute('autocomplete', recovery ? 'off' : 'one-time-code');
    if (toRecovery === undefined && input.focus) input.focus();
  }

  // ---------------------------------------------------------------- editProfile's factor sections

  /* A screen being shown: twoFactor keeps the sign-in waiting (any other drops it); factor sections drawn and asked. */
  function renderFactors(root) {
    if (root.id === 'twoFactor') switchCodeKind(root, false);
    else waiting = null;
    if (!root.querySelector('[data-capture-passkeys], [data-capture-totp]')) return;
    setupTicket = null;
    appView = null;
    if (app.token !== core.storedToken()) app = { token: core.storedToken(), enabled: null, left: 0 };
    widget.passkeys.showPasskeys();
    drawApp();
    loadFactors();
  }

  /* /factors: the passkeys and the authenticator app as the service has them now. */
  function loadFactors() {
    var token = core.storedToken();
    if (!token) return;
    core.post('/factors', { access_token: token }).then(function (reply) {
      if (!reply.ok || core.storedToken() !== token) return;  // a dead token: the next action says so
      var second = reply.body.second_factor || {};
      var passkeys = reply.body.passkeys || [];
      app = { token: token, enabled: !!second.enabled, left: Number(second.recovery_codes_left) || 0 };
      var profile = core.storedProfile();
      if (profile) {
        profile.passkeys = passkeys;
        core.saveProfile(profile);
      }
      widget.passkeys.showPasskeys(passkeys);
      drawApp();
    }, function () { /* shown as it was; the next action tells */ });
  }

  /* The authenticator section in its state: on, off, the set-up or the recovery codes (nothing until known). */
  function drawApp() {
    var sections = document.querySelectorAll('[data-capture-totp]');
    var view = appView || (app.enabled === null ? '' : app.enabled ? 'on' : 'off');
    for (var s = 0; s < sections.length; s++) {
      var states = sections[s].querySelectorAll('[data-capture-totp-state]');
      for (var v = 0; v < states.length; v++) states[v].hidden = states[v].getAttribute('data-capture-totp-state') !== view;
      var left = sections[s].querySelector('[data-capture-totp-left]');
      if (left) left.textContent = t('widget.totpCodesLeft').replace('%d', String(app.left));
      if (view !== 'on') {
        sections[s].querySelector('form[data-capture-factor="disableTotp"]').hidden = true;
        sections[s].querySelector('[data-capture-totp-off]').setAttribute('aria-expanded', 'false');
      }
      if (view) sections[s].setAttribute('data-capture-ready', '');
      else sections[s].removeAttribute('data-capture-ready');
    }
  }

  /* The section shows `view` ('setup', 'codes', or null: on or off); with `focus`, its first text takes focus. */
  function showApp(section, view, focus) {
    appView = view;
    drawApp();
    var shown = section.querySelector('[data-capture-totp-state="' + (view || (app.enabled ? 'on' : 'off')) + '"]');
    var target = shown && shown.querySelector('[tabindex="-1"]');
    if (focus && target && target.focus) target.focus();
  }

  function startSetup(button) {
    if (widget.sections.isBusy(button)) return;
    var section = core.closest(button, '[data-capture-totp]');
    widget.sections.clearSection(section);
    widget.sections.setBusy(button, true);
    widget.sections.send('/second_factor/setup', { access_token: core.storedToken() }).then(function (body) {
      widget.sections.setBusy(button, false);
      setupTicket = body.setup_ticket;
      section.querySelector('[data-capture-totp-secret]').textContent = String(body.secret || '');
      var link = section.querySelector('[data-capture-totp-link]');
      link.href = /^otpauth:\/\//i.test(String(body.otpauth_uri)) ? String(body.otpauth_uri) : '#';
      section.querySelector('form[data-capture-factor="confirmTotp"]').elements.code.value = '';
      showApp(section, 'setup', true);
    }, function (failure) {
      widget.sections.setBusy(button, false);
      if (widget.sections.sessionGone(failure) || widget.sections.signInFirst(failure, section)) return;
      widget.screens.showFormMessage(section, widget.sections.failureText(failure, t('widget.totpFailed')));
    });
  }

  /* A code typed into the section's forms: the spaces an app shows in it do not count. */
  function typedCode(form) {
    return String(form.elements.code.value || '').replace(/\s+/g, '');
  }

  function codeFailed(form, failure, text) {
    if (widget.sections.sessionGone(failure) || widget.sections.signInFirst(failure, form)) return;
    var body = (failure && failure.reply && failure.reply.body) || {};
    if (body.code === 210) widget.screens.showFieldErrors(form, { code: [text] });
    else widget.screens.showFormMessage(form, widget.sections.failureText(failure, t('widget.totpFailed')));
  }

  /* The first code from the app: the set-up is done, and the ten recovery codes show, this once. */
  function confirmSetup(form) {
    var section = core.closest(form, '[data-capture-totp]');
    var code = typedCode(form);
    if (widget.sections.isBusy(form) || !setupTicket) return;
    widget.sections.clearSection(section);
    if (!code) return widget.screens.showFieldErrors(form, { code: [t('widget.totpCodeMissing')] });
    widget.sections.setBusy(form, true);
    widget.sections.send('/second_factor/confirm', { access_token: core.storedToken(), setup_ticket: setupTicket, code: code })
      .then(function (body) {
        widget.sections.setBusy(form, false);
        setupTicket = null;
        form.elements.code.value = '';
        var codes = body.recovery_codes || [];
        var list = section.querySelector('[data-capture-totp-codes]');
        while (list.firstChild) list.removeChild(list.firstChild);
        for (var i = 0; i < codes.length; i++) {
          var item = document.createElement('li');
          item.textContent = String(codes[i]);
          list.appendChild(item);
        }
        app.enabled = true;
        app.left = codes.length;
        showApp(section, 'codes', true);
      }, function (failure) {
        widget.sections.setBusy(form, false);
        codeFailed(form, failure, t('widget.totpWrongCode'));
      });
  }

  /* "Done" after the recovery codes: they leave the page. */
  function codesSeen(button) {
    var section = core.closest(button, '[data-capture-totp]');
    var list = section.querySelector('[data-capture-totp-codes]');
    while (list.firstChild) list.removeChild(list.firstChild);
    showApp(section, null, true);
    widget.sections.note(section, t('widget.totpOn'), 'success');
    loadFactors();
  }

  function cancelSetup(button) {
    var section = core.closest(button, '[data-capture-totp]');
    setupTicket = null;
    widget.sections.clearSection(section);
    showApp(section, null, true);
  }

  /* "Turn off" asks for a code first (the disable form); "Keep it on" closes that form again. */
  function askToTurnOff(button, open) {
    var section = core.closest(button, '[data-capture-totp]');
    var form = section.querySelector('form[data-capture-factor="disableTotp"]');
    var opener = section.querySelector('[data-capture-totp-off]');
    widget.sections.clearSection(section);
    form.hidden = !open;
    form.elements.code.value = '';
    opener.setAttribute('aria-expanded', open ? 'true' : 'false');
    var target = open ? form.elements.code : opener;
    if (target && target.focus) target.focus();
  }

  function turnOff(form) {
    var section = core.closest(form, '[data-capture-totp]');
    var code = typedCode(form);
    if (widget.sections.isBusy(form)) return;
    widget.sections.clearSection(section);
    if (!code) return widget.screens.showFieldErrors(form, { code: [t('widget.secondFactorMissing')] });
    widget.sections.setBusy(form, true);
    widget.sections.send('/second_factor/disable', { access_token: core.storedToken(), code: code }).then(function () {
      widget.sections.setBusy(form, false);
      form.elements.code.value = '';
      app.enabled = false;
      app.left = 0;
      showApp(section, null, true);
      widget.sections.note(section, t('widget.totpOff'), 'success');
      loadFactors();
    }, function (failure) {
      widget.sections.setBusy(form, false);
      codeFailed(form, failure, t('widget.secondFactorWrong'));
    });
  }

  // ---------------------------------------------------------------- clicks and submissions

  var CLICKS = [
    ['[data-capture-code-switch]', function (button) { switchCodeKind(button); }],
    ['[data-capture-totp-setup]', startSetup],
    ['[data-capture-totp-cancel]', cancelSetup],
    ['[data-capture-totp-done]', codesSeen],
    ['[data-capture-totp-off]', function (button) { askToTurnOff(button, true); }],
    ['[data-capture-totp-keep]', function (button) { askToTurnOff(button, false); }]
  ];

  // The forms of these sections and of twoFactor (data-capture-factor): sent here, never by the browser.
  var FORMS = {
    twoFactor: submitSecondFactor, confirmTotp: confirmSetup, disableTotp: turnOff,
    addPasskey: function (form) { widget.passkeys.addPasskey(form); }
  };

  core.onClicks(CLICKS);

  document.addEventListener('submit', function (event) {
    var form = core.closest(event.target, 'form[data-capture-factor]');
    if (!form) return;
    event.preventDefault();
    var handle = FORMS[form.getAttribute('data-capture-factor')];
    if (handle) handle(form);
  }, true);

  widget.factors = {
    askSecondFactor: askSecondFactor,
    waitsForSecondFactor: waitsForSecondFactor,
    renderFactors: renderFactors,
    loadFactors: loadFactors
  };
})(window, document);
