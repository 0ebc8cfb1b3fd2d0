/*
 * capture-ui.js — the registration widget behind the flow pages, for a page that names this one script: it loads
 * capture-widget.js, the widget's modules below joined in this order at start-up (WebFlows/assets/bundles.json,
 * docs/adr/0070), from the service it came from. The service's own pages carry capture-first.js (the page's scripts
 * and the first screen's modules) in their HTML and fetch capture-rest.js (the others) after it (docs/adr/0073).
 *
 * Exposes Janrain's widget API (janrain.capture.ui.*, janrain.events.*) so that page and host code
 * written for Janrain Registration keeps working. Plain ES5 with fetch, no dependencies, no build
 * step, no eval, no inline styles: it must run in an old WKWebView under a strict CSP.
 *
 * Each module puts the one object of what it offers on the widget's private object, janrain.capture._widget (made by
 * capture-core.js, not enumerable), and reaches the others only through theirs (widget.forms.submitForm(form), …):
 *   capture-core.js          widget.core: events, settings and texts, the session in localStorage, requests
 *   capture-arrival.js       widget.arrival: on the service's pages, fetching capture-rest.js; taps held until it ran
 *   capture-screens.js       widget.screens: which screen shows and what it shows; notices, messages beside fields
 *   capture-forms.js         widget.forms: sending a form and what each outcome does; checking and ending the session
 *   capture-social.js        widget.social: sign-in with a provider (redirect or system-browser hand-off), its answer
 *   capture-social-forms.js  widget.socialForms: the provider's token redeemed, social registration, merges
 *   capture-linked.js        widget.linked: the provider accounts linked to the signed-in user
 *   capture-sections.js      widget.sections: what the profile's sections share (requests, busy states, notes, dates)
 *   capture-passkeys.js      widget.passkeys: the ceremony (here, or relayed to the host), sign-in with one, the list
 *   capture-factors.js       widget.factors: the second factor: the twoFactor screen, the profile's authenticator app
 *   capture-account.js       widget.account: deleting the account, reactivateAccount, a recent sign-in asked for
 *   capture-terms.js         widget.terms: the documents a client requires: registration's boxes, termsAgreement
 *   capture-sessions.js      widget.sessions: the profile's sessions: where the account is signed in, signing out
 *   capture-account-data.js  widget.accountData: the profile's "Your data": a file, or mailed to its address
 *   capture-host.js          widget.host: start, the host's commands (janrain.capture.ui), clicks, the load hook
 *
 * On a customer's Janrain page, janrain-load.js (the drop-in for Janrain's loader) loads the same modules plus
 *   capture-jtl.js           widget.jtl: the page's screens of Janrain Template Language rendered from the flow
 *   capture-flow.js          widget.flow: the flow's rules: checks, hidden values, form and field names, `next`
 *   capture-controls.js      widget.controls: selects, radio collections and date selects of the page's forms
 *   capture-modal.js         widget.modal: Janrain's modal for pages that do not embed
 *   capture-dropin.js        widget.dropin: start with the page's settings and the flow, the rest of Janrain's API
 */
(function (document) {
  'use strict';

  /* This script's element: where the widget comes from, and where it goes. */
  function thisScript() {
    if (document.currentScript) return document.currentScript;
    var scripts = document.getElementsByTagName('script');
    for (var i = scripts.length - 1; i >= 0; i--) {
      if (/(^|\/)capture-ui\.js([?#]|$)/.test(scripts[i].getAttribute('src') || '')) return scripts[i];
    }
    return null;
  }

  var script = thisScript();
  var match = script && /^(https?:\/\/[^\/?#]+)/.exec(script.src || '');
  var parent = (script && script.parentNode) || document.head || document.documentElement;
  var widget = document.createElement('script');
  // The service writes the bundle's content-addressed URL here when it serves this file.
  widget.src = (match ? match[1] : '') + '/flows/assets/capture-widget.js';
  // Inserted scripts with async off run in the order they were inserted, each once it has arrived.
  widget.async = false;
  parent.appendChild(widget);
})(document);
