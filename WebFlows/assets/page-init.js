/*
 * The page's hook that the widget calls once it has loaded, as on Janrain-hosted pages:
 * subscribe the native bridge to every janrain.events.* event, then start the widget.
 */
function janrainCaptureWidgetOnLoad() {
  'use strict';
  if (typeof window.createJanrainBridge === 'function') {
    window.createJanrainBridge();
  }
  window.janrain.capture.ui.start();
}
