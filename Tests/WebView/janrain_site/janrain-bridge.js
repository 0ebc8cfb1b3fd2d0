/* The site's copy of Janrain's web-view bridge: every janrain.events.* event is queued as
   "janrain:<event>?arguments=<JSON>" and a hidden frame's navigation to "janrain:eventsAvailable" tells the app to
   drain the queue (when the app's user agent says it listens). */
function createJanrainBridge() {
  if (createJanrainBridge.eventQueue) return;
  createJanrainBridge.eventQueue = [];
  if (navigator.userAgent.indexOf('janrainNativeAppBridgeEnabled') < 0) return;
  var frame = null;
  for (var name in janrain.events) {
    (function (eventName) {
      janrain.events[eventName].addHandler(function () {
        var args = Array.prototype.slice.call(arguments);
        createJanrainBridge.eventQueue.push('janrain:' + eventName + '?arguments=' + encodeURIComponent(JSON.stringify(args)));
        if (!frame) {
          frame = document.createElement('iframe');
          frame.style.display = 'none';
          document.body.appendChild(frame);
        }
        frame.src = 'janrain:eventsAvailable?' + new Date().getTime();
      });
    })(name);
  }
}
