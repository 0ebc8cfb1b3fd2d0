/*
 * capture-linked.js — the provider accounts linked to the signed-in user (editProfile's linked-accounts section):
 * the list, linking one after a provider step, unlinking one.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  /*
   * The linked-accounts section of `root`: the record's `profiles` (from /entity) with an Unlink button each, and
   * the Link buttons. Shown when the service has providers or the record has links.
   */
  function renderLinkedAccounts(root) {
    var sections = root.querySelectorAll('[data-capture-linked]');
    if (!sections.length) return;
    var profile = core.storedProfile() || {};
    var linked = Object.prototype.toString.call(profile.profiles) === '[object Array]' ? profile.profiles : [];
    var providers = window.janrain.settings.providers || [];
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
    var name = core.providerName(account.domain);
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
    if (user) core.saveProfile(user);
    renderLinkedAccounts(document);
    widget.screens.showNotice(text, gentle);
  }

  /* The provider account of a provider step, added to the signed-in user (/oauth/link_account_native). */
  function linkSocial(answer) {
    var name = core.providerName(answer.provider);
    var transactionId = core.randomId();
    var params = core.commonParams(undefined);
    params.token = answer.token;
    params.code_verifier = answer.verifier;
    params.access_token = core.storedToken();
    widget.screens.showNotice(t('widget.linkWait').replace('%s', name), true);
    return core.post('/oauth/link_account_native', params).then(function (reply) {
      var body = reply.body || {};
      if (reply.ok) {
        linkedAccountsChanged(body.capture_user, t('widget.linked').replace('%s', name), true);
        core.fire('onCaptureLinkAccountSuccess', {
          statusMessage: 'accountLinked', provider: answer.provider, userData: body.capture_user
        }, transactionId);
        return;
      }
      var result = core.errorFields(reply);
      result.provider = answer.provider;
      core.fire('onCaptureLinkAccountError', result, transactionId);
      // Linking needs a recent sign-in: after one, this screen again, to link anew (capture-account.js).
      if (widget.account.askRecentSignIn(null, body)) return;
      var refusal = body.code !== 403 ? t('widget.linkFailed')
        : widget.screens.addressUnproven(core.storedProfile()) ? t('widget.linkUnproven') : t('widget.linkTaken');
      linkedAccountsChanged(null, refusal.replace('%s', name), false);
    }, function () {
      widget.screens.showNotice(t('widget.network'));
      core.fire('onCaptureLinkAccountError', { status: 'error', statusMessage: 'networkError', provider: answer.provider }, transactionId);
    });
  }

  /* An Unlink button: /oauth/unlink_account_native with the account's identifier. */
  function unlinkAccount(button) {
    var identifier = button.getAttribute('data-capture-unlink');
    var name = button.getAttribute('data-capture-provider-name') || '';
    var capture = core.captureSettings();
    var transactionId = core.randomId();
    button.disabled = true;
    return core.post('/oauth/unlink_account_native', {
      client_id: capture.clientId, flow: capture.flowName, flow_version: capture.flowVersion, locale: capture.locale,
      redirect_uri: capture.redirectUri, identifier_to_remove: identifier, access_token: core.storedToken()
    }).then(function (reply) {
      var body = reply.body || {};
      button.disabled = false;
      if (reply.ok) {
        linkedAccountsChanged(body.capture_user, t('widget.unlinked').replace('%s', name), true);
        core.fire('onCaptureUnlinkAccountSuccess', {
          statusMessage: 'accountUnlinked', identifier: identifier, userData: body.capture_user
        }, transactionId);
        return;
      }
      var result = core.errorFields(reply);
      result.identifier = identifier;
      core.fire('onCaptureUnlinkAccountError', result, transactionId);
      if (widget.account.askRecentSignIn(null, body)) return;
      widget.screens.showNotice(body.code === 403 ? t('widget.unlinkLast') : t('widget.unlinkFailed').replace('%s', name));
    }, function () {
      button.disabled = false;
      widget.screens.showNotice(t('widget.network'));
      core.fire('onCaptureUnlinkAccountError', { status: 'error', statusMessage: 'networkError', identifier: identifier }, transactionId);
    });
  }

  widget.linked = {
    renderLinkedAccounts: renderLinkedAccounts,
    linkSocial: linkSocial,
    unlinkAccount: unlinkAccount
  };
})(window, document);
