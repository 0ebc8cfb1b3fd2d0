/*
 * janrain-bridge.js — hands every janrain.events.* event to the native app hosting this page.
 *
 * Three transports run side by side; the host uses whichever it supports (docs/bridge-protocol.md):
 *   1. queue + signal (Janrain's reference protocol): events are queued as
 *      "janrain:<event>?arguments=<encoded JSON array>" on createJanrainBridge.eventQueue and a hidden
 *      iframe navigates to "janrain:eventsAvailable?<ms>"; the host cancels that navigation and drains
 *      the queue. The queue is the single source of truth; a signal only says "look".
 *   2. legacy token URL: the first token-carrying login success navigates to "janrain:accessToken=<token>".
 *   3. message handlers: WKWebView's webkit.messageHandlers.janrainBridge, Android's JanrainBridge.
 * Transports 1 and 2 are active only when the user agent contains "janrainNativeAppBridgeEnabled".
 * Plain ES5, no dependencies.
 */
function createJanrainBridge() {
  'use strict';
  var bridge = createJanrainBridge;
  if (bridge.installed) return bridge;

  var janrain = window.janrain;
  if (!janrain || !janrain.events) {
    // Called before the widget created janrain.events: try again shortly instead of missing them all.
    bridge.retries = (bridge.retries || 0) + 1;
    if (bridge.retries <= 100) window.setTimeout(createJanrainBridge, 20);
    return bridge;
  }
  bridge.installed = true;

  var nativeAppBridge = String(window.navigator.userAgent).indexOf('janrainNativeAppBridgeEnabled') >= 0;
  var signalFrame = null;
  var lastSignal = 0;
  var tokenUrlSent = false;

  /* Serialises an event's arguments once, for every transport: {json} or {error}. */
  function serialise(args) {
    try {
      return { json: JSON.stringify(args) };
    } catch (error) {
      return { error: String((error && error.message) || error) };
    }
  }

  // Transport 1: queue the event, then tell the host to drain.
  function enqueue(eventName, packed) {
    bridge.eventQueue.push('janrain:' + eventName + (packed.error === undefined
      ? '?arguments=' + encodeURIComponent(packed.json)
      : '?error=' + encodeURIComponent(packed.error)));
    signal();
  }

  function signal() {
    if (!signalFrame) {
      signalFrame = document.createElement('iframe');
      signalFrame.hidden = true;
      signalFrame.setAttribute('aria-hidden', 'true');
      signalFrame.setAttribute('tabindex', '-1');
      signalFrame.title = 'janrain bridge';
      (document.body || document.documentElement).appendChild(signalFrame);
    }
    // Strictly increasing, so no two signals carry the same URL.
    var now = Date.now();
    lastSignal = now > lastSignal ? now : lastSignal + 1;
    signalFrame.src = 'janrain:eventsAvailable?' + lastSignal;
  }

  // Transport 2: Janrain's legacy hand-off of the access token, once per page load.
  function legacyTokenUrl(eventName, args) {
    if (tokenUrlSent || eventName !== 'onCaptureLoginSuccess') return;
    var settings = janrain.settings || {};
    if (!settings.bridge || settings.bridge.legacyTokenUrl !== true) return;
    var result = args[0];
    if (!result || !result.accessToken || result.oneTime !== false) return;
    tokenUrlSent = true;
    window.location.href = 'janrain:accessToken=' + result.accessToken;
  }

  // Transport 3: script message handlers, looked up per event so a late-registered handler still works.
  function postToMessageHandlers(eventName, args, packed) {
    var webkit = window.webkit;
    var handler = webkit && webkit.messageHandlers && webkit.messageHandlers.janrainBridge;
    if (handler && typeof handler.postMessage === 'function') {
      handler.postMessage(packed.error === undefined
        ? { event: eventName, arguments: args }
        : { event: eventName, error: packed.error });
    }
    var android = window.JanrainBridge;
    if (android && typeof android.postMessage === 'function') {
      android.postMessage(packed.error === undefined
        ? '{"event":' + JSON.stringify(eventName) + ',"arguments":' + packed.json + '}'
        : JSON.stringify({ event: eventName, error: packed.error }));
    }
  }

  function deliver(eventName, args) {
    var packed = serialise(args);
    if (nativeAppBridge) enqueue(eventName, packed);
    try {
      postToMessageHandlers(eventName, args, packed);
    } catch (error) {
      // A broken host handler must not cost the other transports their event.
    }
    if (nativeAppBridge) legacyTokenUrl(eventName, args);
  }

  function subscribe(eventName) {
    janrain.events[eventName].addHandler(function () {
      deliver(eventName, Array.prototype.slice.call(arguments));
    });
  }

  for (var eventName in janrain.events) {
    var channel = janrain.events[eventName];
    if (channel && typeof channel.addHandler === 'function') subscribe(eventName);
  }
  return bridge;
}

// Exists from the start so the host's drain expression never throws, even before any event.
createJanrainBridge.eventQueue = createJanrainBridge.eventQueue || [];
