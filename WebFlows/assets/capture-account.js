/*
 * capture-account.js — deleting the account, with a way back (docs/contract.md §18). editProfile's "Delete my
 * account" opens confirmAccountDeactivation (deactivateAccountForm: the password, or for an account without one a
 * recent sign-in); its success ends the page's session and shows accountDeactivated with the day of the erasure. A
 * sign-in the service refuses because the owner deleted the account (403 account_deactivated with reactivate_until)
 * shows reactivateAccount, which signs in the same way again (password, provider or passkey) with reactivate=true.
 *
 * The forms go through capture-forms.js (deactivateAccountForm, and reactivateAccount's signInForm), the passkey
 * through capture-passkeys.js and a provider's round trip through capture-social.js (purpose 'reactivate'); they call
 * the hooks this module exports. What it keeps is in this closure only, never stored.
 *
 * Also the one answer to a sensitive change the service refuses for want of a recent sign-in (SPEC §19, 403
 * recent_sign_in_required; from the forms, the passkeys, the authenticator app, linked providers and the deletion):
 * "sign in again to continue", whose action signs out and, once the same account has signed in again, comes back to
 * the screen it left (that screen's name alone is kept, in sessionStorage: a provider's sign-in leaves the page).
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // The deletion this page made ({eraseAt}, the service's date): accountDeactivated shows it; without one that screen
  // falls back to sign-in.
  var deleted = null;
  // A sign-in refused because its owner deleted the account ({until, via: 'password' | 'provider' | 'passkey',
  // provider, sent}): reactivateAccount offers it again. `sent` while that sign-in is under way, or waits on twoFactor.
  var waiting = null;
  // Whether the signed-in account has a password (/factors' `password`; null until it has answered), for its token.
  var standing = { token: null, password: null };

  // ---------------------------------------------------------------- texts

  /* `key` in the plural form `count` takes in the page's language (`key.one`, …) when there is one, else `key`. */
  function counted(key, count) {
    var category = '';
    try {
      category = new window.Intl.PluralRules(document.documentElement.lang || undefined).select(count);
    } catch (error) { /* no Intl: the general text */ }
    var text = t(key + '.' + category);
    return (category && text !== key + '.' + category ? text : t(key)).replace('%d', String(count));
  }

  /* `node` shows `template` with its %s as `value` in bold. */
  function fillWith(node, template, value) {
    while (node.firstChild) node.removeChild(node.firstChild);
    var pieces = template.split('%s');
    for (var i = 0; i < pieces.length; i++) {
      if (i > 0) {
        var strong = document.createElement('strong');
        strong.textContent = value;
        node.appendChild(strong);
      }
      if (pieces[i]) node.appendChild(document.createTextNode(pieces[i]));
    }
  }

  /* The days between a deletion and the erasure (janrain.settings.capture.accountDeletionGraceDays; 30 when unsaid). */
  function graceDays() {
    var days = Number(core.captureSettings().accountDeletionGraceDays);
    return isNaN(days) || days < 0 ? 30 : Math.ceil(days);
  }

  function clearSecrets(root) {
    var secrets = root.querySelectorAll('input[type="password"]');
    for (var i = 0; i < secrets.length; i++) secrets[i].value = '';
  }

  function userData(user) {
    user = user || {};
    return {
      uuid: user.uuid, email: user.email, displayName: user.displayName, givenName: user.givenName,
      familyName: user.familyName
    };
  }

  // ---------------------------------------------------------------- deleting the account

  /* confirmAccountDeactivation: what happens, and the password (or, for an account without one, why none is asked). */
  function drawConfirmation(root) {
    var grace = root.querySelector('[data-capture-account-grace]');
    var days = graceDays();
    if (grace) grace.textContent = days > 0 ? counted('widget.deleteGrace', days) : t('widget.deleteAtOnce');
    clearSecrets(root);
    var token = core.storedToken();
    if (standing.token !== token) standing = { token: token, password: null };
    showStanding(root);
    if (standing.password !== null || !token) return;
    core.post('/factors', { access_token: token }).then(function (reply) {
      if (standing.token !== token) return;
      // Not known (a dead token, say): the password is asked for, and the service has the last word.
      standing.password = reply.ok ? reply.body.password !== false : true;
      showStanding(root);
    }, function () {
      if (standing.token !== token) return;
      standing.password = true;
      showStanding(root);
    });
  }

  /* The password field and its explanation, or the other explanation; the form is ready once /factors has answered. */
  function showStanding(root) {
    var none = standing.password === false;
    var leads = root.querySelectorAll('[data-capture-deactivate]');
    for (var i = 0; i < leads.length; i++) {
      leads[i].hidden = (leads[i].getAttribute('data-capture-deactivate') === 'none') !== none;
    }
    var form = root.querySelector('form[data-capture-form="deactivateAccountForm"]');
    if (!form) return;
    var input = form.elements.currentPassword;
    var item = input && core.closest(input, '.capture_form_item');
    if (item) item.hidden = none;
    // A disabled field is not sent.
    if (input) input.disabled = none;
    if (standing.password === null) form.removeAttribute('data-capture-ready');
    else form.setAttribute('data-capture-ready', '');
  }

  /*
   * deactivateAccountForm went through (capture-forms.js): onCaptureAccountDeactivateSuccess (with eraseAt), then the
   * page's session ends as any (the service has ended every session of the account already) and accountDeactivated
   * shows. The address the page would greet goes too.
   */
  function accountDeactivated(form, body, transactionId) {
    var profile = core.storedProfile();
    clearSecrets(form);
    deleted = { eraseAt: String(body.erase_at || '') };
    standing = { token: null, password: null };
    core.fire('onCaptureAccountDeactivateSuccess', {
      statusMessage: 'accountDeactivated', form: 'deactivateAccountForm', eraseAt: deleted.eraseAt,
      userData: userData(profile)
    }, transactionId);
    core.storageRemove(core.STORAGE.lastEmail);
    widget.screens.carryAddress('');
    widget.forms.endSession(false, 'accountDeactivated');
  }

  /* accountDeactivated: the day of the erasure (or that it is erased already). */
  function drawDeleted(root) {
    var node = root.querySelector('[data-capture-account-erase]');
    var date = widget.sections.day(deleted.eraseAt);
    if (!node) return;
    if (graceDays() > 0 && date) fillWith(node, t('widget.deletedUntil'), date);
    else node.textContent = t('widget.deletedNow');
  }

  // ---------------------------------------------------------------- a change that needs a recent sign-in

  // The screen a sign-in again comes back to ({screen, uuid, at}), for half an hour at most.
  var RESUME_KEY = 'captureBridgeResumeScreen';
  var RESUME_MS = 30 * 60 * 1000;

  /*
   * `body`, the service's reply to a sensitive change, refused it because the session's sign-in is not recent (403
   * recent_sign_in_required): `where` (a form, or a section with a form's message; null: the page's notice) says
   * "sign in again to continue", with the action (signInAgain). Returns false, showing nothing, for any other reply.
   */
  function askRecentSignIn(where, body) {
    if (!body || body.error !== 'recent_sign_in_required') return false;
    var action = widget.screens.messageAction(t('widget.signInAgainAction'), 'data-capture-action', 'signInAgain');
    if (where && widget.screens.showFormMessage(where, t('widget.signInAgain'), null, action)) return true;
    widget.screens.showNotice(t('widget.signInAgain'));
    var notice = document.getElementById('capture_notice');
    if (notice) {
      notice.appendChild(action);
      // Above the screen: brought into sight, wherever on it the person was.
      if (notice.scrollIntoView) notice.scrollIntoView();
    }
    return true;
  }

  /*
   * The action: this screen is kept for the account, the page signs out (on the service too) and shows sign-in with
   * the account's address (not one typed into the refused form). Passwords typed on the page go.
   */
  function signInAgain() {
    var profile = core.storedProfile() || {};
    clearSecrets(document);
    try {
      window.sessionStorage.setItem(RESUME_KEY, JSON.stringify({
        screen: core.currentScreen(), uuid: String(profile.uuid || ''), at: Date.now()
      }));
    } catch (error) { /* no sessionStorage: the sign-in shows the usual screen */ }
    widget.screens.carryAddress(profile.email || '');
    widget.forms.endSession(true);
  }

  /*
   * A sign-in made a session for `user` (capture-forms.js, or the host's createCaptureSession): the screen signInAgain
   * left, when it was this account's and not long ago, else null. Read once.
   */
  function resumeScreen(user) {
    var kept = null;
    try {
      kept = JSON.parse(window.sessionStorage.getItem(RESUME_KEY) || 'null');
      window.sessionStorage.removeItem(RESUME_KEY);
    } catch (error) {
      return null;
    }
    if (!kept || typeof kept.screen !== 'string' || !(Date.now() - Number(kept.at) < RESUME_MS)) return null;
    if (kept.uuid && (!user || String(user.uuid) !== kept.uuid)) return null;
    return widget.screens.screenExists(kept.screen) ? kept.screen : null;
  }

  // ---------------------------------------------------------------- bringing it back

  /*
   * The service refused a sign-in (`body`; `result`: the onCaptureLoginFailed about to fire). A refused reactivation
   * fires onCaptureAccountReactivateFailed first (a 270 or 280 is not a refusal: twoFactor or termsAgreement
   * finishes it). A refusal that
   * offers one (the owner deleted the account and may still bring it back) is kept for reactivateAccount, with
   * `how` the sign-in went ({address, provider, passkey, social}), and its result says accountDeactivated. Returns true
   * when the caller, once its onCaptureLoginFailed has fired, is to show reactivateAccount.
   */
  function signInRefused(body, result, transactionId, how) {
    how = how || {};
    // 270 and 280 are no refusals: twoFactor and termsAgreement finish the sign-in.
    if (((waiting && waiting.sent) || (how.social && how.social.purpose === 'reactivate')) && body.code !== 270
        && body.code !== 280) {
      if (waiting) waiting.sent = false;
      core.fire('onCaptureAccountReactivateFailed', result, transactionId);
    }
    if (body.error !== 'account_deactivated' || !body.reactivate_until || !widget.screens.screenExists('reactivateAccount')) {
      return false;
    }
    var provider = how.provider && core.knownProvider(how.provider) ? String(how.provider) : '';
    waiting = {
      until: String(body.reactivate_until), via: provider ? 'provider' : how.passkey ? 'passkey' : 'password',
      provider: provider, sent: false
    };
    if (how.address) widget.screens.carryAddress(how.address);
    result.statusMessage = 'accountDeactivated';
    return true;
  }

  /* reactivateAccount: until when, and the way the refused sign-in went (its form, provider or passkey). */
  function drawReactivation(root) {
    var until = root.querySelector('[data-capture-reactivate-until]');
    if (until) fillWith(until, t('widget.reactivateUntil'), widget.sections.day(waiting.until));
    var ways = root.querySelectorAll('[data-capture-reactivate-via]');
    for (var i = 0; i < ways.length; i++) {
      ways[i].hidden = ways[i].getAttribute('data-capture-reactivate-via') !== waiting.via;
    }
    // The provider's button is one (data-capture-provider, capture-host.js) only while it has a provider to go to.
    var buttons = root.querySelectorAll('[data-capture-reactivate-provider]');
    var label = waiting.provider ? t('widget.reactivateWith').replace('%s', core.providerName(waiting.provider)) : '';
    for (var b = 0; b < buttons.length; b++) {
      if (waiting.provider) buttons[b].setAttribute('data-capture-provider', waiting.provider);
      else buttons[b].removeAttribute('data-capture-provider');
      buttons[b].textContent = label;
    }
    clearSecrets(root);
  }

  /* A sign-in from reactivateAccount (its form or passkey button: `element`) brings the account back (reactivate). */
  function reactivationParams(element, params) {
    var screen = core.closest(element, '.capture_screen');
    if (!waiting || !screen || screen.id !== 'reactivateAccount') return;
    params.reactivate = 'true';
    waiting.sent = true;
  }

  /*
   * A sign-in succeeded (capture-forms.js, before its own events): when it brought the account back (a reactivation
   * sent from here, or a provider's round trip for one: `social`), onCaptureAccountReactivateSuccess.
   */
  function reactivated(transactionId, social, user) {
    deleted = null;
    if (!(waiting && waiting.sent) && !(social && social.purpose === 'reactivate')) return;
    waiting = null;
    core.fire('onCaptureAccountReactivateSuccess', {
      statusMessage: 'accountReactivated', authProvider: social ? social.provider : 'capture', userData: userData(user)
    }, transactionId);
  }

  // ---------------------------------------------------------------- screens

  /* accountDeactivated without a deletion, reactivateAccount without a refused sign-in: renderScreen shows sign-in. */
  function waitsForAccount(name) {
    return (name === 'reactivateAccount' && !waiting) || (name === 'accountDeactivated' && !deleted);
  }

  /* A screen being shown: a refused sign-in waits on reactivateAccount (or on twoFactor or termsAgreement, once sent);
   * others drop it. */
  function renderAccount(root) {
    var finishing = (root.id === 'twoFactor' || root.id === 'termsAgreement') && waiting && waiting.sent;
    if (root.id !== 'reactivateAccount' && !finishing) waiting = null;
    if (root.id === 'confirmAccountDeactivation') drawConfirmation(root);
    else if (root.id === 'accountDeactivated') drawDeleted(root);
    else if (root.id === 'reactivateAccount') drawReactivation(root);
  }

  widget.account = {
    accountDeactivated: accountDeactivated,
    askRecentSignIn: askRecentSignIn,
    signInAgain: signInAgain,
    resumeScreen: resumeScreen,
    signInRefused: signInRefused,
    reactivationParams: reactivationParams,
    reactivated: reactivated,
    waitsForAccount: waitsForAccount,
    renderAccount: renderAccount
  };
})(window, document);
