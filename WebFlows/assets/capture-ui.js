/*
 * capture-ui.js — the registration widget behind the flow pages. A page includes this one script, last; it loads
 * the widget's modules, in this order, from the directory it came from itself.
 *
 * Exposes Janrain's widget API (janrain.capture.ui.*, janrain.events.*) so that page and host code
 * written for Janrain Registration keeps working. Plain ES5 with fetch, no dependencies, no build
 * step, no eval, no inline styles: it must run in an old WKWebView under a strict CSP.
 *
 * The modules share one private namespace, janrain.capture._widget (made by capture-core.js, not enumerable):
 *   capture-core.js     events, settings and texts, the session in localStorage, requests to the service
 *   capture-screens.js  which screen shows and what it shows; notices and messages beside fields and forms
 *   capture-forms.js    sending a form and what each outcome does; checking and ending the session
 *   capture-social.js   sign-in with a provider (redirect or system-browser hand-off), social registration, merges
 *   capture-linked.js   the provider accounts linked to the signed-in user
 *   capture-passkeys.js passkeys: the ceremony (here, or relayed to the host), sign-in with one, the profile's list
 *   capture-factors.js  the second factor: the twoFactor screen, the profile's authenticator app
 *   capture-account.js  deleting the account (confirmAccountDeactivation, accountDeactivated), reactivateAccount
 *   capture-terms.js    the documents a client requires: registration's boxes, termsAgreement after a sign-in
 *   capture-sessions.js the profile's sessions: where the account is signed in, signing others out
 *   capture-account-data.js the profile's "Your data": the account's data as a file, or mailed to its address
 *   capture-host.js     start, the host's commands (janrain.capture.ui), clicks and submissions, the load hook
 *
 * On a customer's Janrain page, janrain-load.js (the drop-in for Janrain's loader) loads the same modules plus
 *   capture-jtl.js      the page's screens of Janrain Template Language rendered from the flow, the flow's rules
 *   capture-dropin.js   start with the page's settings and the flow, the rest of Janrain's API, its load hooks
 */
(function (document) {
  'use strict';

  var MODULES = [
    'capture-core.js', 'capture-screens.js', 'capture-forms.js', 'capture-social.js', 'capture-linked.js',
    'capture-passkeys.js', 'capture-factors.js', 'capture-account.js', 'capture-terms.js', 'capture-sessions.js',
    'capture-account-data.js', 'capture-host.js'
  ];

  /* This script's element: where the modules come from, and where they go. */
  function thisScript() {
    if (document.currentScript) return document.currentScript;
    var scripts = document.getElementsByTagName('script');
    for (var i = scripts.length - 1; i >= 0; i--) {
      if (/(^|\/)capture-ui\.js([?#]|$)/.test(scripts[i].getAttribute('src') || '')) return scripts[i];
    }
    return null;
  }

  var script = thisScript();
  var base = script && script.src ? script.src.replace(/[?#].*$/, '').replace(/[^\/]*$/, '') : '/flows/assets/';
  var parent = (script && script.parentNode) || document.head || document.documentElement;
  for (var i = 0; i < MODULES.length; i++) {
    var module = document.createElement('script');
    module.src = base + MODULES[i];
    // Inserted scripts with async off run in the order they were inserted, each once it has arrived.
    module.async = false;
    parent.appendChild(module);
  }
})(document);
