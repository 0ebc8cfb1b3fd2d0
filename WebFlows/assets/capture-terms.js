/*
 * capture-terms.js — the documents a client requires (terms of service, a privacy notice: service.json's
 * legalDocuments, docs/bridge-protocol.md "Terms and their versions"). The page's settings list them in its language
 * (janrain.settings.capture.legalDocuments: [{id, version, title, url}]).
 *
 * - Registration forms (registrationForm, socialRegistrationForm) get one required box per document in their
 *   [data-capture-documents] holder ("I accept the <title>", the title a link to the text); a form with a box left
 *   unticked is not sent, and the ticked ones go as accept_documents (`id:version`, space-separated). A registration the
 *   service still refuses for them (280 terms_not_accepted, no ticket) shows its documents on the boxes again.
 * - A sign-in of any kind (password, provider, passkey, second factor, reactivation) whose account has not accepted a
 *   document's current version is answered 280 with the documents and a terms_ticket: the termsAgreement screen
 *   (Janrain's name) asks for them, and /oauth/accept_terms with the ticket finishes that sign-in, whose reply then
 *   goes the way of any sign-in's (onCaptureTermsAccepted first). Events: onCaptureTermsAgreementRequired,
 *   onCaptureTermsAccepted (ours).
 *
 * The ticket is kept in this closure only: never stored, never in a URL.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // The service ends a terms ticket after 15 minutes (and at its first use, whatever the answer).
  var TICKET_LIFE_MS = 15 * 60 * 1000;

  // A sign-in waiting for its documents ({ticket, documents, social, started}).
  var waiting = null;
  // The documents registration asks for: the page's settings, updated by what the service names in a refusal.
  var required = null;

  // ---------------------------------------------------------------- documents

  /* [{id, version, title, url}] from the settings or a reply, anything else left out. */
  function documentsIn(list) {
    var documents = [];
    if (Object.prototype.toString.call(list) !== '[object Array]') return documents;
    for (var i = 0; i < list.length; i++) {
      var item = list[i];
      if (!item || typeof item.id !== 'string' || !/^[a-z0-9_-]+$/.test(item.id) || item.version === undefined
          || item.version === null) continue;
      documents.push({
        id: item.id, version: String(item.version), title: String(item.title || item.id),
        url: /^https?:\/\//i.test(String(item.url || '')) ? String(item.url) : ''
      });
    }
    return documents;
  }

  function reference(item) {
    return item.id + ':' + item.version;
  }

  function registrationDocuments() {
    if (!required) required = documentsIn(core.captureSettings().legalDocuments);
    return required;
  }

  /* The documents of a refusal replace those of the same id (a new version) and join the others. */
  function updateRequired(documents) {
    var list = registrationDocuments().slice();
    for (var i = 0; i < documents.length; i++) {
      var replaced = false;
      for (var j = 0; j < list.length; j++) {
        if (list[j].id === documents[i].id) {
          list[j] = documents[i];
          replaced = true;
        }
      }
      if (!replaced) list.push(documents[i]);
    }
    required = list;
  }

  /* What an event says of documents: id, version, title, url. */
  function described(documents) {
    var out = [];
    for (var i = 0; i < documents.length; i++) {
      out.push({ id: documents[i].id, version: documents[i].version, title: documents[i].title, url: documents[i].url });
    }
    return out;
  }

  // ---------------------------------------------------------------- the boxes

  /* `node` holds `template` with its %s as `piece` (an element). */
  function fillWith(node, template, piece) {
    var parts = template.split('%s');
    for (var i = 0; i < parts.length; i++) {
      if (i > 0) node.appendChild(piece);
      if (parts[i]) node.appendChild(document.createTextNode(parts[i]));
    }
  }

  /*
   * One box: "I accept the <a>title</a>" as its label, the version below, and a place for its message. The input has
   * no name (formFields leaves it out); its document is in data-capture-document.
   */
  function box(prefix, documentToAccept, checked) {
    var id = prefix + '_' + documentToAccept.id;
    var item = document.createElement('div');
    item.className = 'capture_form_item capture_document';
    item.setAttribute('data-capture-field', 'accept_documents');
    var line = document.createElement('div');
    line.className = 'capture_check';
    var input = document.createElement('input');
    input.type = 'checkbox';
    input.id = id;
    input.required = true;
    input.setAttribute('aria-required', 'true');
    input.setAttribute('aria-describedby', id + '_version ' + id + '_error');
    input.setAttribute('data-capture-document', reference(documentToAccept));
    input.checked = !!checked;
    var label = document.createElement('label');
    label.setAttribute('for', id);
    var title = document.createElement(documentToAccept.url ? 'a' : 'span');
    title.textContent = documentToAccept.title;
    // A title in another script than the sentence stays a unit of its own (dir="auto" isolates it).
    title.setAttribute('dir', 'auto');
    if (documentToAccept.url) {
      title.href = documentToAccept.url;
      title.target = '_blank';
      title.rel = 'noopener';
    }
    fillWith(label, t('widget.acceptDocument'), title);
    // The input fills a 44 px square (the tap target) over the box drawn beside it (capture.css).
    var square = document.createElement('span');
    square.className = 'capture_check_box';
    var mark = document.createElement('span');
    mark.className = 'capture_check_mark';
    mark.setAttribute('aria-hidden', 'true');
    square.appendChild(input);
    square.appendChild(mark);
    line.appendChild(square);
    line.appendChild(label);
    var version = document.createElement('p');
    version.className = 'capture_hint';
    version.id = id + '_version';
    var number = document.createElement('span');
    number.setAttribute('dir', 'ltr');
    number.textContent = documentToAccept.version;
    fillWith(version, t('widget.documentVersion'), number);
    var tip = document.createElement('p');
    tip.className = 'capture_tip_error';
    tip.id = id + '_error';
    tip.hidden = true;
    item.appendChild(line);
    item.appendChild(version);
    item.appendChild(tip);
    return item;
  }

  function boxesOf(root) {
    return root.querySelectorAll('input[type="checkbox"][data-capture-document]');
  }

  /* The references of the ticked boxes in `root`. */
  function ticked(root) {
    var references = [];
    var boxes = boxesOf(root);
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked) references.push(boxes[i].getAttribute('data-capture-document'));
    return references;
  }

  /*
   * `holder` shows a box per document (none: the holder hides). Drawn again only when the documents changed, so a
   * box ticked before the screen showed again stays ticked; `fresh` draws them unticked whatever.
   */
  function drawBoxes(holder, documents, prefix, fresh) {
    var key = '';
    for (var i = 0; i < documents.length; i++) key += (i ? ' ' : '') + reference(documents[i]);
    if (!fresh && holder.getAttribute('data-capture-documents') === key && holder.childNodes.length) return;
    var kept = fresh ? [] : ticked(holder);
    while (holder.firstChild) holder.removeChild(holder.firstChild);
    holder.setAttribute('data-capture-documents', key);
    for (var d = 0; d < documents.length; d++) {
      holder.appendChild(box(prefix, documents[d], kept.indexOf(reference(documents[d])) >= 0));
    }
    holder.hidden = documents.length === 0;
  }

  /* The form's own name, for the boxes' ids (capture_registrationForm_accept_terms). */
  function prefixOf(form) {
    var name = form.getAttribute('data-capture-form') || form.getAttribute('name') || 'form';
    return 'capture_' + name.replace(/[^A-Za-z0-9_-]/g, '') + '_accept';
  }

  /*
   * The boxes of `refused` (references; all unticked boxes when null) show `text` (the unticked ones'), and the
   * form's message lists them with the form's other invalid fields, the first one focused (capture-screens.js).
   * Returns the messages by document reference.
   */
  function markBoxes(form, refused, textFor) {
    var messages = [];
    var boxes = boxesOf(form);
    for (var i = 0; i < boxes.length; i++) {
      var ref = boxes[i].getAttribute('data-capture-document');
      if (refused ? refused.indexOf(ref) < 0 : boxes[i].checked) continue;
      var text = textFor(ref);
      var tip = document.getElementById(boxes[i].id + '_error');
      if (tip) {
        tip.textContent = text;
        tip.hidden = false;
      }
      boxes[i].setAttribute('aria-invalid', 'true');
      var item = core.closest(boxes[i], '.capture_form_item');
      if (item && item.className.indexOf('capture_error') < 0) item.className += ' capture_error';
      messages.push(text);
    }
    // No fields of its own: the summary and the focus for every field marked so far.
    if (messages.length) widget.screens.showFieldErrors(form, {});
    return messages;
  }

  function missingText() {
    return t('widget.acceptDocumentMissing');
  }

  // ---------------------------------------------------------------- registration forms (capture-forms.js)

  /*
   * Before a form is sent: null when every box of it is ticked (or it has none), else the invalid fields it shows
   * ({accept_documents: [messages]}), the form not to be sent.
   */
  function untickedDocuments(form) {
    if (!boxesOf(form).length) return null;
    var messages = markBoxes(form, null, missingText);
    return messages.length ? { accept_documents: messages } : null;
  }

  /* The submission carries the ticked documents (a form with boxes only). */
  function documentParams(form, params) {
    if (boxesOf(form).length) params.accept_documents = ticked(form).join(' ');
  }

  /*
   * A registration the service refused for its documents (280, `documents`): the boxes become the service's (a new
   * version since the page loaded) and show why. Returns the invalid fields shown, or null for a form without boxes.
   */
  function documentsRefused(form, listed) {
    var holder = form.querySelector('[data-capture-documents]');
    var documents = documentsIn(listed);
    if (!holder || !documents.length) return null;
    var before = ticked(holder);
    updateRequired(documents);
    drawBoxes(holder, registrationDocuments(), prefixOf(form));
    var refused = [];
    for (var i = 0; i < documents.length; i++) refused.push(reference(documents[i]));
    var messages = markBoxes(form, refused, function (ref) {
      // Ticked as the page had it, but the service has a newer version now.
      var id = ref.split(':')[0];
      for (var b = 0; b < before.length; b++) {
        if (before[b].split(':')[0] === id && before[b] !== ref) return t('widget.documentChanged');
      }
      return missingText();
    });
    return messages.length ? { accept_documents: messages } : null;
  }

  // ---------------------------------------------------------------- termsAgreement after a sign-in

  /*
   * A sign-in answered 280 with a terms_ticket (`body`; its onCaptureLoginFailed has fired): the termsAgreement screen,
   * the ticket in memory. `social`: the provider sign-in it finishes. Returns false when the page has no such screen
   * (the answer is then shown as any refusal).
   */
  function askTerms(body, social, transactionId) {
    var documents = documentsIn(body.documents);
    // The service's termsAgreement (a customer's Janrain page may have a screen of that name without this form).
    if (!body.terms_ticket || !documents.length || !widget.screens.screenExists('termsAgreement')
        || !document.querySelector('#termsAgreement form[data-capture-terms] [data-capture-documents]')) return false;
    waiting = { ticket: String(body.terms_ticket), documents: documents, social: social || null, started: Date.now() };
    core.fire('onCaptureTermsAgreementRequired', {
      statusMessage: 'termsAgreementRequired', documents: described(documents),
      authProvider: social ? social.provider : 'capture'
    }, transactionId);
    widget.screens.renderScreen('termsAgreement');
    return true;
  }

  /* termsAgreement without a sign-in waiting for it: renderScreen shows sign-in instead. */
  function waitsForTerms(name) {
    return name === 'termsAgreement' && !waiting;
  }

  /* A screen being shown: termsAgreement draws the waiting sign-in's boxes (any other screen drops it); registration
   * forms draw theirs. */
  function renderTerms(root) {
    if (root.id === 'termsAgreement') {
      var form = root.querySelector('form[data-capture-terms]');
      var holder = form && form.querySelector('[data-capture-documents]');
      if (holder) drawBoxes(holder, waiting.documents, prefixOf(form), true);
      return;
    }
    waiting = null;
    var holders = root.querySelectorAll('form[data-capture-form] [data-capture-documents]');
    for (var i = 0; i < holders.length; i++) {
      drawBoxes(holders[i], registrationDocuments(), prefixOf(core.closest(holders[i], 'form')));
    }
  }

  /* Back to the sign-in screen, with `notice` (a key) saying why when there is one. */
  function backToSignIn(step, notice) {
    waiting = null;
    if (step.social) widget.socialForms.endMerge();
    widget.screens.renderScreen(widget.screens.signInScreen());
    if (notice) widget.screens.showNotice(notice);
  }

  /* "Continue": every box ticked, then /oauth/accept_terms finishes the sign-in. */
  function submitTerms(form) {
    var step = waiting;
    if (!step || widget.sections.isBusy(form)) return;
    var screen = core.closest(form, '.capture_screen') || form;
    widget.screens.clearMessages(screen);
    widget.screens.hideNotice();
    var provider = step.social ? step.social.provider : 'capture';
    var transactionId = core.randomId();
    var messages = markBoxes(form, null, missingText);
    if (messages.length) {
      core.fire('onCaptureValidationFailed', {
        status: 'error', statusMessage: 'invalidFields', form: 'termsAgreementForm',
        invalidFields: { accept_documents: messages }
      }, transactionId);
      return;
    }
    if (Date.now() - step.started > TICKET_LIFE_MS) return backToSignIn(step, t('widget.termsExpired'));
    var accepted = ticked(form);
    var documents = [];
    for (var i = 0; i < step.documents.length; i++) {
      if (accepted.indexOf(reference(step.documents[i])) >= 0) documents.push(step.documents[i]);
    }
    var capture = core.captureSettings();
    core.fire('onCaptureLoginStart', { statusMessage: 'loginStart', form: 'termsAgreementForm', authProvider: provider },
      transactionId);
    widget.sections.setBusy(form, true);
    core.post('/oauth/accept_terms', {
      client_id: capture.clientId, flow: capture.flowName, locale: capture.locale, ticket: step.ticket,
      accept_documents: accepted.join(' ')
    }).then(function (reply) {
      widget.sections.setBusy(form, false);
      if (waiting !== step) return;  // the person left the screen meanwhile
      var body = reply.body || {};
      if (reply.ok) {
        waiting = null;
        core.fire('onCaptureTermsAccepted', {
          statusMessage: 'termsAccepted', form: 'termsAgreementForm', documents: described(documents),
          authProvider: provider
        }, transactionId);
        if (step.social) {
          widget.socialForms.endMerge();
          widget.forms.socialSignInSucceeded(body, transactionId, step.social);
        } else {
          widget.forms.signInSucceeded(body, transactionId);
        }
        return;
      }
      var result = core.errorFields(reply);
      result.form = 'termsAgreementForm';
      result.authProvider = provider;
      var again = documentsIn(body.documents);
      if (body.code === 280 && body.terms_ticket && again.length) {
        // Still not every document (a newer version meanwhile): the new ticket, the boxes as the service has them.
        core.fire('onCaptureLoginFailed', result, transactionId);
        step.ticket = String(body.terms_ticket);
        step.documents = again;
        step.started = Date.now();
        var holder = form.querySelector('[data-capture-documents]');
        if (holder) drawBoxes(holder, again, prefixOf(form), true);
        markBoxes(form, null, function () { return t('widget.documentChanged'); });
        return;
      }
      // The ticket is spent whatever the answer: the sign-in starts again. (A reactivation that got here and failed
      // says so first, capture-account.js.)
      var offered = widget.account.signInRefused(body, result, transactionId, {
        social: step.social, provider: step.social ? step.social.provider : ''
      });
      core.fire('onCaptureLoginFailed', result, transactionId);
      if (offered) {
        waiting = null;
        widget.screens.renderScreen('reactivateAccount');
        return;
      }
      backToSignIn(step, body.code === 200 && body.argument === 'ticket' ? t('widget.termsExpired')
        : widget.sections.failureText({ reply: reply },
          body.error_description || t('widget.httpError').replace('%d', String(reply.status))));
    }, function () {
      widget.sections.setBusy(form, false);
      widget.screens.showFormMessage(form, t('widget.network'));
      core.fire('onCaptureLoginFailed', {
        status: 'error', statusMessage: 'networkError', form: 'termsAgreementForm', authProvider: provider
      }, transactionId);
    });
  }

  // ---------------------------------------------------------------- clicks and submissions

  core.onClicks([
    // "Cancel": the sign-in does not go on (its ticket expires unused).
    ['[data-capture-terms-cancel]', function () {
      if (waiting) backToSignIn(waiting, null);
      else widget.screens.renderScreen(widget.screens.signInScreen());
    }]
  ]);

  // A box's message goes once it is ticked.
  document.addEventListener('change', function (event) {
    var input = event.target;
    if (!input || !input.getAttribute || !input.hasAttribute('data-capture-document') || !input.checked) return;
    var tip = document.getElementById(input.id + '_error');
    if (tip) {
      tip.textContent = '';
      tip.hidden = true;
    }
    input.removeAttribute('aria-invalid');
    var item = core.closest(input, '.capture_form_item');
    if (item) item.className = item.className.replace(/\s*\bcapture_error\b/g, '');
  });

  document.addEventListener('submit', function (event) {
    var form = core.closest(event.target, 'form[data-capture-terms]');
    if (!form) return;
    event.preventDefault();
    submitTerms(form);
  }, true);

  widget.terms = {
    untickedDocuments: untickedDocuments,
    documentParams: documentParams,
    documentsRefused: documentsRefused,
    askTerms: askTerms,
    waitsForTerms: waitsForTerms,
    renderTerms: renderTerms
  };
})(window, document);
