/*
 * capture-sections.js — what the profile's sections (passkeys, the authenticator app, sessions, the account's data)
 * and the steps that act on the signed-in account (the second factor, termsAgreement) share: a request whose failure
 * says why, the sentence for a failure, a dead session ended, a recent sign-in asked for, a button or form at work, a
 * section's note, and a service date as the page's language writes a day.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  /* A request whose failure is {reply} (the service said no) or {network: true}; resolves with the reply's body. */
  function send(path, params) {
    return core.post(path, params).then(function (reply) {
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
    if (!reply || !core.isTokenError(reply)) return false;
    var expired = reply.body && reply.body.code === 414;
    core.fire(expired ? 'onCaptureExpiredToken' : 'onCaptureInvalidToken',
      core.errorFields(reply, expired ? 'accessTokenExpired' : 'invalidAccessToken'));
    widget.forms.endSession(false);
    widget.screens.showNotice(t('widget.sessionEnded'));
    return true;
  }

  /* A change refused for want of a recent sign-in: `where` offers one (capture-account.js). True when it was that. */
  function signInFirst(failure, where) {
    return !!(failure && failure.reply && widget.account.askRecentSignIn(where, failure.reply.body));
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
    widget.screens.clearMessages(section);
    widget.screens.hideNotice();
  }

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

  widget.sections = {
    send: send,
    failureText: failureText,
    sessionGone: sessionGone,
    signInFirst: signInFirst,
    setBusy: setBusy,
    isBusy: isBusy,
    note: note,
    clearSection: clearSection,
    day: day
  };
})(window, document);
