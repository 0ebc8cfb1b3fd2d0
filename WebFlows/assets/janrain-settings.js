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
  janrain.settings = settings;
})(window, document);
