// One record: detail page with related records, create/edit form, delete with confirmation.
import { h, loading, notify, render } from './dom.js';
import { api, session } from './api.js';
import { displayValue, modelByResource, recordLabel } from './model.js';
import { fieldInput, readForm, showFieldErrors, uploadFiles } from './fields.js';
import { problemMessage, reportError } from './problems.js';
import { SCHEMA } from '../schema.js';

const recordHref = (model, id) => `#/${model.resource}/${encodeURIComponent(id)}`;

function failed(title, error) {
  render(h('h1', {}, title), h('p', { class: 'message message-error', role: 'alert' }, problemMessage(error)));
}

/** Asks before deleting, in a modal dialog; resolves to true when confirmed. */
function confirmDialog(text) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, 'Please confirm'), h('p', {}, text));
    const close = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel');
    dialog.append(h('div', { class: 'row' }, h('button', { type: 'button', class: 'danger', onclick: () => close(true) }, 'Delete'), cancel));
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); close(false); });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

export async function deleteRecord(model, record) {
  if (!(await confirmDialog(`Delete ${model.label.toLowerCase()} “${recordLabel(model, record)}”? This cannot be undone.`))) return;
  try {
    await api.remove(model.resource, record.id);
    notify(`${model.label} deleted.`, 'success', { keep: true });
    location.hash = `#/${model.resource}`;
  } catch (error) {
    reportError(error);
  }
}

export async function renderDetail(model, id) {
  render(h('h1', {}, model.label), loading());
  let record;
  try {
    record = await api.get(model.resource, id);
  } catch (error) {
    failed(model.label, error);
    return;
  }
  const scalars = model.fields.filter((f) => !(f.input === 'relation' && f.many));
  const related = model.fields.filter((f) => f.input === 'relation' && f.many);
  render(
    h('p', { class: 'crumbs' }, h('a', { href: `#/${model.resource}` }, `← ${model.plural}`)),
    h('h1', {}, recordLabel(model, record)),
    h('dl', { class: 'details' }, scalars.map((f) => [h('dt', {}, f.label), h('dd', { dataset: { field: f.name } }, displayValue(f, record[f.name]))])),
    related.map((f) => {
      const target = modelByResource(f.ref);
      return h('section', { class: 'related-section', 'aria-labelledby': `rel-${f.name}` },
        h('h2', { id: `rel-${f.name}` }, f.label, ` (${(record[f.name] || []).length})`),
        displayValue(f, record[f.name]),
        target ? h('p', {}, h('a', { href: `#/${target.resource}/new` }, `New ${target.label.toLowerCase()}`)) : null);
    }),
    h('div', { class: 'row actions' },
      h('a', { class: 'button', href: `${recordHref(model, id)}/edit` }, 'Edit'),
      h('button', { type: 'button', class: 'danger', onclick: () => deleteRecord(model, record) }, 'Delete')),
  );
}

/** On create, a relationship to the user model starts at the signed-in user. */
function defaultRelation(field) {
  const user = session.user;
  return SCHEMA.auth && user && field.ref === SCHEMA.auth.userResource && !field.many ? user.id : null;
}

export async function renderForm(model, id) {
  const mode = id ? 'update' : 'create';
  const title = id ? `Edit ${model.label.toLowerCase()}` : `New ${model.label.toLowerCase()}`;
  render(h('h1', {}, title), loading());
  let record = {};
  if (id) {
    try {
      record = await api.get(model.resource, id);
    } catch (error) {
      failed(title, error);
      return;
    }
  }
  const fields = model.fields.filter((f) => !f.readOnly);
  const context = { pending: [], defaultRelation: id ? () => null : defaultRelation };
  const inputs = fields.map((f) => fieldInput(f, id ? record[f.name] : f.default, context));
  const submit = h('button', { type: 'submit' }, id ? 'Save changes' : `Create ${model.label.toLowerCase()}`);
  const form = h('form', { class: 'record-form', novalidate: false }, h('p', { class: 'hint' }, 'Fields marked * are required.'), inputs,
    h('div', { class: 'row actions' }, submit, h('a', { class: 'button secondary', href: id ? recordHref(model, id) : `#/${model.resource}` }, 'Cancel')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { body, problems } = readForm(form, fields, mode);
    if (problems.length > 0) {
      showFieldErrors(form, problems);
      notify('Please correct the highlighted fields.', 'error');
      return;
    }
    submit.disabled = true;
    try {
      await uploadFiles(body);
      const saved = id ? await api.update(model.resource, id, body) : await api.create(model.resource, body);
      notify(id ? `${model.label} saved.` : `${model.label} created.`, 'success', { keep: true });
      location.hash = recordHref(model, saved.id || id);
    } catch (error) {
      reportError(error, form);
    } finally {
      submit.disabled = false;
    }
  });
  render(h('p', { class: 'crumbs' }, h('a', { href: id ? recordHref(model, id) : `#/${model.resource}` }, '← Back')), h('h1', {}, title), form);
  await Promise.all(context.pending);
}
