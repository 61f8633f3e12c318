// Who may do what (the access matrix, by partial evaluation of the rules), rule templates that
// write the CEL for the rules editor, a "try as…" box that explains one request as an end user or
// nobody (run for real and rolled back), and the publish advice.
import { html, Field, Problem, Table, useAction, useLoad } from '../ui.js';
import { useState } from 'preact/hooks';

const CALLERS = [
  ['anonymous', 'Anonymous'],
  ['signedIn', 'Signed in'],
  ['owner', 'Owner'],
  ['admin', 'Admin'],
];

const cellText = (cell) => (cell === undefined ? '—' : typeof cell === 'string' ? cell : `when ${cell.when}`);
const cellClass = (cell) => (cell === 'always' ? 'tag allow' : cell === 'never' ? 'tag deny' : 'tag');

/** The field saying whose a record is: `id` on the user model, else a to-one relationship to it. */
export function ownerFieldOf(app, model) {
  if (model.id === app.scode.userModelId) return 'id';
  return model.fields.find((f) => f.to === app.scode.userModelId && f.max === 1)?.name ?? null;
}

/** The rule templates of a model: each the access control it writes (CEL for the builder). */
export function ruleTemplates(app, model) {
  const owner = ownerFieldOf(app, model);
  const control = (...rules) => ({ rules: rules.map(([access, criteria]) => ({ access, criteria })), defaultAccess: 'deny' });
  const templates = [];
  if (owner) templates.push(['Owner only', control(['allow', `auth != null && record.${owner} == auth.id`])]);
  templates.push(['Public read', control(['allow', "operation == 'read'"], ...(owner ? [['allow', `auth != null && record.${owner} == auth.id`]] : []))]);
  templates.push(['Signed-in read', control(['allow', "auth != null && operation == 'read'"], ...(owner ? [['allow', `auth != null && record.${owner} == auth.id`]] : []))]);
  templates.push(['Role-based', control(['allow', "auth != null && operation == 'read'"], ['allow', "auth != null && auth.role == 'admin'"])]);
  return templates;
}

export function Templates({ app, model, onPick, disabled }) {
  return html`<div class="templates" role="group" aria-label=${`Rule templates for ${model.name}`}>
    <span class="hint">Templates:</span>
    ${ruleTemplates(app, model).map(
      ([label, control]) => html`<button type="button" class="small secondary" disabled=${disabled} onClick=${() => onPick(JSON.stringify(control, null, 2))}>${label}</button>`,
    )}
  </div>`;
}

export function MatrixTable({ model }) {
  return html`<${Table}
    caption=${`Who may do what: ${model.model}${model.ownerField ? ` (owner: ${model.ownerField})` : ''}`}
    head=${['Operation', ...CALLERS.map(([, label]) => label)]}
    rows=${Object.entries(model.operations).map(([operation, cells]) => [
      operation,
      ...CALLERS.map(([key]) => html`<span class=${cellClass(cells[key])}>${cellText(cells[key])}</span>`),
    ])}
  />`;
}

export function AdviceList({ advice }) {
  if (!advice) return null;
  if (advice.length === 0) return html`<p class="hint advice-none">No advice: the rules let end users in and nothing looks unintended.</p>`;
  return html`<ul class="advice" aria-label="Advice">
    ${advice.map((a) => html`<li><span class="tag deny">${a.code}</span>${a.model ? html` <strong>${a.model}</strong>` : null} ${a.message}</li>`)}
  </ul>`;
}

/** The access matrix of the saved version (no data read). */
export function useAccess(api, app) {
  return useLoad(() => api.get(`/applications/${app.id}/access?version=${encodeURIComponent(app.serverVersion)}`), [app.id, app.serverVersion]);
}

function Check({ check }) {
  const values = Object.entries(check.values).map(([k, v]) => `${k} = ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ');
  return html`<li><span class=${check.result === true ? 'tag allow' : check.result === false ? 'tag deny' : 'tag'}>${String(check.result)}</span>
    ${check.model} ${check.operation} rule ${check.ruleIndex}: <code>${check.expression}</code>${values ? html` <span class="hint">(${values})</span>` : null}</li>`;
}

/** "Try as…": a request explained as an end user (their id) or anonymous, on the version served last. */
export function TryAs({ api, app }) {
  const [as, setAs] = useState('anonymous');
  const [method, setMethod] = useState('GET');
  const first = app.scode.models[0];
  const [path, setPath] = useState(first ? `/${first.name.charAt(0).toLowerCase()}${first.name.slice(1)}s` : '/');
  const [body, setBody] = useState('');
  const [answer, setAnswer] = useState(null);
  const run = useAction();
  async function submit(event) {
    event.preventDefault();
    const done = await run.run(async () => {
      let parsed;
      if (body.trim() !== '') {
        try {
          parsed = JSON.parse(body);
        } catch (e) {
          throw Object.assign(new Error('Not JSON'), { problem: { title: 'The body is not JSON.', detail: e.message } });
        }
      }
      const caller = as.trim() === '' || as.trim() === 'anonymous' ? 'anonymous' : { userId: as.trim() };
      return api.post(`/applications/${app.id}/explain`, { as: caller, request: { method, path, ...(parsed === undefined ? {} : { body: parsed }) } });
    });
    if (done) setAnswer(done);
  }
  return html`<form class="card try-as" onSubmit=${submit} aria-label="Try as">
    <h3>Try as…</h3>
    <p class="hint">Runs the request for real as that end user on the version served last, in a transaction rolled back: nothing is ever written.</p>
    <${Field} label="As (a user id, or anonymous)" name="as" value=${as} onInput=${setAs} />
    <${Field} label="Method" name="method" value=${method} options=${['GET', 'POST', 'PATCH', 'DELETE']} onInput=${setMethod} />
    <${Field} label="Path" name="path" value=${path} onInput=${setPath} />
    <${Field} label="Body (JSON)" name="body" type="textarea" value=${body} onInput=${setBody} />
    <button type="submit" class="small" disabled=${run.busy}>Explain</button>
    <${Problem} error=${run.error} />
    ${answer
      ? html`<div class="explanation" role="status">
          <p><strong class="decision">${answer.decision}</strong> · status ${answer.status} · rows ${answer.rows.visible} visible, ${answer.rows.hidden} hidden
            ${answer.fieldsHidden.length > 0 ? ` · fields hidden: ${answer.fieldsHidden.join(', ')}` : ''}</p>
          <ul class="checks">${answer.checks.map((c) => html`<${Check} check=${c} />`)}</ul>
        </div>`
      : null}
  </form>`;
}
