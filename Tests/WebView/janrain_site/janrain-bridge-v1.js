/* The site's copy of Janrain's first web-view bridge, which older app releases still load: every janrain.events.*
   event becomes a navigation of the page itself to "janrain:<event>?arguments=<JSON>" (when the app's user agent
   says it listens), which the app intercepts. */
function createJanrainBridge() {
  if (navigator.userAgent.indexOf('janrainNativeAppBridgeEnabled') < 0) return;
  for (var name in janrain.events) {
    (function (eventName) {
      janrain.events[eventName].addHandler(function () {
        window.location = 'janrain:' + eventName + '?arguments=' + encodeURIComponent(JSON.stringify(arguments));
      });
    })(name);
  }
}
