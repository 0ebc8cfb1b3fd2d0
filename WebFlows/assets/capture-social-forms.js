/*
 * capture-social-forms.js — what a provider's one-time token leads to (capture-social.js brings it back): redeeming it
 * at /oauth/auth_native, the socialRegistration form when the provider's profile is not enough (310), and the merge
 * with an existing account (380), by its password or by the provider that account signs in with. Holds the social
 * sign-in that waits for one of those forms.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // Screens of a social sign-in in progress: without one they fall back to sign-in.
  var SOCIAL_SCREENS = { socialRegistration: true, mergeAccounts: true, traditionalAuthenticateMerge: true };

  // A social sign-in waiting for a form ({token, provider, purpose, verifier}: socialRegistration or the merge).
  var social = null;
  // The merge's account address, and the provider a 380 named for an account without a password (mergeAccounts
  // signs in with it), or ''.
  var mergeEmail = '';
  var mergeWith = '';

  /* True for a social screen while no social sign-in waits for it (renderScreen shows sign-in instead). */
  function waitsForSocial(screen) {
    return !!SOCIAL_SCREENS[screen] && !social;
  }

  /* The social sign-in a form on a social screen finishes, else null. */
  function socialFor(form) {
    var screen = core.closest(form, '.capture_screen');
    return social && screen && SOCIAL_SCREENS[screen.id] ? social : null;
  }

  /*
   * The waiting social sign-in as the first half of a merge through `via` (mergeAccounts' "Continue with <provider>"):
   * {token, provider, email, via, verifier}, or null when no social sign-in waits.
   */
  function mergeThrough(via) {
    if (!social) return null;
    return { token: social.token, provider: social.provider, email: mergeEmail, via: via, verifier: social.verifier };
  }

  // ---------------------------------------------------------------- the merge (a 380)

  /* A merge text with its placeholders filled in: %e the address, %p the provider to sign in with, %n the new one. */
  function mergeText(template, merge) {
    var values = mergeValues(merge);
    return template.replace(/%([epn])/g, function (all, key) { return values[key]; });
  }

  function mergeValues(merge) {
    return { e: merge.email || '', p: core.providerName(merge.via), n: core.providerName(merge.provider) };
  }

  /*
   * mergeAccounts shows the password merge ([data-capture-merge="password"]) or, when the 380 named a provider the
   * page knows (mergeWith), the sign-in with that provider ([data-capture-merge="provider"]): the lead from
   * widget.mergeProviderLead (the names in <strong>) and the [data-capture-merge-with] button.
   */
  function renderMerge(root) {
    if (widget.jtl && widget.jtl.fillTemplate(root, mergeTemplateValues(), mergeTemplateMarkup())) return;
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
    var site = (widget.dropin && widget.dropin.clientSettings().site_name) || document.title;
    return {
      current_emailAddress: mergeEmail, current_provider: provider ? core.providerName(provider) : '',
      current_provider_lowerCase: provider, existing_emailAddress: mergeEmail, existing_provider_emailAddress: mergeEmail,
      existing_provider: mergeWith ? core.providerName(mergeWith) : site, existing_provider_lowerCase: mergeWith || 'capture',
      existing_siteName: site, foundExistingAccountText: t('widget.mergeFound'), moreInfoText: t('widget.mergeMoreInfo'),
      moreInfoHoverText: t('widget.mergeMoreInfoHover'), connectLegacyRadioText: t('widget.mergeConnect'),
      createRadioText: t('widget.mergeCreate')
    };
  }

  /* The template's buttons: sign in to the existing account (its password, or the provider the 380 named), or not. */
  function mergeTemplateMarkup() {
    var connect = mergeWith
      ? '<button type="button" class="capture_btn capture_primary" data-capture-merge-with="'
        + widget.jtl.escapeHTML(mergeWith) + '">' + widget.jtl.escapeHTML(mergeText(t('widget.mergeProviderButton'),
          { email: mergeEmail, provider: social ? social.provider : '', via: mergeWith })) + '</button>'
      : '<button type="button" class="capture_btn capture_primary" data-capture-screen="traditionalAuthenticateMerge">'
        + widget.jtl.escapeHTML(t('widget.mergeConnectButton')) + '</button>';
    return {
      connect_button: connect, rendered_current_photo: '', rendered_existing_provider_photo: '',
      create_button: '<button type="button" class="capture_btn capture_secondary" data-capture-action="cancelSocial">'
        + widget.jtl.escapeHTML(t('widget.mergeCancel')) + '</button>'
    };
  }

  /* A social sign-in now waits for a form: socialRegistration, or mergeAccounts for the account at `email`. */
  function awaitForm(answer, email, via) {
    social = answer;
    mergeEmail = email || '';
    mergeWith = via || '';
    if (mergeEmail) widget.screens.carryAddress(mergeEmail);
  }

  /* Back on mergeAccounts with the first sign-in (after the provider step of a merge ended without a token). */
  function resumeMerge(merge) {
    awaitForm({ token: merge.token, provider: merge.provider, purpose: 'signIn', verifier: merge.verifier },
      merge.email, merge.via);
    widget.screens.renderScreen('mergeAccounts');
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
    var capture = core.captureSettings();
    var transactionId = core.randomId();
    var name = core.providerName(answer.provider);
    var merge = answer.merge || null;
    var params = core.commonParams(undefined);
    params.token = answer.token;
    params.code_verifier = answer.verifier;
    params.thin_registration = capture.thinRegistration === false ? 'false' : 'true';
    if (merge) {
      params.merge_token = merge.token;
      // Only a provider account that already signs in to the account finishes the merge: never a new account.
      params.thin_registration = 'false';
    }
    params.device_token = core.storageGet(core.STORAGE.device) || '';
    if (core.refreshSecret()) params.refresh_secret = core.refreshSecret();
    if (answer.purpose === 'reactivate') params.reactivate = 'true';
    widget.screens.showNotice(t('widget.socialWait').replace('%s', name), true);
    core.fire('onCaptureLoginStart', { statusMessage: 'loginStart', authProvider: answer.provider }, transactionId);
    return core.post('/oauth/auth_native', params).then(function (reply) {
      widget.screens.hideNotice();
      var body = reply.body || {};
      if (reply.ok) {
        endMerge();
        widget.forms.socialSignInSucceeded(body, transactionId, answer);
        return;
      }
      if (merge) {
        // Refused on merge_token (another account's, or too late), or this provider account has no account here
        // (310/380): nothing was linked, and the page cannot tell whether the first sign-in is still usable.
        var refused = core.errorFields(reply);
        refused.authProvider = answer.provider;
        core.fire('onCaptureLoginFailed', refused, transactionId);
        endMerge();
        widget.screens.renderScreen(widget.screens.signInScreen());
        widget.screens.showNotice(body.code === 510 ? t('widget.rateLimit') : mergeText(t('widget.mergeFailed'), merge));
        return;
      }
      if (body.code === 310) {
        social = answer;
        widget.screens.renderScreen('socialRegistration');
        var form = document.querySelector('#socialRegistration form[data-capture-form="socialRegistrationForm"]');
        var prefill = body.prereg_fields || {};
        for (var field in prefill) {
          if (!core.has(prefill, field)) continue;
          var input = form && form.elements[field];
          // A hidden field of a customer's flow keeps the flow's value, whatever the provider's profile says.
          if (widget.flow && widget.flow.flowValue(field) !== undefined) continue;
          if (input && 'value' in input && prefill[field] !== null) input.value = String(prefill[field]);
        }
        return;
      }
      if (body.code === 380) {
        // An account without a password: its 380 names a provider it signs in with ("capture": its password).
        var named = body.existing_provider;
        awaitForm(answer, body.existing_email, named && named !== 'capture' && core.knownProvider(named) ? String(named) : '');
        widget.screens.renderScreen('mergeAccounts');
        return;
      }
      var result = core.errorFields(reply);
      result.authProvider = answer.provider;
      // An account its owner deleted: reactivateAccount offers this provider again (capture-account.js).
      var offered = widget.account.signInRefused(body, result, transactionId,
        { provider: answer.provider, social: answer });
      core.fire('onCaptureLoginFailed', result, transactionId);
      if (offered) return widget.screens.renderScreen('reactivateAccount');
      if (body.code === 270 && widget.factors.askSecondFactor(body, answer)) return;
      // Documents to accept first (a first sign-in that made the account too): termsAgreement (capture-terms.js).
      if (body.code === 280 && widget.terms.askTerms(body, answer, transactionId)) return;
      if (body.code === 112) {
        // A client that requires a confirmed address, and the provider did not confirm this one: a code was mailed.
        widget.screens.carryAddress((body.capture_user && body.capture_user.email) || widget.screens.typedAddress());
        widget.screens.renderScreen('verifyEmail');
        return;
      }
      widget.screens.showNotice(body.code === 510 ? t('widget.rateLimit')
        : body.argument === 'token' ? t('widget.socialExpired').replace('%s', name)
        : body.error_description || t('widget.socialErrorOther').replace('%s', name));
    }, function () {
      // A merge waits on mergeAccounts again: the service never answered, so nothing was spent.
      if (merge) resumeMerge(merge);
      widget.screens.showNotice(t('widget.network'));
      core.fire('onCaptureLoginFailed', { status: 'error', statusMessage: 'networkError', authProvider: answer.provider }, transactionId);
    });
  }

  widget.socialForms = {
    waitsForSocial: waitsForSocial,
    socialFor: socialFor,
    mergeThrough: mergeThrough,
    socialProviderName: function () { return social ? core.providerName(social.provider) : ''; },
    mergeEmail: function () { return mergeEmail; },
    mergeText: mergeText,
    renderMerge: renderMerge,
    resumeMerge: resumeMerge,
    endMerge: endMerge,
    redeemSocial: redeemSocial
  };
})(window, document);
