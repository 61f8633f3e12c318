// Models and their fields as an editable table, and each model's access rules. Each save is one
// PATCH of the management API; a 400/409 problem is shown at the field it names.
import { useState } from 'preact/hooks';
import { Field, html, messagesAt, Problem, useAction } from '../ui.js';
import { AdviceList, MatrixTable, Templates, TryAs, useAccess } from './app-access.js';
import { UniqueIndexes } from './model-indexes.js';
import { ModelsOverview } from './models-overview.js';
import { TYPE_LABELS } from '../types.js';

function typeOptions(app) {
  return [...Object.entries(TYPE_LABELS).map(([value, label]) => ({ value, label })), ...app.scode.models.map((m) => ({ value: m.id, label: `→ ${m.name}` }))];
}

/** The messages of `error` about one member of a field, whatever the prefix of their paths. */
function at(error, member) {
  const errors = error?.problem?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.filter((e) => typeof e.path === 'string' && (e.path === `/${member}` || e.path.endsWith(`/${member}`))).map((e) => e.message);
}

function FieldRow({ api, app, model, field, readOnly, onChange }) {
  const [draft, setDraft] = useState({ name: field.name, to: field.to, min: field.min, max: field.max ?? '' });
  const save = useAction();
  const changed = draft.name !== field.name || draft.to !== field.to || Number(draft.min) !== field.min || String(draft.max) !== String(field.max ?? '');
  async function submit(event) {
    event.preventDefault();
    const body = {};
    if (draft.name !== field.name) body.name = draft.name;
    if (draft.to !== field.to) body.to = draft.to;
    if (Number(draft.min) !== field.min) body.min = Number(draft.min);
    if (String(draft.max) !== String(field.max ?? '')) body.max = draft.max === '' ? null : Number(draft.max);
    const done = await save.run(() => api.patch(`/applications/${app.id}/models/${encodeURIComponent(model.id)}/fields/${encodeURIComponent(field.id)}`, body));
    if (done) onChange();
  }
  const rest = (save.error?.problem?.errors ?? []).filter((e) => !['name', 'to', 'min', 'max'].some((m) => String(e.path).endsWith(`/${m}`)));
  return html`<form class="field-row" onSubmit=${submit} aria-label=${`Field ${field.name} of ${model.name}`}>
    <fieldset disabled=${readOnly}>
      <${Field} label="Name" name="name" value=${draft.name} onInput=${(v) => setDraft({ ...draft, name: v })} errors=${at(save.error, 'name')} />
      <${Field} label="Type" name="to" value=${draft.to} options=${typeOptions(app)} onInput=${(v) => setDraft({ ...draft, to: v })} errors=${at(save.error, 'to')} />
      <${Field} label="Min" name="min" type="number" value=${draft.min} onInput=${(v) => setDraft({ ...draft, min: v })} errors=${at(save.error, 'min')} />
      <${Field} label="Max (empty: many)" name="max" type="number" value=${draft.max} onInput=${(v) => setDraft({ ...draft, max: v })} errors=${at(save.error, 'max')} />
      ${readOnly ? null : html`<button type="submit" class="small" disabled=${!changed || save.busy}>Save</button>`}
    </fieldset>
    ${save.error && (rest.length > 0 || !save.error.problem?.errors) ? html`<${Problem} error=${save.error} />` : null}
  </form>`;
}

function NewField({ api, app, model, onChange }) {
  const [name, setName] = useState('');
  const [to, setTo] = useState('p_TEXT');
  const add = useAction();
  async function submit(event) {
    event.preventDefault();
    const slug = name.trim().replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
    const id = `urn:svc:edge:${model.name.toLowerCase()}-${slug}-${Date.now().toString(36)}`;
    const done = await add.run(() => api.post(`/applications/${app.id}/models/${encodeURIComponent(model.id)}/fields`, { id, name: name.trim(), to, min: 0, max: 1, relationshipOwner: true, accessControl: { rules: [] } }));
    if (done) {
      setName('');
      onChange();
    }
  }
  return html`<form class="inline" onSubmit=${submit} aria-label=${`Add a field to ${model.name}`}>
    <${Field} label="New field" name="newField" value=${name} onInput=${setName} required errors=${at(add.error, 'name')} />
    <${Field} label="Type" name="newFieldType" value=${to} options=${typeOptions(app)} onInput=${setTo} />
    <button type="submit" class="small" disabled=${add.busy}>Add field</button>
    ${add.error && at(add.error, 'name').length === 0 ? html`<${Problem} error=${add.error} />` : null}
  </form>`;
}

/** The overview of every model, and below it the editor of the one picked there (the first at first). */
export function Models({ api, app, readOnly, onChange }) {
  const [picked, setPicked] = useState(null);
  const model = app.scode.models.find((m) => m.id === picked) ?? app.scode.models[0];
  return html`<h2>Models</h2>
    <${ModelsOverview} app=${app} current=${model?.id} onPick=${setPicked} />
    ${model
      ? html`<section class="card model" id="model-editor" tabindex="-1" aria-label=${`Model ${model.name}`}>
          <h3>${model.name} ${model.id === app.scode.userModelId ? html`<span class="tag">users</span>` : null}</h3>
          ${model.fields.map((field) => html`<${FieldRow} key=${`${field.id}@${app.serverVersion}`} api=${api} app=${app} model=${model} field=${field} readOnly=${readOnly} onChange=${onChange} />`)}
          ${readOnly ? null : html`<${NewField} key=${model.id} api=${api} app=${app} model=${model} onChange=${onChange} />`}
          <${UniqueIndexes} key=${`${model.id}@${app.serverVersion}`} api=${api} app=${app} model=${model} readOnly=${readOnly} onChange=${onChange} />
        </section>`
      : html`<p class="empty">No models yet.</p>`}`;
}

function RuleEditor({ api, app, model, matrix, readOnly, onChange }) {
  const [text, setText] = useState(JSON.stringify(model.accessControl, null, 2));
  const save = useAction();
  async function submit(event) {
    event.preventDefault();
    const done = await save.run(async () => {
      let accessControl;
      try {
        accessControl = JSON.parse(text);
      } catch (e) {
        throw Object.assign(new Error('Not JSON'), { problem: { title: 'The rules are not JSON.', detail: e.message } });
      }
      return api.patch(`/applications/${app.id}/models/${encodeURIComponent(model.id)}`, { accessControl });
    });
    if (done) onChange();
  }
  return html`<form class="card" onSubmit=${submit} aria-label=${`Access rules of ${model.name}`}>
    <h3>${model.name}</h3>
    <ul class="rules">
      ${model.accessControl.rules.map((r) => html`<li><span class=${`tag ${r.access}`}>${r.access}</span>${r.operations ? ` ${r.operations.join(', ')}` : ''} when <code>${r.criteria}</code></li>`)}
      <li>otherwise <span class="tag">${model.accessControl.defaultAccess ?? 'deny'}</span></li>
    </ul>
    ${matrix ? html`<${MatrixTable} model=${matrix} />` : null}
    <fieldset disabled=${readOnly}>
      ${readOnly ? null : html`<${Templates} app=${app} model=${model} onPick=${setText} />`}
      <${Field} label=${`Rules of ${model.name} (JSON)`} name="rules" type="textarea" value=${text} onInput=${setText} errors=${messagesAt(save.error, '/accessControl')} />
      ${readOnly ? null : html`<button type="submit" class="small" disabled=${save.busy}>Save rules</button>`}
    </fieldset>
    ${save.error && messagesAt(save.error, '/accessControl').length === 0 ? html`<${Problem} error=${save.error} />` : null}
  </form>`;
}

export function Rules({ api, app, readOnly, onChange }) {
  const access = useAccess(api, app);
  const matrixOf = (model) => access.data?.models.find((m) => m.model === model.name);
  return html`<h2>Access rules</h2>
    <p class="hint">Rules are CEL expressions over <code>auth</code> (the signed-in user) and <code>record</code>; they run inside the SQL of every read and write.
      Beside each model: who may do what under the saved rules (anonymous, signed in, on their own records, administrators).</p>
    <div class="rules-layout">
      <div>
        ${app.scode.models.map((model) => html`<${RuleEditor} key=${`${model.id}@${app.serverVersion}`} api=${api} app=${app} model=${model} matrix=${matrixOf(model)} readOnly=${readOnly} onChange=${onChange} />`)}
      </div>
      <aside aria-label="Check the rules">
        <h3>Advice</h3>
        <${AdviceList} advice=${access.data?.advice} />
        <${TryAs} api=${api} app=${app} />
      </aside>
    </div>`;
}
