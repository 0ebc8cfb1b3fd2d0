/*
 * capture-account-data.js — editProfile's "Your data" (docs/bridge-protocol.md, "Your data"): "Download my data"
 * (POST /account/export) hands the host the document as a file to share or save (onCaptureAccountDataReady:
 * fileName, mimeType, data) and offers it in the page as a link to a blob: URL, forgotten (the URL revoked) when a
 * new download replaces it or any screen shows; "Email it to me" (/account/export_mail) has the service mail it to the
 * account's own address (onCaptureAccountDataMailed). A failure fires onCaptureAccountDataFailed (action 'download'
 * or 'mail') and says why in the section. Requests and messages go through widget.sections (capture-sections.js).
 * The document is in memory only, never stored.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // Each showing of a screen counts: the section shows an answer only on the showing that asked for it.
  var shown = 0;
  // The blob: URL the page's link holds now (null: none).
  var fileURL = null;

  /* The page's link to the file (if any) goes, and its URL with it. */
  function forgetFile() {
    var links = document.querySelectorAll('[data-capture-account-data-file]');
    for (var i = 0; i < links.length; i++) {
      links[i].hidden = true;
      links[i].removeAttribute('href');
      links[i].removeAttribute('download');
    }
    if (fileURL && window.URL && window.URL.revokeObjectURL) window.URL.revokeObjectURL(fileURL);
    fileURL = null;
  }

  /* "Save the file" in `section`, where the page can make one (a web view without Blob URLs has the event only). */
  function offerFile(section, fileName, data) {
    var link = section.querySelector('[data-capture-account-data-file]');
    if (!link || !window.Blob || !window.URL || !window.URL.createObjectURL) return;
    fileURL = window.URL.createObjectURL(new window.Blob([data], { type: 'application/json' }));
    link.setAttribute('href', fileURL);
    link.setAttribute('download', fileName);
    link.hidden = false;
  }

  /* account-data-2026-11-28.json: the day the export was made (its exported_at, UTC), else today. */
  function fileNameFor(exported) {
    var day = /^\d{4}-\d{2}-\d{2}/.exec(String((exported && exported.exported_at) || ''));
    return 'account-data-' + (day ? day[0] : new Date().toISOString().slice(0, 10)) + '.json';
  }

  /* `text` in a sentence of any direction, read as a unit of its own (a file name or an address inside Arabic). */
  function isolated(text) {
    return '\u2068' + text + '\u2069';
  }

  /* The address the mail went to: the signed-in record's, as the page last had it. */
  function mailedText() {
    var profile = core.storedProfile();
    return profile && profile.email
      ? t('widget.accountDataMailedTo').replace('%s', isolated(String(profile.email))) : t('widget.accountDataMailed');
  }

  /* A screen being shown: whatever an earlier showing offered or asked for is over. */
  function renderAccountData() {
    shown += 1;
    forgetFile();
    var buttons = document.querySelectorAll('[data-capture-account-data-download], [data-capture-account-data-mail]');
    for (var i = 0; i < buttons.length; i++) widget.sections.setBusy(buttons[i], false);
  }

  /*
   * "Download my data" (`action` 'download') or "Email it to me" ('mail'). The outcome's event fires while the page
   * still holds the token that asked; the section shows it only if its screen has not been shown again since.
   */
  function ask(button, action) {
    if (widget.sections.isBusy(button)) return;
    var section = core.closest(button, '[data-capture-account-data]');
    var token = core.storedToken();
    var showing = shown;
    var params = { access_token: token };
    if (action === 'mail') params.locale = core.captureSettings().locale;
    widget.sections.clearSection(section);
    if (action === 'download') forgetFile();
    widget.sections.setBusy(button, true);
    widget.sections.send(action === 'download' ? '/account/export' : '/account/export_mail', params).then(function (body) {
      widget.sections.setBusy(button, false);
      if (core.storedToken() !== token) return;
      if (action === 'mail') {
        core.fire('onCaptureAccountDataMailed', { statusMessage: 'accountDataMailed' });
        if (showing === shown) widget.sections.note(section, mailedText(), 'success');
        return;
      }
      var fileName = fileNameFor(body.export);
      var data = JSON.stringify(body.export || {}, null, 2);
      core.fire('onCaptureAccountDataReady', {
        statusMessage: 'accountDataReady', fileName: fileName, mimeType: 'application/json', data: data
      });
      if (showing !== shown) return;
      offerFile(section, fileName, data);
      widget.sections.note(section, t('widget.accountDataReady').replace('%s', isolated(fileName)), 'success');
    }, function (failure) {
      widget.sections.setBusy(button, false);
      if (core.storedToken() !== token) return;
      var reply = failure && failure.reply;
      var result = reply ? core.errorFields(reply) : { status: 'error', statusMessage: 'networkError' };
      result.action = action;
      core.fire('onCaptureAccountDataFailed', result);
      if (widget.sections.sessionGone(failure) || showing !== shown) return;
      // 503: the service could not reach its data for a moment (its Retry-After is short).
      var unavailable = reply && reply.status === 503;
      widget.screens.showFormMessage(section, unavailable ? t('widget.accountDataUnavailable')
        : widget.sections.failureText(failure,
          action === 'download' ? t('widget.accountDataNotReady') : t('widget.accountDataNotMailed')));
    });
  }

  core.onClicks([
    ['[data-capture-account-data-download]', function (button) { ask(button, 'download'); }],
    ['[data-capture-account-data-mail]', function (button) { ask(button, 'mail'); }]
  ]);

  widget.accountData = {
    renderAccountData: renderAccountData
  };
})(window, document);
