/*
 * janrain-load.js — the drop-in for Janrain's loader script. A Janrain page (its janrain.settings, its screens as
 * hidden <div>s of Janrain Template Language) points its loader URL here (`/load/<appId>` or `/<path>/load.js`) and
 * keeps everything else. This script loads the widget's modules from the service it came from, in order; the last,
 * capture-dropin.js, calls the page's janrainWidgetOnload() and janrainCaptureWidgetOnLoad() as Janrain's loader
 * did. Settings are read when the page calls janrain.capture.ui.start(). Plain ES5, no build step.
 */
(function (window, document) {
  'use strict';

  var MODULES = [
    'capture-core.js', 'capture-jtl.js', 'capture-flow.js', 'capture-controls.js', 'capture-screens.js',
    'capture-forms.js', 'capture-social.js', 'capture-social-forms.js', 'capture-linked.js', 'capture-sections.js',
    'capture-passkeys.js', 'capture-factors.js', 'capture-account.js', 'capture-terms.js', 'capture-sessions.js',
    'capture-account-data.js', 'capture-host.js', 'capture-modal.js', 'capture-dropin.js'
  ];

  /* This script's element: Janrain's pages give it the id janrainAuthWidget; else the last script named load. */
  function thisScript() {
    if (document.currentScript) return document.currentScript;
    var named = document.getElementById('janrainAuthWidget');
    if (named && named.src) return named;
    var scripts = document.getElementsByTagName('script');
    for (var i = scripts.length - 1; i >= 0; i--) {
      if (/\/load(\/[^\/?#]+|\.js)([?#]|$)/.test(scripts[i].getAttribute('src') || '')) return scripts[i];
    }
    return null;
  }

  var janrain = window.janrain = window.janrain || {};
  janrain.capture = janrain.capture || {};
  if (janrain.capture._dropIn) return;  // loaded twice: the first one stands

  var script = thisScript();
  var match = script && /^(https?:\/\/[^\/?#]+)/.exec(script.src || '');
  var server = match ? match[1] : '';
  // Where the widget's requests go: the service this script came from. Not enumerable, like the widget's namespace.
  Object.defineProperty(janrain.capture, '_dropIn', { value: { server: server }, configurable: true });

  var parent = (script && script.parentNode) || document.head || document.documentElement;
  for (var i = 0; i < MODULES.length; i++) {
    var module = document.createElement('script');
    module.src = server + '/flows/assets/' + MODULES[i];
    // Inserted scripts with async off run in the order they were inserted, each once it has arrived.
    module.async = false;
    parent.appendChild(module);
  }
})(window, document);
