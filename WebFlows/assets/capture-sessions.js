/*
 * capture-sessions.js — editProfile's "Your sessions" (docs/bridge-protocol.md, "Your sessions"): where the account
 * is signed in (POST /sessions: this sign-in first, with "This device"), "Sign out" for each other one
 * (/sessions/end) and "Sign out everywhere else" (/sessions/end_others). A success fires onCaptureSessionsEnded
 * (scope 'one' or 'others'), a failure onCaptureSessionsEndFailed. This page's own sign-in is not offered here: the
 * screen's "Sign out" ends it. Requests and the section's messages go through widget.sections (capture-sections.js).
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // Each load of the list counts; an answer is drawn only while it is the last one asked for with the page's token.
  var asked = 0;

  function sections() {
    return document.querySelectorAll('[data-capture-sessions]');
  }

  /* "Demo app on iPhone · Safari", or "… on an unknown device": what the buttons and messages call a session. */
  function sessionName(session) {
    var client = String(session.client_name || session.client_id || '');
    if (!session.device) return t('widget.sessionsOnUnknown').replace('%s', client);
    return t('widget.sessionsOn').replace('%s', client).replace('%p', String(session.device));
  }

  function line(text, className) {
    var node = document.createElement('span');
    node.className = className || 'capture_factor_meta';
    node.textContent = text;
    return node;
  }

  function sessionItem(session) {
    var item = document.createElement('li');
    item.className = 'capture_linked_item';
    var text = document.createElement('span');
    text.className = 'capture_linked_text';
    var title = document.createElement('strong');
    title.textContent = String(session.client_name || session.client_id || '');
    text.appendChild(title);
    if (session.current) text.appendChild(line(t('widget.sessionsThisDevice'), 'capture_session_here'));
    text.appendChild(line(session.device ? String(session.device) : t('widget.sessionsUnknownDevice')));
    text.appendChild(line(t('widget.sessionsCreated').replace('%s', widget.sections.day(session.created))));
    text.appendChild(line(t('widget.sessionsLastUsed').replace('%s', widget.sections.day(session.last_used))));
    item.appendChild(text);
    if (!session.current) {
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'capture_btn capture_secondary';
      button.setAttribute('data-capture-session-end', String(session.id || ''));
      button.setAttribute('data-capture-session-name', sessionName(session));
      button.setAttribute('aria-label', t('widget.sessionsEndNamed').replace('%s', sessionName(session)));
      button.textContent = t('widget.sessionsEnd');
      item.appendChild(button);
    }
    return item;
  }

  /* Every sessions section shows `list` (null: loading); ready once it shows a list or why it has none. */
  function draw(list) {
    var all = sections();
    for (var i = 0; i < all.length; i++) {
      var section = all[i];
      var holder = section.querySelector('[data-capture-session-list]');
      while (holder.firstChild) holder.removeChild(holder.firstChild);
      var others = 0;
      for (var k = 0; list && k < list.length; k++) {
        holder.appendChild(sessionItem(list[k]));
        if (!list[k].current) others += 1;
      }
      holder.hidden = !list || list.length === 0;
      section.querySelector('[data-capture-sessions-loading]').hidden = !!list;
      section.querySelector('[data-capture-sessions-none]').hidden = !list || others > 0;
      section.querySelector('[data-capture-sessions-end-others]').hidden = others === 0;
      if (list) section.setAttribute('data-capture-ready', ''); else section.removeAttribute('data-capture-ready');
    }
  }

  /* The list could not be had: the section says so, with "Try again", and is ready (never left loading). */
  function notLoaded(failure) {
    var all = sections();
    for (var i = 0; i < all.length; i++) {
      widget.screens.showFormMessage(all[i], widget.sections.failureText(failure, t('widget.sessionsNotLoaded')), null,
        widget.screens.messageAction(t('widget.sessionsRetry'), 'data-capture-sessions-retry'));
      all[i].querySelector('[data-capture-sessions-loading]').hidden = true;
      all[i].setAttribute('data-capture-ready', '');
    }
  }

  /*
   * /sessions for the page's token, drawn when it answers. A dead token ends the page's session only when the person
   * asked (`byPerson`: "Try again", after a sign-out); on the screen's own load the next action says so, as for
   * /factors.
   */
  function load(byPerson) {
    var token = core.storedToken();
    var mine = ++asked;
    if (!token) return notLoaded(null);
    widget.sections.send('/sessions', { access_token: token }).then(function (body) {
      if (mine === asked && core.storedToken() === token) draw(body.sessions || []);
    }, function (failure) {
      if (mine !== asked || core.storedToken() !== token) return;
      if (!(byPerson && widget.sections.sessionGone(failure))) notLoaded(failure);
    });
  }

  /* A screen being shown: its sessions section (if it has one) starts loading. */
  function renderSessions(root) {
    if (!root.querySelector('[data-capture-sessions]')) return;
    draw(null);
    load(false);
  }

  function retry(button) {
    var section = core.closest(button, '[data-capture-sessions]');
    widget.sections.clearSection(section);
    draw(null);
    load(true);
  }

  /* "Sign out" (`scope` 'one', the button names the session) or "Sign out everywhere else" ('others'). */
  function end(button, scope) {
    if (widget.sections.isBusy(button)) return;
    var section = core.closest(button, '[data-capture-sessions]');
    var id = button.getAttribute('data-capture-session-end');
    var name = button.getAttribute('data-capture-session-name') || '';
    var params = { access_token: core.storedToken() };
    if (scope === 'one') params.session = id;
    widget.sections.clearSection(section);
    widget.sections.setBusy(button, true);
    widget.sections.send(scope === 'one' ? '/sessions/end' : '/sessions/end_others', params).then(function (body) {
      widget.sections.setBusy(button, false);
      core.fire('onCaptureSessionsEnded', {
        statusMessage: 'sessionsEnded', revoked: Number(body.revoked) || 0, scope: scope
      });
      widget.sections.note(section, scope === 'one'
        ? t('widget.sessionsEnded').replace('%s', name) : t('widget.sessionsEndedOthers'), 'success');
      // The button is gone once the list is drawn again: the section's heading keeps the place.
      var heading = section.querySelector('h2');
      if (heading && heading.focus) heading.focus();
      load(true);
    }, function (failure) {
      widget.sections.setBusy(button, false);
      var reply = failure && failure.reply;
      var result = reply ? core.errorFields(reply) : { status: 'error', statusMessage: 'networkError' };
      result.scope = scope;
      core.fire('onCaptureSessionsEndFailed', result);
      if (widget.sections.sessionGone(failure)) return;
      if (reply && reply.body && reply.body.code === 310) {
        // Ended meanwhile (from another device, say): the list as it is now.
        widget.sections.note(section, t('widget.sessionsAlreadyEnded'), 'info');
        load(true);
        return;
      }
      widget.screens.showFormMessage(section, widget.sections.failureText(failure, scope === 'one'
        ? t('widget.sessionsNotEnded').replace('%s', name) : t('widget.sessionsNotEndedOthers')));
    });
  }

  core.onClicks([
    ['[data-capture-session-end]', function (button) { end(button, 'one'); }],
    ['[data-capture-sessions-end-others]', function (button) { end(button, 'others'); }],
    ['[data-capture-sessions-retry]', retry]
  ]);

  widget.sessions = {
    renderSessions: renderSessions
  };
})(window, document);
