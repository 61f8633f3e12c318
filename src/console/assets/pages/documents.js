// Documents → specifications (DESIGN §13): upload an OpenAPI file, a SQL schema, a spreadsheet,
// a PRD…; generate a specification from some of them; review what it holds (each model with
// where it came from, and the warnings); apply it as a new application.
import { useState } from 'preact/hooks';
import { html, Loading, Problem, Table, useAction, useLoad, when, Field } from '../ui.js';
import { DropZone } from '../upload.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function Documents({ api, projectId, readOnly }) {
  const base = `/projects/${projectId}`;
  const attachments = useLoad(() => api.get(`${base}/attachments?limit=100`), [projectId]);
  const specifications = useLoad(() => api.get(`${base}/specifications?limit=20`), [projectId]);
  const [progress, setProgress] = useState(null);
  const [selected, setSelected] = useState(new Set());
  const [open, setOpen] = useState(null);
  const upload = useAction();
  const generate = useAction();

  async function onFile(file) {
    const attachment = await upload.run(() => api.upload(`${base}/attachments?name=${encodeURIComponent(file.name)}`, file, setProgress));
    setProgress(null);
    if (attachment) {
      setSelected(new Set([attachment.id]));
      attachments.reload();
    }
  }

  async function startGeneration() {
    const queued = await generate.run(() => api.post(`${base}/specifications`, { attachmentIds: [...selected] }));
    if (!queued) return;
    specifications.reload();
    // The job runs in the background: follow it until it is done.
    for (let i = 0; i < 600; i++) {
      const spec = await api.get(`${base}/specifications/${queued.id}`);
      if (spec.status === 'succeeded' || spec.status === 'failed') {
        setOpen(spec.id);
        break;
      }
      await sleep(500);
    }
    specifications.reload();
  }

  function toggle(id) {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  }

  return html`<h2>Documents</h2>
    ${readOnly ? null : html`<${DropZone} label="Upload a document" onFile=${onFile} progress=${progress} disabled=${upload.busy} />`}
    <${Problem} error=${upload.error ?? attachments.error} />
    ${attachments.loading && !attachments.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption="Uploaded documents"
          head=${['Use', 'Name', 'Kind', 'Size', 'Uploaded']}
          rows=${(attachments.data?.items ?? []).map((a) => [
            html`<input type="checkbox" aria-label=${`Use ${a.name}`} checked=${selected.has(a.id)} disabled=${readOnly} onChange=${() => toggle(a.id)} />`,
            a.name,
            a.kind ?? a.contentType ?? '—',
            a.size !== undefined ? `${(a.size / 1024).toFixed(1)} KB` : '—',
            when(a.createdAt),
          ])}
          empty="No documents yet."
        />`}
    ${readOnly
      ? null
      : html`<p><button type="button" disabled=${selected.size === 0 || generate.busy} onClick=${startGeneration}>
          ${generate.busy ? 'Generating the specification…' : 'Generate a specification'}</button></p>`}
    <${Problem} error=${generate.error} />
    <h2>Specifications</h2>
    <${Problem} error=${specifications.error} />
    <${Table}
      caption="Specifications of the project"
      head=${['Name', 'Status', 'Created', '']}
      rows=${(specifications.data?.items ?? []).map((s) => [
        s.name,
        html`<span class=${`status ${s.status}`}>${s.status}</span>`,
        when(s.createdAt),
        html`<button type="button" class="small" onClick=${() => setOpen(open === s.id ? null : s.id)} aria-expanded=${open === s.id}>${open === s.id ? 'Close' : 'Review'}</button>`,
      ])}
      empty="No specifications yet."
    />
    ${open ? html`<${Specification} api=${api} projectId=${projectId} specificationId=${open} readOnly=${readOnly} />` : null}`;
}

function Specification({ api, projectId, specificationId, readOnly }) {
  const spec = useLoad(() => api.get(`/projects/${projectId}/specifications/${specificationId}`), [specificationId]);
  const [name, setName] = useState('');
  const apply = useAction();
  if (spec.loading && !spec.data) return html`<${Loading} />`;
  if (spec.error) return html`<${Problem} error=${spec.error} />`;
  const s = spec.data;
  const models = s.content?.models ?? [];
  const provenance = s.provenance ?? {};

  async function applyIt(event) {
    event.preventDefault();
    const app = await apply.run(() => api.post(`/projects/${projectId}/specifications/${specificationId}/apply`, name.trim() ? { name: name.trim() } : {}));
    if (app) location.hash = `#/projects/${projectId}/applications/${app.id}`;
  }

  return html`<section class="card" aria-labelledby="spec-title">
    <h3 id="spec-title">Specification “${s.name}”</h3>
    ${s.status === 'failed' ? html`<div class="problem" role="alert">${s.errorMessage}</div>` : null}
    ${s.summary
      ? html`<p>${s.summary.models} models, ${s.summary.fields} fields, ${s.summary.relationships} relationships, ${s.summary.actions} actions, ${s.summary.triggers} triggers.</p>`
      : null}
    ${models.map((m, i) => {
      const from = provenance[`/models/${i}`];
      const warnings = (s.warnings ?? []).filter((w) => w.path?.startsWith(`/models/${i}`));
      return html`<div class="model-review">
        <h4>${m.name}</h4>
        ${from ? html`<p class="provenance">From <code>${from.locator}</code></p>` : null}
        <p class="fields">${(m.fields ?? []).map((f) => f.name).join(', ')}</p>
        ${warnings.length > 0 ? html`<ul class="warnings">${warnings.map((w) => html`<li>${w.message}</li>`)}</ul>` : null}
      </div>`;
    })}
    ${(s.warnings ?? []).filter((w) => !w.path?.startsWith('/models/')).length > 0
      ? html`<h4>Warnings</h4><ul class="warnings">${s.warnings.filter((w) => !w.path?.startsWith('/models/')).map((w) => html`<li>${w.message}${w.locator ? html` <code>${w.locator}</code>` : null}</li>`)}</ul>`
      : null}
    ${s.status === 'succeeded' && !readOnly
      ? html`<form class="inline" onSubmit=${applyIt}>
          <${Field} label="Application name" name="specAppName" value=${name} onInput=${setName} placeholder=${s.name} />
          <button type="submit" disabled=${apply.busy}>Apply as a new application</button>
        </form>`
      : null}
    <${Problem} error=${apply.error} />
  </section>`;
}
