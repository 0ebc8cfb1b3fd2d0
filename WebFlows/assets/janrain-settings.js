/*
 * Builds window.janrain.settings from the page's JSON data block
 * (<script type="application/json" id="janrain-settings">), which the service fills from Settings/.
 * Kept out of the page so the Content-Security-Policy can forbid inline script.
 */
(function (window, document) {
  'use strict';

  var janrain = window.janrain = window.janrain || {};
  var block = document.getElementById('janrain-settings');
  var parsed = {};
  if (block) {
    try {
      parsed = JSON.parse(block.textContent || '{}') || {};
    } catch (error) {
      // A broken block must not break the page; the widget reports missing settings itself.
      parsed = {};
    }
  }

  var settings = janrain.settings || {};
  for (var key in parsed) {
    if (Object.prototype.hasOwnProperty.call(parsed, key)) {
      settings[key] = parsed[key];
    }
  }
  settings.capture = settings.capture || {};
  settings.bridge = settings.bridge || {};
  // The redirect flow returns to exactly this page; the fragment never reaches a server.
  settings.capture.redirectUri = String(window.location.href).split('#')[0];
  // An OpenID Connect client's sign-in (docs/oidc.md): the sealed request /oidc/authorize checked, which every
  // sign-in call carries, and the address the client already knows (login_hint).
  var query = new window.URLSearchParams(window.location.search);
  if (query.get('oidc_request')) settings.capture.oidcRequest = query.get('oidc_request');
  if (query.get('login_hint')) settings.capture.loginHint = query.get('login_hint');
  janrain.settings = settings;
})(window, document);
