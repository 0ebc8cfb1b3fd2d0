/*
 * error-page.js — the service's error pages: tells the host the page failed (onCaptureRenderComplete with
 * status "error", over the same bridge as the flow pages) and makes "Try again" reload the page.
 * Plain ES5, no dependencies; the page's CSP allows only scripts from the service.
 */
(function (window, document) {
  'use strict';
  var janrain = window.janrain = window.janrain || {};
  var handlers = [];
  janrain.events = {
    onCaptureRenderComplete: {
      addHandler: function (handler) { handlers.push(handler); },
      removeHandler: function () { return false; }
    }
  };
  var detail = {};
  try {
    detail = JSON.parse((document.getElementById('capture-page-error') || {}).textContent || '{}') || {};
  } catch (error) { /* an empty event still says the page failed */ }
  if (typeof window.createJanrainBridge === 'function') window.createJanrainBridge();
  var result = { status: 'error', statusMessage: 'pageError', screen: null };
  for (var key in detail) {
    if (Object.prototype.hasOwnProperty.call(detail, key)) result[key] = detail[key];
  }
  for (var i = 0; i < handlers.length; i++) {
    try { handlers[i](result); } catch (error) { /* the next handler still hears it */ }
  }
  var retry = document.querySelector('[data-capture-retry]');
  if (retry) retry.addEventListener('click', function () { window.location.reload(); });
})(window, document);
