/*
 * capture-screens.js — the screens: which one to show, what it shows (the profile, the address carried from the
 * last screen, a message's link), page notices, and the messages beside fields and forms.
 *
 * Screens are elements whose id is the screen name (class "capture_screen"); forms carry
 * data-capture-form="<formName>".
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;
  var t = core.t;

  // Screens that only make sense with a session; without one the sign-in screen is shown instead.
  var SESSION_SCREENS = {
    editProfile: true, changePassword: true, newPasswordSuccess: true, signedIn: true, confirmAccountDeactivation: true
  };
  // Screens a message's link may open (#screen=…&code=…&email=…), and the code input they fill; a customer's page
  // opens Janrain's resetPasswordRequestCode instead of resetPassword (capture-dropin.js).
  var LINK_SCREENS = { resetPassword: true, verifyEmail: true, resetPasswordRequestCode: true };
  // The form the signed-in record fills in (Janrain's), from the attributes janrain.settings gives its fields.
  var PROFILE_FORM = 'editProfileForm';

  // The page's own title, which a screen's heading goes before.
  var pageTitle = document.title;
  // The email address carried between the sign-in and code screens (never stored): changed through carryAddress
  // only, read through typedAddress (carriedAddress falls back to the signed-in user's).
  // OpenID Connect's login_hint starts it, when it is an address.
  var address = /^[^@\s]+@[^@\s]+$/.test(core.captureSettings().loginHint || '') ? core.captureSettings().loginHint : '';

  function carryAddress(value) {
    address = value || '';
  }

  // ---------------------------------------------------------------- which screen

  function screens() {
    return document.querySelectorAll('.capture_screen');
  }

  function screenExists(name) {
    var element = name && document.getElementById(name);
    return !!(element && (' ' + element.className + ' ').indexOf(' capture_screen ') >= 0);
  }

  function signInScreen() {
    // A customer's page: Janrain's cookie says whether the person came back from a provider's sign-in.
    if (core.dropIn && widget.dropin.lastAuthMethod() === 'socialSignin' && screenExists('returnSocial')) return 'returnSocial';
    if (core.storageGet(core.STORAGE.lastEmail) && screenExists('returnTraditional')) return 'returnTraditional';
    return 'signIn';
  }

  /* The screen to show after a session is found or created. */
  function sessionScreen() {
    var wanted = core.captureSettings().screenToRender;
    if (wanted && screenExists(wanted)) return wanted;
    if (screenExists('signedIn')) return 'signedIn';
    if (screenExists('editProfile')) return 'editProfile';
    // A customer's page: its first screen for a signed-in person (the flow's own may have another name), else none
    // shows (Janrain's widget closed its modal).
    if (core.dropIn) return widget.flow ? widget.flow.pageSessionScreen() : '';
    return signInScreen();
  }

  function initialScreenWithoutSession() {
    var capture = core.captureSettings();
    var wanted = capture.screenToRender;
    if (wanted && screenExists(wanted) && !SESSION_SCREENS[wanted]) return wanted;
    // A customer's flow names its first screen; sign-in stays open to the return experience (signInScreen).
    var first = capture.defaultScreen;
    if (first && first !== 'signIn' && screenExists(first) && !SESSION_SCREENS[first]) return first;
    return signInScreen();
  }

  /* Sign-in after a code step: the address it was for, not a different remembered one. */
  function signInAfterCode() {
    var last = core.storageGet(core.STORAGE.lastEmail);
    if (address && last && address.toLowerCase() !== last.toLowerCase()) return 'signIn';
    return signInScreen();
  }

  // ---------------------------------------------------------------- what a screen shows

  function bindProfile(root, override) {
    var profile = override || core.storedProfile() || {};
    var values = {
      email: profile.email, displayName: profile.displayName || profile.email,
      givenName: profile.givenName, familyName: profile.familyName,
      lastEmail: core.storageGet(core.STORAGE.lastEmail),
      address: carriedAddress(),
      providerName: widget.socialForms ? widget.socialForms.socialProviderName() : '',
      mergeEmail: widget.socialForms ? widget.socialForms.mergeEmail() : '',
      welcomeName: widget.dropin ? widget.dropin.returnData().displayName : undefined
    };
    var bound = root.querySelectorAll('[data-capture-bind]');
    for (var i = 0; i < bound.length; i++) {
      var value = values[bound[i].getAttribute('data-capture-bind')];
      bound[i].textContent = value === undefined || value === null ? '' : String(value);
    }
    // "Confirm your address" reminders: only when the profile says the address is not verified yet.
    var unverified = addressUnproven(profile);
    var reminders = root.querySelectorAll('[data-capture-if="emailUnverified"]');
    for (var r = 0; r < reminders.length; r++) reminders[r].hidden = !unverified;
  }

  /* The signed-in record says its address is not proven yet (no reminder, no link until it is). */
  function addressUnproven(profile) {
    return !!(profile && profile.email && core.has(profile, 'emailVerified') && !profile.emailVerified);
  }

  /* The record's value at an attribute path (`givenName`, `primaryAddress.city`). */
  function valueAt(record, path) {
    var steps = String(path).split('.');
    var value = record;
    for (var i = 0; i < steps.length && value !== undefined && value !== null; i++) value = value[steps[i]];
    return value;
  }

  /* A form the record fills: the profile form, or a customer's form sent as it (Janrain's editPersonalForm). */
  function isProfileForm(formName) {
    return (widget.flow ? widget.flow.pageForm(formName).form : formName) === PROFILE_FORM;
  }

  function fillForms(root) {
    var profile = core.storedProfile() || {};
    var attributes = (core.formSettings(PROFILE_FORM) || {}).attributes || {};
    var forms = root.querySelectorAll('form[data-capture-form]');
    for (var f = 0; f < forms.length; f++) {
      var name = forms[f].getAttribute('data-capture-form');
      if (!isProfileForm(name)) continue;
      var elements = forms[f].elements;
      for (var e = 0; e < elements.length; e++) {
        var field = widget.flow ? widget.flow.serviceFieldName(name, elements[e].name) : elements[e].name;
        var type = String(elements[e].type || '').toLowerCase();
        if (!elements[e].name || elements[e].disabled || !core.has(attributes, field) || !('value' in elements[e])) continue;
        // A hidden field of a customer's flow keeps the flow's value (the one the service takes), not the record's.
        var fixed = widget.flow ? widget.flow.flowValue(elements[e].name) : undefined;
        if (fixed !== undefined) {
          elements[e].value = fixed;
          continue;
        }
        var value = valueAt(profile, attributes[field]);
        var text = value === undefined || value === null ? '' : String(value);
        if (type === 'checkbox') elements[e].checked = value === true;
        else if (type === 'radio') elements[e].checked = elements[e].value === text;
        else elements[e].value = text;
      }
    }
    if (widget.controls) widget.controls.syncDateSelects(root);
    var lastEmail = core.storageGet(core.STORAGE.lastEmail);
    var returningField = core.fieldOf('signInForm', 'email');
    var returning = root.id === 'returnTraditional' && returningField
      ? root.querySelectorAll('input[name="' + returningField + '"]') : [];
    for (var r = 0; r < returning.length; r++) {
      if (!returning[r].value && lastEmail) returning[r].value = lastEmail;
    }
    var carried = carriedAddress();
    if (carried && root.id !== 'returnTraditional') {
      // The address typed on the previous screen (or named by a message's link) goes along.
      var inputs = root.querySelectorAll('form[data-capture-form] input');
      for (var a = 0; a < inputs.length; a++) {
        var form = inputs[a].form;
        var formName = form && form.getAttribute('data-capture-form');
        if (!core.isAddressInput(inputs[a].name) || isProfileForm(formName)) continue;
        if ((formName === 'registrationForm' || formName === 'socialRegistrationForm') && inputs[a].value) continue;
        inputs[a].value = carried;
      }
    }
  }

  /* The address the code screens are about: the one carried from the last screen, else the signed-in user's. */
  function carriedAddress() {
    if (address) return address;
    var profile = core.hasActiveSession() ? core.storedProfile() : null;
    return (profile && profile.email) || '';
  }

  /* The address in the first filled address input of `root`, if any. */
  function addressIn(root) {
    var inputs = root ? root.querySelectorAll('input') : [];
    for (var i = 0; i < inputs.length; i++) {
      if (core.isAddressInput(inputs[i].name) && inputs[i].value && inputs[i].value.indexOf('@') > 0) {
        return inputs[i].value.replace(/^\s+|\s+$/g, '');
      }
    }
    return '';
  }

  /*
   * A message's link: #screen=resetPassword&code=K7QD-3MXP&email=a%40b.co. Read once, then removed from the
   * address bar and history so the code does not linger; returns the screen to show, or null.
   */
  function takeLink() {
    var values = core.fragmentValues(window.location.hash);
    if (!values.screen || !LINK_SCREENS[values.screen] || !screenExists(values.screen)) return null;
    core.forgetFragment();
    if (values.email) carryAddress(values.email);
    if (widget.dropin) return widget.dropin.openLink(values);
    var codes = document.getElementById(values.screen).querySelectorAll('input[name="verification_code"]');
    for (var c = 0; c < codes.length; c++) codes[c].value = values.code || '';
    return values.screen;
  }

  /* A customer's screens were hidden by their style (display: none), the service's by `hidden`: both follow. */
  function setShown(screen, shown) {
    screen.hidden = !shown;
    if (screen.style.display) screen.style.display = shown ? 'block' : 'none';
  }

  /* On the service's own pages the modules below arrive just after the first screen (capture-rest.js, docs/adr/0073):
   * until then no step is under way, and capture-host.js draws the screen's parts when they come. */
  function waitsForStep(name) {
    return !!widget.terms && (widget.socialForms.waitsForSocial(name) || widget.factors.waitsForSecondFactor(name)
      || widget.account.waitsForAccount(name) || widget.terms.waitsForTerms(name));
  }

  /* What other modules draw on a screen: a merge, linked accounts, factors, the account, documents, sessions, data. */
  function renderParts(target) {
    if (!widget.terms) return;
    widget.socialForms.renderMerge(target);
    widget.linked.renderLinkedAccounts(target);
    widget.factors.renderFactors(target);
    widget.account.renderAccount(target);
    widget.terms.renderTerms(target);
    widget.sessions.renderSessions(target);
    widget.accountData.renderAccountData(target);
  }

  function renderScreen(name, options) {
    if (name === '' && core.dropIn) {
      var shown = screens();
      for (var s = 0; s < shown.length; s++) setShown(shown[s], false);
      if (widget.modal) widget.modal.place(null);
      return true;
    }
    if (SESSION_SCREENS[name] && !core.hasActiveSession()) name = signInScreen();
    // Screens of a step under way (a social sign-in, a second factor, a deleted account's, documents to accept) need
    // that step.
    if (waitsForStep(name)) name = signInScreen();
    if (!screenExists(name)) {
      if (!screenExists('signIn')) return false;
      name = 'signIn';
    }
    var all = screens();
    var target = document.getElementById(name);
    for (var i = 0; i < all.length; i++) {
      if (all[i] !== target) setShown(all[i], false);
    }
    clearMessages(target);
    bindProfile(target);
    renderParts(target);
    fillForms(target);
    setShown(target, true);
    // A customer's page with Janrain's modal: it opens or closes around this screen (capture-modal.js).
    if (widget.modal) widget.modal.place(target);
    var loading = document.getElementById('capture_loading');
    if (loading) loading.hidden = true;
    var previous = core.currentScreen();
    core.screenShown(name, options && options.back);
    if (previous !== null && !(options && options.keepFocus)) {
      // Screen readers and keyboards follow the change; the heading has tabindex="-1".
      var heading = target.querySelector('h1, h2');
      if (heading && heading.focus) heading.focus();
    }
    // The window title names the screen too (screen readers announce it; the app switcher shows it).
    var heading1 = target.querySelector('h1');
    var screenTitle = heading1 ? (heading1.textContent || '').replace(/\s+/g, ' ').replace(/^ | $/g, '') : '';
    document.title = screenTitle && screenTitle !== pageTitle ? screenTitle + ' – ' + pageTitle : pageTitle;
    core.fire('onCaptureScreenShow', { statusMessage: 'screenShown', screen: name });
    return true;
  }

  /* response_type=code: the signed-in screen for `user`, though the page keeps no session. */
  function showSignedInWithoutSession(name, user) {
    var all = screens();
    var target = document.getElementById(name);
    for (var i = 0; i < all.length; i++) setShown(all[i], all[i] === target);
    bindProfile(target, user);
    core.screenShown(name);
    core.fire('onCaptureScreenShow', { statusMessage: 'screenShown', screen: name });
  }

  /* Fired once the widget has put its first screen up (start, or a host-injected session). */
  function renderComplete() {
    widget.social.showSocialNotice();
    core.fire('onCaptureRenderComplete', { statusMessage: 'renderComplete', screen: core.currentScreen() });
  }

  // ---------------------------------------------------------------- notices and messages

  /* A page-level notice (network trouble) that does not belong to one form. */
  function showNotice(text, gentle) {
    var notice = document.getElementById('capture_notice');
    if (!notice) {
      notice = document.createElement('p');
      notice.id = 'capture_notice';
      var container = document.querySelector('.capture_container') || document.body;
      container.insertBefore(notice, container.firstChild);
    }
    // A gentle notice (a cancelled sign-in, "signing you in…") is news, not an error.
    notice.className = gentle ? 'capture_notice capture_notice_info' : 'capture_notice';
    notice.setAttribute('role', gentle ? 'status' : 'alert');
    notice.textContent = text;
    notice.hidden = false;
  }

  function hideNotice() {
    var notice = document.getElementById('capture_notice');
    if (notice) notice.hidden = true;
  }

  function clearMessages(root) {
    if (!root) return;
    var tips = root.querySelectorAll('.capture_tip_error, .capture_form_error, .capture_form_success');
    for (var i = 0; i < tips.length; i++) {
      tips[i].textContent = '';
      tips[i].hidden = true;
    }
    var invalid = root.querySelectorAll('[aria-invalid]');
    for (var j = 0; j < invalid.length; j++) invalid[j].removeAttribute('aria-invalid');
    var items = root.querySelectorAll('.capture_form_item.capture_error');
    for (var k = 0; k < items.length; k++) {
      items[k].className = items[k].className.replace(/\s*\bcapture_error\b/g, '');
    }
    var generated = root.querySelectorAll('[data-capture-generated]');
    for (var g = 0; g < generated.length; g++) generated[g].parentNode.removeChild(generated[g]);
  }

  /* A way forward offered with a message: a link-styled button with `attribute` (what a click table looks for). */
  function messageAction(label, attribute, value) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'capture_link';
    button.setAttribute(attribute, value || '');
    button.textContent = label;
    var line = document.createElement('span');
    line.className = 'capture_message_action';
    line.setAttribute('data-capture-generated', '');
    line.appendChild(button);
    return line;
  }

  /* A message's way forward to another screen (null if the page lacks it). */
  function actionLink(label, screen) {
    return screenExists(screen) ? messageAction(label, 'data-capture-screen', screen) : null;
  }

  /* The message of `form` (or of a section holding one) says `text`, with `action` after it; false without a place. */
  function showFormMessage(form, text, className, action) {
    var node = form.querySelector('.' + (className || 'capture_form_error'));
    if (!node && form.parentNode) node = form.parentNode.querySelector('.' + (className || 'capture_form_error'));
    if (!node) return false;
    node.textContent = text;
    if (action) node.appendChild(action);
    node.hidden = false;
    return true;
  }

  /* Puts a way forward right under a field's message (e.g. "address in use" → sign in or reset). */
  function addFieldAction(form, field, action) {
    var input = action && form.querySelector('[name="' + field + '"]');
    var tip = input && input.id ? document.getElementById(input.id + '_error') : null;
    if (!tip) return;
    var holder = document.createElement('p');
    holder.className = 'capture_field_action';
    holder.setAttribute('data-capture-generated', '');
    action.removeAttribute('data-capture-generated');
    holder.appendChild(action);
    tip.parentNode.insertBefore(holder, tip.nextSibling);
  }

  /* Shows each message next to its field; returns messages whose field is not in this form. */
  function showFieldErrors(form, invalidFields) {
    var orphaned = [];
    for (var field in invalidFields) {
      if (!core.has(invalidFields, field)) continue;
      var messages = invalidFields[field];
      var text = Object.prototype.toString.call(messages) === '[object Array]' ? messages.join(' ') : String(messages);
      var input = form.querySelector('[name="' + field.replace(/["\\]/g, '') + '"]');
      var tip = input && input.id ? document.getElementById(input.id + '_error') : null;
      if (!input || !tip || core.closest(input, '[hidden]')) {
        // No place next to the field (or the field is a hidden copy): the form's own message says it.
        orphaned.push(text);
        continue;
      }
      tip.textContent = text;
      tip.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      var item = input.parentNode;
      if (item && item.className.indexOf('capture_error') < 0) item.className += ' capture_error';
    }
    // The first invalid field in screen order (invalid_fields' keys come sorted by name, not by place).
    var marked = form.querySelectorAll('[aria-invalid="true"]');
    if (marked.length) {
      showErrorSummary(form, marked);
      if (marked[0].focus) marked[0].focus();
    }
    return orphaned;
  }

  /*
   * The form's message (role="alert", so it is announced as a group): how many fields need fixing, each a link-styled
   * button that takes focus to its field.
   */
  function showErrorSummary(form, marked) {
    var node = form.querySelector('.capture_form_error');
    if (!node) return;
    node.textContent = t(marked.length === 1 ? 'widget.fixOneField' : 'widget.fixFields').replace('%d', String(marked.length));
    var list = document.createElement('ul');
    list.className = 'capture_error_summary';
    list.setAttribute('data-capture-generated', '');
    for (var i = 0; i < marked.length; i++) {
      var label = marked[i].id ? form.querySelector('label[for="' + marked[i].id + '"]') : null;
      var item = document.createElement('li');
      var jump = document.createElement('button');
      jump.type = 'button';
      jump.className = 'capture_link';
      jump.setAttribute('data-capture-focus', marked[i].id);
      jump.textContent = label ? label.textContent : marked[i].name;
      item.appendChild(jump);
      list.appendChild(item);
    }
    node.appendChild(list);
    node.hidden = false;
  }

  widget.screens = {
    carryAddress: carryAddress,
    typedAddress: function () { return address; },
    carriedAddress: carriedAddress,
    addressIn: addressIn,
    addressUnproven: addressUnproven,
    screenExists: screenExists,
    signInScreen: signInScreen,
    sessionScreen: sessionScreen,
    initialScreenWithoutSession: initialScreenWithoutSession,
    signInAfterCode: signInAfterCode,
    bindProfile: bindProfile,
    valueAt: valueAt,
    takeLink: takeLink,
    renderScreen: renderScreen,
    renderParts: renderParts,
    showSignedInWithoutSession: showSignedInWithoutSession,
    renderComplete: renderComplete,
    showNotice: showNotice,
    hideNotice: hideNotice,
    clearMessages: clearMessages,
    actionLink: actionLink,
    messageAction: messageAction,
    showFormMessage: showFormMessage,
    addFieldAction: addFieldAction,
    showFieldErrors: showFieldErrors
  };
})(window, document);
