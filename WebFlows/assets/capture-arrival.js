/*
 * capture-arrival.js — the rest of the widget, on the service's own pages (docs/adr/0073). Such a page carries the
 * first screen's modules in its own script and names the others (capture-rest.js, at its content-addressed URL) in
 * that script's data-capture-rest; they are fetched once the first screen is up. Until they have run, a tap on a
 * button or a link and a form's submission wait, and are replayed in order when they have: the form takes typing at
 * once, and nothing tapped is lost. widget.arrival.after(fn) waits the same way. A page whose script holds every
 * module (capture-ui.js, the drop-in's janrain-load.js) names nothing, and nothing waits.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;

  // A load that fails (the network dropped) is tried again this many times, this far apart.
  var TRIES = 3;
  var RETRY_MS = 1500;
  // What a tap waits for: what would act on it once the modules are here.
  var TAPPABLE = 'a[href], button, input[type="submit"], input[type="button"]';

  var script = document.currentScript;
  var restUrl = script && script.getAttribute('data-capture-rest');
  // What waits for the rest; null once everything is here (or nothing was to come).
  var waiting = restUrl ? [] : null;

  function after(fn) {
    if (waiting === null) fn();
    else waiting.push(fn);
  }

  function arrived() {
    var queued = waiting;
    waiting = null;
    for (var i = 0; i < queued.length; i++) queued[i]();
  }

  /* Fetches the rest once; `first` runs when it has run, before whatever waited. */
  function fetchRest(first) {
    var tries = 0;
    function attempt() {
      tries++;
      var element = document.createElement('script');
      element.src = restUrl;
      // Run in order with anything else inserted (never before this page's own script has finished).
      element.async = false;
      element.onload = function () {
        first();
        arrived();
      };
      element.onerror = function () {
        if (element.parentNode) element.parentNode.removeChild(element);
        if (tries < TRIES) window.setTimeout(attempt, RETRY_MS * tries);
        else widget.screens.showNotice(core.t('widget.network'));
      };
      document.body.appendChild(element);
    }
    attempt();
  }

  /* Taps and submissions while the rest is on its way: held here (before any other listener), replayed after. */
  function hold(event) {
    if (waiting === null) return;
    var target = event.type === 'submit' ? event.target : core.closest(event.target, TAPPABLE);
    if (!target) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    waiting.push(function () {
      if (event.type === 'click') {
        target.click();
      } else if (typeof target.requestSubmit === 'function') {
        target.requestSubmit();
      } else {
        var again = document.createEvent('Event');
        again.initEvent('submit', true, true);
        target.dispatchEvent(again);
      }
    });
  }

  if (restUrl) {
    document.addEventListener('click', hold, true);
    document.addEventListener('submit', hold, true);
  }

  widget.arrival = {
    // Whether the rest is still to come (or coming).
    pending: function () { return waiting !== null; },
    fetchRest: fetchRest,
    after: after
  };
})(window, document);
