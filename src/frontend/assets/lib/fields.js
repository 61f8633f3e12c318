// Form inputs that follow field types, reading them back, and per-field errors.
import { h } from './dom.js';
import { api } from './api.js';
import { fileName, fromLocalInput, idOf, modelByResource, recordLabel, toLocalInput } from './model.js';

const RELATED_LIMIT = 200;
const inputId = (name) => `f-${name}`;
const errorId = (name) => `e-${name}`;

function requiredMark(field) {
  return field.required ? [' ', h('span', { class: 'required', 'aria-hidden': 'true' }, '*')] : [];
}

function enumOptions(field, value) {
  const options = field.required ? [] : [h('option', { value: '' }, '— none —')];
  if (field.required && (value === undefined || value === null)) options.push(h('option', { value: '', disabled: true, selected: true }, 'Choose…'));
  for (const v of field.enum) options.push(h('option', { value: String(v), selected: value !== undefined && value !== null && String(value) === String(v) }, String(v)));
  return options;
}

async function relationOptions(select, field, value, defaultId) {
  const target = modelByResource(field.ref);
  const selected = new Set((field.many ? value || [] : [value]).filter((v) => v !== null && v !== undefined).map(idOf));
  if (selected.size === 0 && defaultId) selected.add(defaultId);
  try {
    const page = await api.list(field.ref, { limit: RELATED_LIMIT, sort: target && target.titleField ? target.titleField : undefined });
    const options = page.items.map((item) => h('option', { value: item.id, selected: selected.has(item.id) }, recordLabel(target, item)));
    // A current value the caller cannot list still shows, so saving does not drop it.
    for (const id of selected) if (!page.items.some((item) => item.id === id)) options.push(h('option', { value: id, selected: true }, `#${String(id).slice(0, 8)}`));
    if (!field.many) options.unshift(h('option', { value: '', selected: selected.size === 0 }, field.required ? 'Choose…' : '— none —'));
    select.replaceChildren(...options);
  } catch (error) {
    select.replaceChildren(h('option', { value: '' }, `Could not load ${target ? target.plural : field.ref} (${error.message})`));
  }
}

function control(field, value, context) {
  const common = { id: inputId(field.name), name: field.name, required: field.required && field.input !== 'checkbox', 'aria-describedby': errorId(field.name) };
  switch (field.input) {
    case 'textarea':
      return h('textarea', { ...common, rows: 4, value: value ?? '' });
    case 'number':
      return h('input', { ...common, type: 'number', step: 'any', value: value ?? '' });
    case 'rating':
      return h('input', { ...common, type: 'number', min: 0, max: 5, step: 1, value: value ?? '' });
    case 'checkbox':
      return h('input', { ...common, type: 'checkbox', checked: Boolean(value) });
    case 'date':
      return h('input', { ...common, type: 'date', value: value ?? '' });
    case 'datetime':
      return h('input', { ...common, type: 'datetime-local', value: toLocalInput(value) });
    case 'time':
      return h('input', { ...common, type: 'time', value: value ? String(value).slice(0, 5) : '' });
    case 'url':
      return h('input', { ...common, type: field.type === 'p_LINK' ? 'url' : 'text', value: value ?? '', placeholder: 'https://…' });
    case 'file': {
      // The current value(s) are kept as they were read (URLs) unless a file is chosen: the API takes its own URLs back.
      const current = Array.isArray(value) ? value : value ? [value] : [];
      const accept = field.type === 'p_IMAGE' ? 'image/*' : field.type === 'p_VIDEO' ? 'video/*' : undefined;
      return h('input', { ...common, type: 'file', accept, multiple: field.many, required: common.required && current.length === 0, dataset: { current: JSON.stringify(current) } });
    }
    case 'tel':
      return h('input', { ...common, type: 'tel', value: value ?? '', placeholder: '+14155550123', pattern: '\\+[1-9][0-9]{1,14}' });
    case 'json':
      return h('textarea', { ...common, rows: 3, class: 'mono', value: value === undefined || value === null ? '' : JSON.stringify(value, null, 2) });
    case 'lines':
      return h('textarea', { ...common, rows: 3, value: Array.isArray(value) ? value.join('\n') : '' });
    case 'enum':
      return h('select', common, enumOptions(field, value));
    case 'relation': {
      const select = h('select', { ...common, multiple: field.many, size: field.many ? 5 : undefined }, h('option', { value: '' }, 'Loading…'));
      context.pending.push(relationOptions(select, field, value, context.defaultRelation(field)));
      return select;
    }
    default:
      return h('input', { ...common, type: /email/i.test(field.name) ? 'email' : 'text', autocomplete: /email/i.test(field.name) ? 'email' : undefined, value: value ?? '' });
  }
}

/** One labelled input with its error slot. `context`: {pending: Promise[], defaultRelation(field)}. */
export function fieldInput(field, value, context) {
  const error = h('p', { class: 'field-error', id: errorId(field.name) });
  if (field.input === 'currency') {
    const amount = h('input', { id: inputId(field.name), name: `${field.name}.amount`, type: 'number', step: 'any', required: field.required, value: value ? value.amount : '', 'aria-describedby': errorId(field.name) });
    const currency = h('input', { id: `${inputId(field.name)}-currency`, name: `${field.name}.currency`, maxLength: 3, size: 4, required: field.required, value: value ? value.currency : '', placeholder: 'EUR' });
    return h('fieldset', { class: 'field', dataset: { field: field.name } }, h('legend', {}, field.label, requiredMark(field)),
      h('label', { for: inputId(field.name) }, 'Amount'), amount, h('label', { for: `${inputId(field.name)}-currency` }, 'Currency (ISO code)'), currency, error);
  }
  const input = control(field, value, context);
  const hint = field.input === 'relation' && field.many ? h('p', { class: 'hint' }, 'Hold Ctrl (or Cmd) to select several.') : field.input === 'lines' ? h('p', { class: 'hint' }, 'One value per line.') : field.input === 'file' ? fileHint(field, value) : null;
  const label = h('label', { for: inputId(field.name) }, field.label, requiredMark(field), field.required ? h('span', { class: 'visually-hidden' }, ' (required)') : null);
  if (field.input === 'checkbox') return h('div', { class: 'field field-checkbox', dataset: { field: field.name } }, input, label, error);
  return h('div', { class: 'field', dataset: { field: field.name } }, label, input, hint, error);
}

function scalarFrom(field, text) {
  if (field.type === 'p_NUMBER') return Number(text);
  if (field.type === 'p_STAR_RATING') return parseInt(text, 10);
  if (field.enum) return field.enum.find((v) => String(v) === text) ?? text;
  return text;
}

/** The value of one field in a form, or `undefined` when empty. Throws {field, message} on bad input. */
function readField(form, field) {
  const el = form.elements.namedItem(field.name);
  switch (field.input) {
    case 'checkbox':
      return el.checked;
    case 'currency': {
      const amount = form.elements.namedItem(`${field.name}.amount`).value;
      const currency = form.elements.namedItem(`${field.name}.currency`).value.trim().toUpperCase();
      return amount === '' && currency === '' ? undefined : { amount: Number(amount), currency };
    }
    case 'relation':
      if (field.many) return [...el.selectedOptions].map((o) => o.value).filter(Boolean);
      return el.value || undefined;
    case 'datetime':
      return fromLocalInput(el.value) ?? undefined;
    case 'number':
    case 'rating':
    case 'enum':
      return el.value === '' ? undefined : scalarFrom(field, el.value);
    case 'lines': {
      const values = el.value.split('\n').map((s) => s.trim()).filter(Boolean);
      return values.length ? values.map((v) => scalarFrom(field, v)) : undefined;
    }
    case 'file': {
      const current = JSON.parse(el.dataset.current || '[]');
      const chosen = [...el.files];
      if (field.many) return current.length + chosen.length > 0 ? [...current, ...chosen] : undefined;
      return chosen[0] ?? current[0];
    }
    case 'json':
      if (el.value.trim() === '') return undefined;
      try {
        return JSON.parse(el.value);
      } catch {
        throw { field: field.name, message: 'is not valid JSON' };
      }
    default:
      return el.value === '' ? undefined : el.value;
  }
}

/** What a file input holds now and what choosing files does. */
function fileHint(field, value) {
  const current = (Array.isArray(value) ? value : value ? [value] : []).map(fileName);
  const now = current.length > 0 ? `Now: ${current.join(', ')}. ` : '';
  return h('p', { class: 'hint' }, now + (field.many ? 'Files you choose are added.' : current.length > 0 ? 'A file you choose replaces it.' : ''));
}

/** Uploads the Files a form's body holds (POST /files) and puts their keys in their place. */
export async function uploadFiles(body) {
  const keyOf = async (value) => (value instanceof File ? (await api.upload(value)).key : value);
  for (const [name, value] of Object.entries(body)) {
    body[name] = Array.isArray(value) ? await Promise.all(value.map(keyOf)) : await keyOf(value);
  }
}

/** The request body: on create, empty fields are left out; on update, they are cleared (null, or [] for to-many). */
export function readForm(form, fields, mode) {
  const body = {};
  const problems = [];
  for (const field of fields) {
    if (field.readOnly) continue;
    try {
      const value = readField(form, field);
      if (value !== undefined) body[field.name] = value;
      else if (mode === 'update') body[field.name] = field.many ? [] : null;
    } catch (problem) {
      problems.push({ path: `/${problem.field}`, message: problem.message });
    }
  }
  return { body, problems };
}

/** Shows each `errors[].path` next to its field; returns the messages no field took. */
export function showFieldErrors(form, errors) {
  for (const slot of form.querySelectorAll('.field-error')) slot.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const unplaced = [];
  let first = null;
  for (const { path, message } of errors) {
    const name = String(path || '').split('/')[1];
    const slot = name ? form.querySelector(`#${CSS.escape(errorId(name))}`) : null;
    if (!slot) {
      unplaced.push(path ? `${path}: ${message}` : message);
      continue;
    }
    slot.textContent = slot.textContent ? `${slot.textContent}; ${message}` : message;
    const input = form.querySelector(`#${CSS.escape(inputId(name))}`);
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      first ??= input;
    }
  }
  if (first) first.focus();
  return unplaced;
}
