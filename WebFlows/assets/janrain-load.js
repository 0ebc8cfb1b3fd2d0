/*
 * janrain-load.js — the drop-in for Janrain's loader script. A Janrain page (its janrain.settings, its screens as
 * hidden <div>s of Janrain Template Language) points its loader URL here (`/load/<appId>` or `/<path>/load.js`) and
 * keeps everything else. This script loads janrain-dropin.js from the service it came from: the widget's modules,
 * joined in order at start-up (WebFlows/assets/bundles.json, docs/adr/0070); the last, capture-dropin.js, calls the
 * page's janrainWidgetOnload() and janrainCaptureWidgetOnLoad() as Janrain's loader did. Settings are read when the
 * page calls janrain.capture.ui.start(). Plain ES5, no build step.
 */
(function (window, document) {
  'use strict';

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
  var widget = document.createElement('script');
  // The service writes the bundle's content-addressed URL here when it serves this file.
  widget.src = server + '/flows/assets/janrain-dropin.js';
  widget.async = false;
  parent.appendChild(widget);
})(window, document);
