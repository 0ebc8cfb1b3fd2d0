/*
 * capture-flow.js — the rules of a customer's flow on its own page (the drop-in, janrain-load.js, loads it after
 * capture-jtl.js): the fields the flow checks before a form is sent, the values its hidden fields always carry, the
 * service's form and field names a page's form is sent under, the first screen for a signed-in person, and the screen
 * a form's `next` rule names. capture-dropin.js hands it the flow (`use`) before the screens are rendered.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;

  // The flow the page's screens were rendered from (GET /flows/<flow>/widget.json's `flow`).
  var compiledFlow = null;

  function use(flow) {
    compiledFlow = flow;
  }

  /* The flow's field a tag names: its own, or the service's field for Janrain's older name of it. */
  function fieldNamed(flow, name) {
    var fields = flow.fields || {};
    if (core.has(fields, name)) return fields[name];
    var aliases = flow.fieldAliases || {};
    return core.has(aliases, name) && core.has(fields, aliases[name]) ? fields[aliases[name]] : null;
  }

  /* Characters as the service counts them (code points, not UTF-16 units). */
  function length(value) {
    return value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;
  }

  /* The first rule `value` breaks, or null; never stricter than the service, which checks every rule again. */
  function broken(rules, value, values) {
    for (var i = 0; i < rules.length; i++) {
      var rule = rules[i];
      if (value === '') {
        if (rule.rule === 'required') return rule;
        continue;
      }
      if ((rule.rule === 'minLength' && length(value) < rule.value)
          || (rule.rule === 'maxLength' && length(value) > rule.value)
          || (rule.rule === 'format' && rule.value === 'email' && !/^[^@\s]+@[^@\s]+$/.test(value))
          || (rule.rule === 'matches' && values[rule.value] !== value)) return rule;
    }
    return null;
  }

  /*
   * The flow's messages for the fields of `values` that break its rules ({field: [message]}), or null when every
   * one passes. Only on a customer's page (the flow came with its rules); passwords are checked as typed, the rest
   * without the spaces around them, as the service does.
   */
  function checkFields(values) {
    if (!compiledFlow) return null;
    var fields = compiledFlow.fields || {};
    var problems = null;
    for (var name in values) {
      if (!core.has(values, name) || !core.has(fields, name)) continue;
      var field = fields[name];
      var value = field.type === 'password' ? values[name] : String(values[name]).replace(/^\s+|\s+$/g, '');
      var rule = broken(field.validation || [], value, values);
      if (rule) {
        problems = problems || {};
        problems[name] = [rule.message];
      }
    }
    return problems;
  }

  /*
   * The value the flow gives a hidden field (Janrain's `type: hidden` with its `value`, for the page `name` or Janrain's
   * older name of it): the one the page sends, whatever the input or the record holds (the service takes no other);
   * undefined for any other field.
   */
  function flowValue(name) {
    var field = compiledFlow ? fieldNamed(compiledFlow, name) : null;
    if (!field || field.type !== 'hidden' || (field.element && field.element !== 'input')) return undefined;
    var option = (field.options || [])[0];
    return option && option.value !== undefined && option.value !== null ? String(option.value) : undefined;
  }

  function formEntry(name) {
    return ((compiledFlow && compiledFlow.forms) || {})[name] || null;
  }

  /*
   * The service's form a page's form is sent as, and the screen its success opens when not that form's own
   * ({form, done}); the page's own name when the service knows it so. `linkForm`: the flow's form it is sent as while
   * the page holds a mailed link's code (Janrain's older newPasswordForm on a built-in flow; capture-forms.js formSpec).
   */
  function pageForm(name) {
    var entry = formEntry(name) || {};
    return { form: entry.sentAs || name, done: entry.done || null, linkForm: entry.withLinkCode || null };
  }

  /* The service's name of the page's field `name` in its form `form`: Janrain's other name renamed where the form
   * has only the service's. */
  function serviceFieldName(form, name) {
    var own = (formEntry(form) || {}).fields || [];
    var aliases = (compiledFlow && compiledFlow.fieldAliases) || {};
    return own.indexOf(name) < 0 && core.has(aliases, name) && own.indexOf(aliases[name]) >= 0 ? aliases[name] : name;
  }

  /*
   * The values of the page's form `form` under the field names of the service's form it is sent as. A field the
   * page put in a form the flow does not give it (a customer's birthdate in registration) is not sent: it is
   * reported once, and the rest of the form goes through. A confirmation field the page lacks takes the value of
   * the field it confirms.
   */
  function serviceFields(form, values) {
    var entry = formEntry(form);
    if (!entry) return values;
    var own = entry.fields || [];
    var sent = {};
    for (var name in values) {
      if (!core.has(values, name)) continue;
      var target = serviceFieldName(form, name);
      if (own.indexOf(target) >= 0) sent[target] = values[name];
      else widget.jtl.report('{* ' + name + ' *} is not a field of form ' + form + ' in flow ' + compiledFlow.name + ' (not sent)');
    }
    // A hidden field carries the flow's value, always: not what its input holds (a profile filled from the record, a
    // page's script), and sent when the page leaves the field out too.
    for (var h = 0; h < own.length; h++) {
      var fixed = flowValue(own[h]);
      if (fixed !== undefined) sent[own[h]] = fixed;
    }
    // A confirmation the page does not ask for (a registration with one password field) is the value it confirms.
    var fields = compiledFlow.fields || {};
    for (var i = 0; i < own.length; i++) {
      var rules = (fields[own[i]] || {}).validation || [];
      for (var r = 0; r < rules.length; r++) {
        if (rules[r].rule === 'matches' && !core.has(sent, own[i]) && core.has(sent, rules[r].value)) {
          sent[own[i]] = sent[rules[r].value];
        }
      }
    }
    return sent;
  }

  /* A profile form's values with the fields the page does not show taken from the record, so saving part of the
   * profile (Janrain's editPersonalForm) leaves the rest as it is; a hidden field's is the flow's, never the record's
   * (a record holding another value, set by an earlier app or the API, is set right by the save). */
  function withRecordValues(form, values, serviceForm) {
    var attributes = (core.formSettings(serviceForm) || {}).attributes || {};
    var profile = core.storedProfile() || {};
    var own = (formEntry(form) || {}).fields || [];
    var complete = {};
    for (var i = 0; i < own.length; i++) {
      var name = own[i];
      var fixed = flowValue(name);
      if (fixed !== undefined) complete[name] = fixed;
      else if (core.has(values, name)) complete[name] = values[name];
      else if (core.has(attributes, name)) {
        var value = widget.screens.valueAt(profile, attributes[name]);
        if (value !== undefined && value !== null) complete[name] = String(value);
      }
    }
    return complete;
  }

  /* The first screen of the page, in its order, that Janrain's flows show a signed-in person; '' for none. */
  function pageSessionScreen() {
    var wanted = (compiledFlow && compiledFlow.sessionScreens) || [];
    var screens = document.querySelectorAll('[data-capturescreenname]');
    for (var i = 0; i < screens.length; i++) {
      var name = screens[i].getAttribute('data-capturescreenname');
      if (wanted.indexOf(name) >= 0) return name;
    }
    return '';
  }

  // ---------------------------------------------------------------- a form's next screen

  /* `rule` (a form's `next`, checked at import: JanrainNextRule) followed against `record`: a screen name, or null. */
  function follow(rule, record) {
    if (!rule || typeof rule !== 'object') return null;
    if (rule['if']) {
      var value = record ? record[rule['if'].compare] : undefined;
      var same = (value === undefined ? null : value) === rule['if'].to;
      return follow((rule['if'].withOperator === '!=' ? !same : same) ? rule.then : rule['else'], record);
    }
    return rule.render ? rule.render.screen : null;
  }

  /* The screen the page's own flow names after `formName` went through, when the page has it; else null. */
  function followNext(formName, record) {
    var forms = (compiledFlow && compiledFlow.forms) || {};
    var entry = core.has(forms, formName) ? forms[formName] : null;
    var screen = entry ? follow(entry.next, record) : null;
    return screen && widget.screens.screenExists(screen) ? screen : null;
  }

  widget.flow = {
    use: use,
    fieldNamed: fieldNamed,
    checkFields: checkFields,
    flowValue: flowValue,
    pageForm: pageForm,
    serviceFieldName: serviceFieldName,
    serviceFields: serviceFields,
    withRecordValues: withRecordValues,
    pageSessionScreen: pageSessionScreen,
    followNext: followNext
  };
})(window, document);
