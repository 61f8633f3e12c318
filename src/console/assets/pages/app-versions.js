// Versions, newest first, without their definitions (fields=), and what changed between two.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, useAction, useLoad, when } from '../ui.js';

export function Versions({ api, app, readOnly, onChange }) {
  const versions = useLoad(() => api.get(`/applications/${app.id}/versions?limit=50&fields=id,serverVersion,createdAt`), [app.id, app.serverVersion]);
  const items = versions.data?.items ?? [];
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const diff = useAction();
  const restore = useAction();
  const [changes, setChanges] = useState(null);
  const left = from || items[1]?.serverVersion || '';
  const right = to || items[0]?.serverVersion || '';

  async function compare(event) {
    event.preventDefault();
    const result = await diff.run(() => api.get(`/applications/${app.id}/versions/${left}/diff/${right}`));
    if (result) setChanges(result);
  }
  async function restoreVersion(version) {
    if (!confirm(`Save a new version whose definition equals ${version}?`)) return;
    const done = await restore.run(() => api.post(`/applications/${app.id}/versions/${version}/restore`));
    if (done) onChange();
  }

  if (versions.loading && !versions.data) return html`<${Loading} />`;
  const options = items.map((v) => v.serverVersion);
  return html`<h2>Versions</h2>
    <${Problem} error=${versions.error ?? restore.error} />
    <ol class="versions" aria-label="Versions, newest first">
      ${items.map((v) => html`<li><strong>v${v.serverVersion}</strong> <span class="hint">${when(v.createdAt)}</span>
        ${readOnly || v.serverVersion === app.serverVersion ? null : html` <button type="button" class="small" onClick=${() => restoreVersion(v.serverVersion)}>Restore</button>`}</li>`)}
    </ol>
    ${items.length > 1
      ? html`<form class="inline card" onSubmit=${compare} aria-label="Compare two versions">
          <${Field} label="From" name="from" value=${left} options=${options} onInput=${setFrom} />
          <${Field} label="To" name="to" value=${right} options=${options} onInput=${setTo} />
          <button type="submit" disabled=${diff.busy}>Show the changes</button>
        </form>`
      : null}
    <${Problem} error=${diff.error} />
    ${changes
      ? html`<section class="card diff" aria-label="Changes">
          <h3>From v${changes.from} to v${changes.to}</h3>
          ${changes.changes.length === 0
            ? html`<p>No changes.</p>`
            : html`<ul>${changes.changes.map((c) => html`<li class=${`change ${c.kind ?? c.op ?? ''}`}>${c.summary ?? c.description ?? JSON.stringify(c)}</li>`)}</ul>`}
        </section>`
      : null}`;
}
