/*
 * capture-controls.js — the choice controls of a customer's own page (the drop-in's JTL, capture-jtl.js, renders
 * fields with them), with Janrain's classes: a select; a radio collection
 * (capture_form_collection, the chosen item capture_toggled); Janrain's date select, month, day and year as three
 * selects (capture_dateselect_month, _day, _year) with the date they make (YYYY-MM-DD) in the hidden input the form
 * sends under the field's name.
 */
(function (window, document) {
  'use strict';

  var widget = window.janrain.capture._widget;
  var core = widget.core;

  /* A select of the flow's options. */
  function selectHTML(common, name, options) {
    var html = '';
    for (var i = 0; i < options.length; i++) {
      html += '<option' + widget.jtl.htmlAttributes({ value: options[i].value }) + '>'
        + widget.jtl.escapeHTML(options[i].label) + '</option>';
    }
    common['class'] = 'capture_' + name + ' capture_select';
    return '<select' + widget.jtl.htmlAttributes(common) + '>' + html + '</select>';
  }

  /* A radio collection of the flow's options, named by the field's label (its id: `<control id>_label`). */
  function radioHTML(common, name, options) {
    var html = '';
    for (var i = 0; i < options.length; i++) {
      var id = common.id + '_' + i;
      html += '<div class="capture_form_collection_elem"><label for="' + widget.jtl.escapeHTML(id) + '"><input'
        + widget.jtl.htmlAttributes({ type: 'radio', id: id, name: name, value: options[i].value, 'data-capturefield': name,
          required: common.required, 'class': 'capture_' + name + ' capture_input_radio' })
        + '> ' + widget.jtl.escapeHTML(options[i].label) + '</label></div>';
    }
    return '<div' + widget.jtl.htmlAttributes({ id: common.id, role: 'radiogroup', 'aria-labelledby': common.id + '_label',
      'aria-describedby': common['aria-describedby'], 'class': 'capture_form_collection capture_form_collection_' + name
    }) + '>' + html + '</div>';
  }

  /*
   * The three selects, grouped under the field's label; the date they make (YYYY-MM-DD, or nothing until all three
   * are chosen) is the hidden input. `syncDateSelects` shows a value set on that input (a profile's).
   */
  function dateSelectHTML(common, name) {
    var id = common.id;
    var locale = (window.janrain.settings && window.janrain.settings.language) || undefined;
    var monthName = function (month) {
      try {
        return new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' })
          .format(new Date(Date.UTC(2000, month - 1, 1)));
      } catch (error) { return String(month); }
    };
    var year = new Date().getFullYear();
    var parts = {
      month: { label: core.t('widget.dateMonth'), from: 1, to: 12, name: monthName },
      day: { label: core.t('widget.dateDay'), from: 1, to: 31 },
      year: { label: core.t('widget.dateYear'), from: year, to: year - 120 }
    };
    var html = '<input' + widget.jtl.htmlAttributes({ type: 'hidden', id: id, name: name, 'data-capturefield': name,
      'data-capture-dateselect': true }) + '><span role="group"' + widget.jtl.htmlAttributes({ 'aria-labelledby': id + '_label',
      'aria-describedby': common['aria-describedby'], 'class': 'capture_dateselect' }) + '>';
    ['month', 'day', 'year'].forEach(function (part) {
      var spec = parts[part];
      var options = '<option value="">' + widget.jtl.escapeHTML(spec.label) + '</option>';
      var step = spec.to >= spec.from ? 1 : -1;
      for (var value = spec.from; value !== spec.to + step; value += step) {
        options += '<option value="' + value + '">' + widget.jtl.escapeHTML(spec.name ? spec.name(value) : String(value))
          + '</option>';
      }
      html += '<select' + widget.jtl.htmlAttributes({ id: id + '_dateselect_' + part, 'aria-label': spec.label,
        'data-capture-datepart': part, required: common.required, 'class': 'capture_dateselect_' + part
        + ' capture_select' }) + '>' + options + '</select>';
    });
    return html + '</span>';
  }

  function pad(value) { return (value < 10 ? '0' : '') + value; }

  /* The date the three selects of `input`'s field make, into the input. */
  function dateFromSelects(input) {
    var value = {};
    ['year', 'month', 'day'].forEach(function (part) {
      var select = document.getElementById(input.id + '_dateselect_' + part);
      value[part] = select ? Number(select.value) : 0;
    });
    input.value = value.year && value.month && value.day
      ? value.year + '-' + pad(value.month) + '-' + pad(value.day) : '';
  }

  /* The selects of each date select under `root` showing its input's value (a profile's date). */
  function syncDateSelects(root) {
    var inputs = root.querySelectorAll('input[data-capture-dateselect]');
    for (var i = 0; i < inputs.length; i++) {
      var match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(inputs[i].value || '');
      var parts = { year: match ? String(Number(match[1])) : '', month: match ? String(Number(match[2])) : '',
        day: match ? String(Number(match[3])) : '' };
      for (var part in parts) {
        var select = document.getElementById(inputs[i].id + '_dateselect_' + part);
        if (select) select.value = parts[part];
      }
    }
  }

  /* The chosen radio's item capture_toggled, its siblings not. */
  function toggleRadios(radio) {
    var group = radio.form ? radio.form.querySelectorAll('input[type=radio][name="' + radio.name + '"]') : [radio];
    for (var i = 0; i < group.length; i++) {
      var item = group[i].parentNode && group[i].parentNode.parentNode;
      if (item) item.className = item.className.replace(/\s*capture_toggled/g, '') + (group[i].checked ? ' capture_toggled' : '');
    }
  }

  document.addEventListener('change', function (event) {
    var target = event.target;
    if (target && target.type === 'radio' && / capture_input_radio/.test(' ' + target.className)) toggleRadios(target);
    if (!target || !target.getAttribute || !target.getAttribute('data-capture-datepart')) return;
    var input = document.getElementById(target.id.replace(/_dateselect_(day|month|year)$/, ''));
    if (input) dateFromSelects(input);
  });

  widget.controls = {
    selectHTML: selectHTML,
    radioHTML: radioHTML,
    dateSelectHTML: dateSelectHTML,
    syncDateSelects: syncDateSelects
  };
})(window, document);
