/*
 * capture-forms.js — sending a form and what each outcome does; checking and ending the page's session.
 *
 * Where a form is posted, and which record attribute each field holds, the service says in
 * janrain.settings.capture.forms (docs/contract.md §2). The service validates every submission against the flow
 * definition the page was rendered from, so this script does no validation of its own.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  /*
   * What the widget does around each form (Janrain's behaviour; the call itself comes from the settings).
   * `kind`: which outcome handling applies. `token`: the form acts on the signed-in user (access_token is sent, a
   * dead token ends the session). `carriesAddress`: the address it is sent for goes along to the next screens.
   * `start`/`failed`: the events of its start and failure. `sent`/`done`: the events and the screen of a success.
   */
  var BEHAVIOUR = {
    signInForm: { kind: 'login', start: ['onCaptureLoginStart'], failed: ['onCaptureLoginFailed'] },
    // Janrain's older sign-in form (traditionalSignIn_emailAddress, traditionalSignIn_password).
    userInformationForm: { kind: 'login', start: ['onCaptureLoginStart'], failed: ['onCaptureLoginFailed'] },
    registrationForm: {
      kind: 'registration', start: ['onCaptureRegistrationStart'], failed: ['onCaptureRegistrationFailed']
    },
    editProfileForm: {
      kind: 'profile', token: true, start: [], failed: ['onCaptureProfileSaveFailed', 'onCaptureSaveFailed']
    },
    forgotPasswordForm: {
      kind: 'forgotPassword', carriesAddress: true, start: [], failed: ['onCaptureForgotPasswordCodeFailed'],
      sent: [['onCaptureEmailSent', 'emailSent'], ['onCaptureForgotPasswordCodeSuccess', 'forgotPasswordCodeSent']],
      done: 'forgotPasswordSuccess'
    },
    resetPasswordForm: {
      kind: 'resetPassword', carriesAddress: true, start: [], failed: ['onCaptureForgotPasswordCodeFailed'],
      sent: [], done: 'resetPasswordSuccess'
    },
    resendVerificationForm: {
      kind: 'resendVerification', carriesAddress: true, start: [], failed: ['onCaptureEmailVerificationFailed'],
      sent: [['onCaptureEmailSent', 'emailSent']], done: 'resendVerificationSuccess'
    },
    useVerificationCodeForm: {
      kind: 'verifyEmail', carriesAddress: true, start: [], failed: ['onCaptureEmailVerificationFailed'],
      sent: [['onCaptureEmailVerificationSuccess', 'emailVerified']], done: 'verifyEmailSuccess'
    },
    changePasswordForm: {
      kind: 'changePassword', token: true, start: [], failed: ['onCaptureProfileSaveFailed', 'onCaptureSaveFailed'],
      done: 'newPasswordSuccess'
    },
    // A first social sign-in the provider's profile was not enough for (310): the form, with the one-time token.
    socialRegistrationForm: {
      kind: 'registration', start: ['onCaptureRegistrationStart'], failed: ['onCaptureRegistrationFailed']
    },
    // The signed-in person deletes the account (capture-account.js: onCaptureAccountDeactivateSuccess, what follows).
    deactivateAccountForm: { kind: 'deactivate', token: true, start: [], failed: [] }
  };

  /*
   * A form's whole description: its behaviour, the call the settings name (`endpoint`, and `only` when the call takes
   * only those parameters), and `emailField`, the input with the address a code step is for (the field of the
   * record's email, else the code screens' own `email` input). Null for a form the page cannot send.
   */
  function formSpec(formName) {
    // A customer's page may hold a form the service knows under another name (capture-jtl.js's pageForm).
    var page = widget.flow ? widget.flow.pageForm(formName) : { form: formName, done: null };
    /*
     * Janrain's older newPasswordForm set the new password with the code of the mailed link that opened the page, and
     * elsewhere changed the signed-in person's. Both of its kinds are decided here, while the page holds such a code:
     * a built-in flow, which has no form of that name, sends the flow's form widget.json names (`linkForm`); a flow
     * that defines the form itself sends it as its settings say (`withLinkCode`: the role and the call, from
     * JanrainForm in Core).
     */
    var linked = widget.dropin ? widget.dropin.linkedCode() : null;
    if (linked && page.linkForm) page = { form: page.linkForm, done: null };
    var sent = core.formSettings(page.form);
    if (!sent) return null;
    var call = linked && sent.withLinkCode ? sent.withLinkCode : sent;
    // `as`: the service's form whose handling a flow's form gets (JanrainForm in Core: an imported flow's
    // changePasswordFormNoAuth is handled as resetPasswordForm, its resetPasswordForm as forgotPasswordForm).
    var role = call.as || page.form;
    var behaviour = core.has(BEHAVIOUR, role) ? BEHAVIOUR[role] : null;
    if (!behaviour) return null;
    var spec = { form: page.form, endpoint: call.endpoint, only: sent.parameters || null };
    for (var key in behaviour) if (core.has(behaviour, key)) spec[key] = behaviour[key];
    if (page.done) spec.done = page.done;
    if (behaviour.carriesAddress) spec.emailField = core.fieldOf(page.form, 'email') || 'email';
    return spec;
  }

  function formFields(form) {
    var values = {};
    var elements = form.elements;
    for (var i = 0; i < elements.length; i++) {
      var element = elements[i];
      if (!element.name || element.disabled) continue;
      var type = (element.type || '').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset') continue;
      if (type === 'radio' && !element.checked) continue;
      // An unticked box is a choice too (a consent withdrawn): it is sent as false, not left out.
      values[element.name] = type === 'checkbox' && !element.checked ? 'false' : element.value;
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
      var screen = core.closest(form, '.capture_screen') || document;
      var source = screen.querySelector('input[name="' + mirrors[m].getAttribute('data-capture-mirror').replace(/["\\]/g, '') + '"]');
      var targets = mirrors[m].querySelectorAll('input');
      for (var i = 0; i < targets.length; i++) if (source) targets[i].value = source.value;
    }
  }

  /* The parameters of a submission: the flow's context, the form's fields, and what its kind adds. */
  function formParams(spec, fields, social) {
    var formName = spec.form;
    var params = core.commonParams(formName);
    for (var key in fields) {
      if (core.has(fields, key)) params[key] = fields[key];
    }
    if (spec.only) {
      var allowed = {};
      for (var o = 0; o < spec.only.length; o++) allowed[spec.only[o]] = params[spec.only[o]];
      params = allowed;
    }
    if (spec.token) params.access_token = core.storedToken();
    if (spec.kind === 'login' || spec.kind === 'registration') {
      params.device_token = core.storageGet(core.STORAGE.device) || '';
      if (core.refreshSecret()) params.refresh_secret = core.refreshSecret();
    }
    // The social sign-in this form finishes: its token registers (socialRegistrationForm) or, after the password, merges.
    if (social && formName === 'signInForm') params.merge_token = social.token;
    else if (social) params.token = social.token;
    if (social) params.code_verifier = social.verifier;
    // The code of the link that opened a customer's page (capture-dropin.js): the new password's form sends it.
    var linked = spec.kind === 'resetPassword' && widget.dropin ? widget.dropin.linkedCode() : null;
    if (linked) {
      params.verification_code = linked.code;
      params.email = linked.email;
    }
    return params;
  }

  function submitForm(form) {
    var formName = form.getAttribute('data-capture-form');
    var spec = formSpec(formName);
    if (!spec || form.getAttribute('aria-busy') === 'true') return null;
    copyMirrored(form);
    var transactionId = core.randomId();
    var fields = widget.flow ? widget.flow.serviceFields(formName, formFields(form)) : formFields(form);
    if (spec.kind === 'profile' && widget.flow) fields = widget.flow.withRecordValues(formName, fields, spec.form);
    var social = widget.socialForms.socialFor(form);
    var params = formParams(spec, fields, social);
    // From reactivateAccount, the sign-in brings back the account its owner deleted (capture-account.js).
    if (spec.kind === 'login') widget.account.reactivationParams(form, params);
    if (spec.emailField && fields[spec.emailField]) widget.screens.carryAddress(fields[spec.emailField].replace(/^\s+|\s+$/g, ''));

    widget.screens.clearMessages(core.closest(form.parentNode, '.capture_screen') || form);
    widget.screens.hideNotice();
    // A customer's page checks the flow's rules first (capture-jtl.js), with the messages the service would send.
    var invalid = widget.flow ? widget.flow.checkFields(fields) : null;
    if (invalid) {
      var orphaned = widget.screens.showFieldErrors(form, invalid);
      if (orphaned.length) widget.screens.showFormMessage(form, orphaned.join(' '));
      core.fire('onCaptureValidationFailed', {
        status: 'error', statusMessage: 'invalidFields', form: formName, invalidFields: invalid
      }, transactionId);
      return null;
    }
    // The documents the client requires (capture-terms.js): a form with a box left unticked is not sent.
    var unticked = widget.terms.untickedDocuments(form);
    if (unticked) {
      core.fire('onCaptureValidationFailed', {
        status: 'error', statusMessage: 'invalidFields', form: formName, invalidFields: unticked
      }, transactionId);
      return null;
    }
    widget.terms.documentParams(form, params);
    for (var s = 0; s < spec.start.length; s++) {
      core.fire(spec.start[s], { statusMessage: spec.kind + 'Start', form: formName }, transactionId);
    }
    setBusy(form, true);

    return core.post(spec.endpoint, params).then(function (reply) {
      setBusy(form, false);
      if (reply.ok && spec.done) {
        codeStepSucceeded(form, formName, spec, reply.body, transactionId);
      } else if (reply.ok) {
        if (social) widget.socialForms.endMerge();
        succeeded(form, formName, spec, reply.body, transactionId, social);
      } else {
        failed(form, formName, spec, reply, transactionId);
      }
    }, function () {
      setBusy(form, false);
      widget.screens.showFormMessage(form, t('widget.network'));
      var lost = { status: 'error', statusMessage: 'networkError', form: formName };
      if (spec.kind === 'login') widget.account.signInRefused({}, lost, transactionId);
      for (var f = 0; f < spec.failed.length; f++) core.fire(spec.failed[f], lost, transactionId);
    });
  }

  function failed(form, formName, spec, reply, transactionId) {
    var body = reply.body || {};
    var result = core.errorFields(reply);
    result.form = formName;
    var address = spec.kind === 'login' ? widget.screens.addressIn(form) || widget.screens.typedAddress() : '';
    var offered = spec.kind === 'login' && widget.account.signInRefused(body, result, transactionId, { address: address });
    if (offered) {
      // The right password of an account its owner deleted, still within its grace period: reactivateAccount offers
      // to bring it back (capture-account.js).
      for (var d = 0; d < spec.failed.length; d++) core.fire(spec.failed[d], result, transactionId);
      clearPasswords(form);
      widget.screens.renderScreen('reactivateAccount');
      return;
    }
    if ((spec.kind === 'login' || spec.kind === 'registration') && body.code === 112) {
      // An address not yet confirmed, for a client that requires it (a sign-in with the right password, or the
      // account just made): the service just mailed a code for it.
      for (var v = 0; v < spec.failed.length; v++) core.fire(spec.failed[v], result, transactionId);
      widget.screens.carryAddress(widget.screens.addressIn(form) || widget.screens.typedAddress());
      widget.screens.renderScreen('verifyEmail');
      return;
    }
    if ((spec.kind === 'login' || spec.kind === 'registration') && body.code === 280 && body.terms_ticket) {
      // The right password, but documents the client requires that the account has not accepted in their current
      // version: termsAgreement asks for them, and finishes this sign-in (capture-terms.js). Its events first, as for
      // any refusal; a page without the screen shows the refusal's message.
      for (var a = 0; a < spec.failed.length; a++) core.fire(spec.failed[a], result, transactionId);
      clearPasswords(form);
      if (widget.terms.askTerms(body, widget.socialForms.socialFor(form), transactionId)) return;
      widget.screens.showFormMessage(form, body.error_description || t('widget.httpError').replace('%d', String(reply.status)));
      return;
    }
    if (spec.kind === 'login' && body.code === 270 && body.second_factor_ticket
        && widget.screens.screenExists('twoFactor')) {
      // The right password of an account with a second factor: its code next (twoFactor, capture-factors.js).
      for (var k = 0; k < spec.failed.length; k++) core.fire(spec.failed[k], result, transactionId);
      clearPasswords(form);
      widget.factors.askSecondFactor(body, widget.socialForms.socialFor(form));
      return;
    }
    if (spec.kind === 'resetPassword' && widget.dropin && widget.dropin.linkedCode() && body.invalid_fields
        && body.invalid_fields.verification_code && widget.screens.screenExists('resetPasswordRequestCode')) {
      // A customer's page: the link's code was not taken; Janrain's screen for that asks for a new one.
      widget.dropin.forgetLinkedCode();
      for (var c = 0; c < spec.failed.length; c++) core.fire(spec.failed[c], result, transactionId);
      widget.screens.renderScreen('resetPasswordRequestCode');
      return;
    }
    // A registration without every document the client requires: the boxes say which (capture-terms.js).
    var documents = spec.kind === 'registration' && body.code === 280
      ? widget.terms.documentsRefused(form, body.documents) : null;
    if (documents) {
      result.invalidFields = documents;
      core.fire('onCaptureValidationFailed', result, transactionId);
    } else if (body.invalid_fields) {
      var orphaned = widget.screens.showFieldErrors(form, body.invalid_fields);
      if (orphaned.length) widget.screens.showFormMessage(form, orphaned.join(' '));
      if (body.code === 380) {
        widget.screens.addFieldAction(form, core.fieldOf(formName, 'email') || 'emailAddress',
          widget.screens.actionLink(t('widget.inUseAction'), 'signIn'));
      }
      core.fire('onCaptureValidationFailed', result, transactionId);
    } else if (spec.token && widget.account.askRecentSignIn(form, body)) {
      // A change that needs a recent sign-in (the address, the password, deleting the account): the message offers
      // one, which comes back to this screen (capture-account.js).
    } else if (spec.kind === 'login' && (body.code === 510 || body.code === 210)) {
      // Locked out or the wrong password: resetting is the way forward, right in the message.
      widget.screens.showFormMessage(form, body.code === 510 ? t('widget.locked') : body.error_description || t('widget.invalidCredentials'),
        null, widget.screens.actionLink(t('widget.resetAction'), 'forgotPassword'));
    } else {
      widget.screens.showFormMessage(form, body.code === 510 ? t('widget.rateLimit') : body.error_description || body.error ||
        t('widget.httpError').replace('%d', String(reply.status)));
    }
    for (var f = 0; f < spec.failed.length; f++) core.fire(spec.failed[f], result, transactionId);
    if (spec.token && core.isTokenError(reply)) {
      // The session behind this form is gone: say so and end it rather than leave a dead form.
      core.fire(body.code === 414 ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
        core.errorFields(reply, body.code === 414 ? 'accessTokenExpired' : 'invalidAccessToken'), transactionId);
      endSession(false);
      widget.screens.showNotice(t('widget.sessionEnded'));
    }
  }

  function clearPasswords(form) {
    var secrets = form.querySelectorAll('input[type="password"]');
    for (var w = 0; w < secrets.length; w++) secrets[w].value = '';
  }

  /* `social` ({provider}) when the sign-in came through a provider: authProvider names it. */
  function succeeded(form, formName, spec, body, transactionId, social) {
    var user = body.capture_user || {};
    if (spec.kind === 'deactivate') return widget.account.accountDeactivated(form, body, transactionId);
    if (spec.kind === 'profile') {
      core.saveProfile(user);
      widget.screens.bindProfile(document.getElementById(core.currentScreen()) || document.body);
      widget.screens.showFormMessage(form, t('widget.profileSaved'), 'capture_form_success');
      core.fire('onCaptureProfileSaveSuccess', {
        statusMessage: 'profileSaved', form: formName, userData: user
      }, transactionId);
      core.fire('onCaptureSaveSuccess', { statusMessage: 'profileSaved', form: formName, userData: user }, transactionId);
      return;
    }
    if (body.device_token) core.storageSet(core.STORAGE.device, body.device_token);
    // An OpenID Connect client's sign-in: the browser goes back to the client with the code; the page keeps nothing.
    if (body.redirect_to) {
      window.location.assign(body.redirect_to);
      return;
    }
    // A sign-in that brought back a deleted account says so first (capture-account.js).
    widget.account.reactivated(transactionId, social, user);
    var code = body.authorization_code;
    var token = code ? undefined : body.access_token;
    var expiresIn = token ? (Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600) : undefined;
    // A sign-in again for a change the service refused goes back to the screen it left (capture-account.js).
    var resume = widget.account.resumeScreen(user);
    // Code mode: the only way this page can end the sign-in on the server (kept in memory, never stored).
    core.keepSignOutToken(code && body.sign_out_token ? body.sign_out_token : null);
    if (token) {
      core.saveSession(token, expiresIn, user);
      core.fire('onCaptureSessionCreated', {
        statusMessage: 'sessionCreated', accessToken: token, expiresIn: expiresIn, userData: user
      }, transactionId);
    } else if (user.email) {
      // response_type=code: the page keeps no session, only the address for the next visit.
      core.storageSet(core.STORAGE.lastEmail, user.email);
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
    if (spec.kind === 'registration' || (social && body.is_new)) core.fire('onCaptureRegistrationSuccess', success, transactionId);
    core.fire('onCaptureLoginSuccess', success, transactionId);
    if (token) {
      widget.screens.renderScreen(resume || nextScreen(formName, user) || widget.screens.sessionScreen());
    } else if (widget.screens.screenExists('signedIn')) {
      // No session in the page (response_type=code): the host finishes the sign-in.
      widget.screens.showSignedInWithoutSession('signedIn', user);
    }
  }

  /* A social sign-in redeemed at /oauth/auth_native: handled as a sign-in form's success. */
  function socialSignInSucceeded(body, transactionId, social) {
    succeeded(null, 'socialSignIn', BEHAVIOUR.signInForm, body, transactionId, social);
  }

  /* A sign-in finished without a form (a passkey, a second factor after the password): as a sign-in form's success. */
  function signInSucceeded(body, transactionId) {
    succeeded(null, 'signInForm', BEHAVIOUR.signInForm, body, transactionId, null);
  }

  /* A forgot/reset/resend/verify/change-password step went through: its events, then its success screen. */
  function codeStepSucceeded(form, formName, spec, body, transactionId) {
    var user = body.capture_user;
    if (spec.token && user) core.saveProfile(user);
    var fields = { form: formName };
    for (var s = 0; s < (spec.sent || []).length; s++) {
      fields.statusMessage = spec.sent[s][1];
      core.fire(spec.sent[s][0], fields, transactionId);
    }
    if (spec.kind === 'changePassword') {
      core.fire('onCaptureProfileSaveSuccess', { statusMessage: 'passwordChanged', form: formName, userData: user }, transactionId);
      core.fire('onCaptureSaveSuccess', { statusMessage: 'passwordChanged', form: formName, userData: user }, transactionId);
    }
    // Spent codes and passwords leave the form.
    var secrets = form.querySelectorAll('input[type="password"], input[name="verification_code"]');
    for (var i = 0; i < secrets.length; i++) secrets[i].value = '';
    if (spec.kind === 'resetPassword' && widget.dropin) widget.dropin.forgetLinkedCode();
    var own = sessionIsFor(widget.screens.typedAddress());
    if (spec.kind === 'resetPassword' && own) {
      // A reset ends every session of the account, this page's included.
      core.clearSession();
      core.fire('onCaptureSessionEnded', { statusMessage: 'sessionEnded' }, transactionId);
    }
    widget.screens.renderScreen(nextScreen(formName, user) || spec.done);
    if (spec.kind === 'verifyEmail' && own) refreshProfile();
  }

  /* On a customer's page, the screen its own flow names after the form (capture-dropin.js); else null. */
  function nextScreen(formName, record) {
    return widget.flow ? widget.flow.followNext(formName, record) : null;
  }

  /* True when the page holds a session of the account with this address. */
  function sessionIsFor(address) {
    var profile = core.storedToken() ? core.storedProfile() : null;
    return !!(profile && profile.email && address && profile.email.toLowerCase() === address.toLowerCase());
  }

  /* Re-reads the signed-in user's record (e.g. emailVerified after a code), quietly. */
  function refreshProfile() {
    var token = core.storedToken();
    return core.post('/entity', { access_token: token, client_id: core.captureSettings().clientId }).then(function (reply) {
      if (reply.ok && core.storedToken() === token && reply.body.result) core.saveProfile(reply.body.result);
    }, function () { /* the next start checks again */ });
  }

  // ---------------------------------------------------------------- sessions

  /*
   * Asks the service whether the token still works and fires what it finds.
   * Resolves true (session found), false (session ended) or null (service unreachable).
   */
  function verifySession(token, transactionId) {
    return core.post('/entity', { access_token: token, client_id: core.captureSettings().clientId }).then(function (reply) {
      if (core.storedToken() !== token) return false; // ended meanwhile
      if (reply.ok) {
        var user = (reply.body && reply.body.result) || {};
        core.saveProfile(user);
        // "Welcome back" greets whoever last held a session here, host-injected sessions included.
        if (user.email) core.storageSet(core.STORAGE.lastEmail, user.email);
        core.fire('onCaptureSessionFound', {
          statusMessage: 'profileFound', accessToken: token, userData: user
        }, transactionId);
        return true;
      }
      var expired = reply.body && reply.body.code === 414;
      core.fire(expired ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
        core.errorFields(reply, expired ? 'accessTokenExpired' : 'invalidAccessToken'), transactionId);
      endSession(false);
      widget.screens.showNotice(t('widget.sessionEnded'));
      return false;
    }, function () {
      // Unreachable: keep the stored session (a reload retries) but say so instead of hanging.
      widget.screens.showNotice(t('widget.network'));
      return null;
    });
  }

  /*
   * Ends the page's session and, with `revoke`, the sign-in's whole chain on the service: through the stored access
   * token (response_type=token) or the sign-out token (response_type=code, where the page holds no access token).
   * Returns true when there was something to revoke.
   */
  function endSession(revoke, nextScreen) {
    var token = core.storedToken();
    var signOutToken = core.takeSignOutToken();
    var handle = token || signOutToken;
    if (revoke && handle) {
      core.post('/oauth/revoke', {
        token: handle, token_type_hint: token ? 'access_token' : undefined, client_id: core.captureSettings().clientId
      }, { keepalive: true }).then(null, function () { /* best effort */ });
    }
    core.clearSession();
    core.fire('onCaptureSessionEnded', { statusMessage: 'sessionEnded' });
    widget.screens.renderScreen(nextScreen || widget.screens.initialScreenWithoutSession());
    return !!(revoke && handle);
  }

  widget.forms = {
    submitForm: submitForm,
    socialSignInSucceeded: socialSignInSucceeded,
    signInSucceeded: signInSucceeded,
    verifySession: verifySession,
    endSession: endSession
  };
})(window, document);
