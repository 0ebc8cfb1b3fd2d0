/*
 * capture-jtl.js — Janrain Template Language in a customer's own page (the drop-in, janrain-load.js, loads it): each
 * screen <div> the page holds and the flow defines becomes a screen of the widget, and its {* … *} tags become the
 * fields, forms, texts and elements the flow describes, with the ids and classes Janrain's widget gave them
 * (capture_<screen>_<field>, capture_<screen>_form_item_<field>, …), so the customer's CSS and scripts keep working.
 *
 * The rules Janrain's pages rely on: spaces inside a tag are optional; a form or container opens a block when a
 * close follows it, with or without `#`; a close ends the innermost open block whatever it names; `#` on a field
 * just renders the field; a tag's JSON options are read past but for `{* mergeAccounts {"custom": true} *}`, whose
 * screen is the page's own merge template ({| … |} placeholders, filled when a merge shows it). A tag the flow does
 * not know renders nothing and is reported once on the console. What the flow's rules do once the screens are up
 * (checks, hidden values, the names a form is sent under) is capture-flow.js's.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;

  var TAG = /\{\*\s*([#\/]?)\s*([A-Za-z][A-Za-z0-9_]*)\s*(\{[\s\S]*?\})?\s*\*\}/g;
  // The widget's own elements (not the flow's): what each renders is below (mergeAccounts: in compile).
  var BUILT_IN = { loginWidget: 1, backButton: 1, linkedAccounts: 1, linkAccountContainer: 1, resendLink: 1, welcomeName: 1 };
  // Blocks that are containers rather than forms.
  var CONTAINERS = { linkAccountContainer: 1 };
  // The value placeholders of Janrain's merge template ({| current_emailAddress |}).
  var PLACEHOLDER = /\{\|\s*([A-Za-z_]+)\s*\|\}/g;
  // What {* mergeAccounts *} without a template of the page's own shows.
  var DEFAULT_MERGE = '<div class="capture_mergeAccounts"><p class="capture_bigText">{| foundExistingAccountText |} '
    + '<b>{| current_emailAddress |}</b>.</p><div class="capture_footer">{| connect_button |} {| create_button |}'
    + '</div></div>';
  // Screens with placeholders: their compiled markup, filled again each time they show.
  var templates = {};
  // The hidden inputs Janrain's forms began with (some customers read them); never sent (disabled).
  var HIDDEN_INPUTS = ['utf8', 'capture_screen', 'js_version', 'capture_transactionId', 'form', 'flow', 'client_id',
    'redirect_uri', 'response_type', 'flow_version', 'settings_version', 'locale'];

  var reported = {};

  function report(what) {
    if (reported[what]) return;
    reported[what] = true;
    if (window.console && window.console.warn) window.console.warn('janrain: ' + what);
  }

  function escape(text) {
    return String(text === undefined || text === null ? '' : text).replace(/&/g, '&amp;').replace(/</g, '&lt;')
      .replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  }

  function attributes(pairs) {
    var out = '';
    for (var name in pairs) {
      if (!core.has(pairs, name) || pairs[name] === undefined || pairs[name] === null || pairs[name] === false) continue;
      out += ' ' + name + (pairs[name] === true ? '' : '="' + escape(pairs[name]) + '"');
    }
    return out;
  }

  function text(flow, key) {
    var translations = flow.translations || {};
    return core.has(translations, key) ? translations[key] : key;
  }

  // ---------------------------------------------------------------- fields

  function inputHTML(field, id, name) {
    var type = field.type || 'text';
    var required = !!field.required;
    var common = {
      id: id, name: name, 'data-capturefield': name, required: required, 'aria-required': required ? 'true' : null,
      'aria-describedby': id + '_error', autocomplete: field.autocomplete, placeholder: field.placeholder
    };
    if (field.element === 'select') return widget.controls.selectHTML(common, name, field.options || []);
    if (field.element === 'radio') return widget.controls.radioHTML(common, name, field.options || []);
    if (field.element === 'textarea') {
      common['class'] = 'capture_' + name + ' capture_textarea';
      return '<textarea' + attributes(common) + '></textarea>';
    }
    if (type === 'date') return widget.controls.dateSelectHTML(common, name);
    common.type = type;
    // A hidden field's one value (the flow's; the service takes no other).
    if (type === 'hidden') common.value = ((field.options || [])[0] || {}).value;
    common.maxlength = field.maxLength;
    if (type === 'email') {
      common.autocapitalize = 'none';
      common.spellcheck = 'false';
    }
    common['class'] = 'capture_' + name + ' capture_text_input' + (required ? ' capture_required' : '');
    return '<input' + attributes(common) + '>';
  }

  /* A field of a form: its wrapper, label, control, tip and the place for its error, as Janrain wrote them. */
  function fieldHTML(flow, screen, name, field) {
    var id = 'capture_' + screen + '_' + name;
    var type = ['select', 'textarea', 'radio'].indexOf(field.element) >= 0 ? field.element : (field.type || 'text');
    if (type === 'hidden') return inputHTML(field, id, name);
    var item = {
      id: 'capture_' + screen + '_form_item_' + name,
      'class': 'capture_form_item capture_' + (type === 'date' ? 'dateselect' : type) + ' capture_form_item_' + name,
      'data-capture-field': name
    };
    var tip = field.tip ? '<div class="capture_tip">' + escape(field.tip) + '</div>' : '';
    var error = '<div' + attributes({ id: id + '_error', 'class': 'capture_tip_error', 'data-elementname': name, role: 'alert' })
      + ' hidden></div>';
    if (type === 'checkbox') {
      var box = '<input' + attributes({
        id: id, name: name, type: 'checkbox', value: 'true', 'data-capturefield': name,
        'class': 'capture_' + name + ' capture_input_checkbox', 'aria-describedby': id + '_error'
      }) + '>';
      return '<div' + attributes(item) + '><div' + attributes({
        id: 'capture_' + screen + '_form_item_inner_' + name, 'class': 'capture_checkbox'
      }) + '><label for="' + escape(id) + '">' + box + ' ' + escape(field.label) + '</label></div>' + tip + error + '</div>';
    }
    // A radio collection has no one control to label: its label names the group.
    var labelFor = type === 'date' ? id + '_dateselect_month' : (type === 'radio' ? null : id);
    return '<div' + attributes(item) + '><' + (labelFor ? 'label' : 'span') + attributes({
      id: id + '_label', 'for': labelFor, 'class': labelFor ? null : 'capture_label'
    }) + '>' + escape(field.label)
      + (field.required ? '<span class="capture_required_mark" aria-hidden="true">*</span>' : '')
      + (labelFor ? '</label>' : '</span>') + inputHTML(field, id, name) + tip + error + '</div>';
  }

  /* A button of the flow (element "button"): a form's submit, or a button that opens its `screen`. */
  function buttonHTML(field, name) {
    return '<div class="capture_form_item"><button' + attributes({
      type: field.type === 'submit' ? 'submit' : 'button', name: name,
      'class': 'capture_btn ' + (field.screen ? 'capture_secondary' : 'capture_primary') + ' capture_' + name,
      'data-capture-screen': field.screen
    }) + '>' + escape(field.label) + '</button></div>';
  }

  /*
   * A data tag (element "data"), or a field outside any form: the signed-in record's value, filled in when the screen
   * shows. Only a data tag takes the id (a field's id is its input's, in the form).
   */
  function dataHTML(screen, name, field) {
    return '<span' + attributes({
      id: field.element === 'data' ? 'capture_' + screen + '_' + name : null, 'class': 'capture_' + name + ' capture_data',
      'data-capture-bind': field.schemaId || name
    }) + '></span>';
  }

  function formOpenHTML(flow, screen, form) {
    var values = { utf8: '\u2713', capture_screen: screen, js_version: 'capture-bridge', form: form, flow: flow.name };
    var hidden = '';
    for (var i = 0; i < HIDDEN_INPUTS.length; i++) {
      hidden += '<input' + attributes({
        type: 'hidden', name: HIDDEN_INPUTS[i], value: values[HIDDEN_INPUTS[i]] || '', disabled: true
      }) + '>';
    }
    var base = 'capture_' + screen + '_' + form;
    return '<form' + attributes({
      id: base, name: form, 'class': 'capture_form capture_' + form, 'data-capturefield': form,
      'data-capture-form': form, novalidate: true, 'accept-charset': 'UTF-8'
    }) + '>' + hidden + '<div id="' + escape(base) + '_defaultSavedProfileMessage"></div>'
      + '<div id="' + escape(base) + '_errorMessages" class="capture_form_error" role="alert" hidden></div>';
  }

  // ---------------------------------------------------------------- the widget's elements

  /*
   * Janrain's loginWidget: a button per provider the service offers (capture-social.js follows a tap); inside
   * linkAccountContainer each links the provider to the signed-in account instead. On returnSocial, only the
   * provider the person last signed in with, when the service still offers it.
   */
  function providerButtonsHTML(linking, screen) {
    var providers = window.janrain.settings.providers || [];
    var last = screen === 'returnSocial' && widget.dropin ? widget.dropin.returnData().provider : null;
    if (last && providers.indexOf(last) >= 0) providers = [last];
    var items = '';
    for (var i = 0; i < providers.length; i++) {
      var label = core.t(linking ? 'social.link' : 'social.continueWith').replace('{provider}', core.providerName(providers[i]));
      items += '<li><button type="button" class="capture_btn capture_provider janrain-provider-icon-'
        + escape(providers[i]) + '" data-capture-provider="' + escape(providers[i]) + '"'
        + (linking ? ' data-capture-link' : '') + '>' + escape(label) + '</button></li>';
    }
    return items ? '<div class="capture_social" data-capture-social><ul class="capture_providers">' + items
      + '</ul></div>' : '';
  }

  function builtInHTML(name, linking, screen) {
    switch (name) {
      case 'loginWidget': return providerButtonsHTML(linking, screen);
      // The name the person last signed in under here (the return experience), filled when the screen shows.
      case 'welcomeName':
        return '<span id="capture_' + escape(screen) + '_welcomeName" class="capture_welcomeName capture_data"'
          + ' data-capture-bind="welcomeName"></span>';
      case 'backButton':
        return '<a href="#" class="capture_backButton capture_btn capture_primary" data-capture-action="back">'
          + escape(core.t('widget.back')) + '</a>';
      // Sends the verification mail again, to the address of this screen (capture-dropin.js).
      case 'resendLink':
        return '<a href="#" class="capture_resendLink" data-capture-action="resendVerification">'
          + escape(core.t('widget.resendLink')) + '</a>';
      case 'linkedAccounts':
        return '<div class="capture_linked_accounts" data-capture-linked>'
          + '<ul class="capture_linked_list" data-capture-linked-list></ul></div>';
      default: return '';
    }
  }

  // ---------------------------------------------------------------- a screen

  function tokens(html) {
    var list = [];
    var last = 0;
    var match;
    TAG.lastIndex = 0;
    while ((match = TAG.exec(html)) !== null) {
      list.push({ text: html.slice(last, match.index) });
      list.push({ mark: match[1], name: match[2], options: match[3] });
      last = TAG.lastIndex;
    }
    list.push({ text: html.slice(last) });
    return list;
  }

  function opensBlock(flow, name) {
    return core.has(flow.forms || {}, name) || core.has(CONTAINERS, name);
  }

  /* The screen's markup with every tag rendered. */
  function compile(flow, screen, html) {
    var list = tokens(html);
    // From the end: a form or container opens a block only when a close is still unmatched after it.
    var closes = 0;
    for (var i = list.length - 1; i >= 0; i--) {
      var token = list[i];
      if (token.name === undefined) continue;
      if (token.mark === '/') closes++;
      else if (opensBlock(flow, token.name) && closes > 0) {
        token.block = true;
        closes--;
      }
    }
    var out = '';
    var open = [];
    for (var j = 0; j < list.length; j++) {
      var item = list[j];
      if (item.name === undefined) {
        out += item.text;
      } else if (item.block) {
        open.push(item.name);
        out += core.has(CONTAINERS, item.name)
          ? '<div class="capture_' + item.name + '" data-capture-container="' + item.name + '">'
          : formOpenHTML(flow, screen, item.name);
      } else if (item.mark === '/') {
        var closing = open.pop();
        if (closing === undefined) report('{* /' + item.name + ' *} closes nothing on screen ' + screen);
        else out += core.has(CONTAINERS, closing) ? '</div>' : '</form>';
      } else if (item.name === 'mergeAccounts') {
        // Janrain's merge: the page's own markup after {* mergeAccounts {"custom": true} *}, else Janrain's default
        // one; either way its {| … |} placeholders are filled when a merge shows the screen (fillTemplate).
        out += /"custom"\s*:\s*true/.test(item.options || '') ? '' : DEFAULT_MERGE;
      } else {
        out += element(flow, screen, item.name, open);
      }
    }
    while (open.length) out += core.has(CONTAINERS, open.pop()) ? '</div>' : '</form>';
    return out;
  }

  /* The form the innermost open form block is, or null (outside forms, or in a container only). */
  function innermostForm(open) {
    for (var i = open.length - 1; i >= 0; i--) if (!core.has(CONTAINERS, open[i])) return open[i];
    return null;
  }

  function element(flow, screen, name, open) {
    var form = innermostForm(open);
    if (core.has(BUILT_IN, name)) return builtInHTML(name, open.indexOf('linkAccountContainer') >= 0, screen);
    var field = widget.flow.fieldNamed(flow, name);
    if (field) {
      if (field.element === 'button') return buttonHTML(field, name);
      if (field.element === 'data' || !form) return dataHTML(screen, name, field);
      // A form may call a field otherwise (a change-password form's "New password").
      var labels = ((flow.forms || {})[form] || {}).labels || {};
      if (core.has(labels, name)) field = { element: field.element, type: field.type, label: labels[name],
        required: field.required, autocomplete: field.autocomplete, maxLength: field.maxLength, options: field.options,
        placeholder: field.placeholder, tip: field.tip };
      return fieldHTML(flow, screen, name, field);
    }
    if (core.has(flow.translations || {}, name)) return escape(text(flow, name));
    report('{* ' + name + ' *} is not in flow ' + flow.name + ' (rendered as nothing)');
    return '';
  }

  /*
   * Every screen the page holds and the flow defines, rendered in place: it becomes a screen of the widget (hidden
   * until shown, Janrain's classes and role). Returns the names of the screens found.
   */
  function compileScreens(flow) {
    var names = flow.screens || [];
    var found = [];
    for (var i = 0; i < names.length; i++) {
      var screen = document.getElementById(names[i]);
      if (!screen || screen.getAttribute('data-capturescreenname')) continue;
      var html = compile(flow, names[i], screen.innerHTML);
      PLACEHOLDER.lastIndex = 0;
      if (PLACEHOLDER.test(html)) {
        templates[names[i]] = html;
        html = html.replace(PLACEHOLDER, '');
      }
      screen.innerHTML = html;
      screen.className = (screen.className ? screen.className + ' ' : '')
        + 'capture_screen janrain-capture-ui capture-ui-content capture_screen_container';
      screen.setAttribute('role', 'document');
      screen.setAttribute('data-capturescreenname', names[i]);
      screen.hidden = true;
      screen.style.display = 'none';
      found.push(names[i]);
    }
    linkJanrainControls(document);
    return found;
  }

  /* Janrain's controls in the page's own markup, as the widget's: screen links, end session, "not you". */
  function linkJanrainControls(root) {
    var links = root.querySelectorAll('[data-capturescreen]');
    for (var i = 0; i < links.length; i++) {
      links[i].setAttribute('data-capture-screen', links[i].getAttribute('data-capturescreen'));
    }
    var ends = root.querySelectorAll('.capture_end_session');
    for (var j = 0; j < ends.length; j++) ends[j].setAttribute('data-capture-action', 'signOut');
    var openClass = String((window.janrain.settings || {}).modalOpenClass || 'capture_modal_open').replace(/[^\w-]/g, '');
    var opens = root.querySelectorAll('.' + openClass);
    for (var o = 0; o < opens.length; o++) opens[o].setAttribute('data-capture-action', 'openModal');
    var resend = root.querySelectorAll('[data-capturecontrol="resendVerificationEmail"]');
    for (var r = 0; r < resend.length; r++) resend[r].setAttribute('data-capture-action', 'resendVerification');
    var forget = root.querySelectorAll('[data-cancelcapturereturnexperience="true"]');
    for (var k = 0; k < forget.length; k++) forget[k].setAttribute('data-capture-action', 'forgetEmail');
  }

  /*
   * A screen with {| … |} placeholders (Janrain's merge template) rendered again with `values` (text, escaped) and
   * `markup` (the widget's own HTML, such as the merge's buttons). False for a screen without placeholders.
   */
  function fillTemplate(screen, values, markup) {
    if (!screen || !core.has(templates, screen.id)) return false;
    screen.innerHTML = templates[screen.id].replace(PLACEHOLDER, function (all, name) {
      if (core.has(markup, name)) return markup[name];
      return core.has(values, name) ? escape(values[name]) : '';
    });
    linkJanrainControls(screen);
    return true;
  }

  widget.jtl = {
    compileScreens: compileScreens,
    fillTemplate: fillTemplate,
    report: report,
    escapeHTML: escape,
    htmlAttributes: attributes
  };
})(window, document);
