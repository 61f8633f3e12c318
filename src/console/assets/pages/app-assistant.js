// The assistant (DESIGN §15): ask for a change in plain language; each reply's proposal is
// shown as the operations it would perform, with Apply (one change, one version) or Discard.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, useAction, useLoad, when } from '../ui.js';

function Operation({ op }) {
  const { op: kind, type, ...rest } = op;
  const name = kind ?? type ?? Object.keys(op)[0];
  return html`<li class="operation"><span class="tag add">${name}</span> <code>${JSON.stringify(kind || type ? rest : op[name])}</code></li>`;
}

function Proposal({ api, projectId, message, readOnly, onApplied, onChange }) {
  const apply = useAction();
  const discard = useAction();
  const p = message.proposal;
  if (!p) return null;
  return html`<div class=${`proposal ${p.status}`}>
    <p><strong>${p.summary}</strong> <span class="tag">${p.status}</span>${p.predictedVersion ? html` → v${p.predictedVersion}` : null}</p>
    ${p.operations?.length ? html`<ul class="diff" aria-label="Proposed changes">${p.operations.map((op) => html`<${Operation} op=${op} />`)}</ul>` : null}
    ${p.warnings?.length ? html`<ul class="warnings">${p.warnings.map((w) => html`<li>${typeof w === 'string' ? w : w.message}</li>`)}</ul>` : null}
    ${p.status === 'proposed' && !readOnly
      ? html`<p class="row-actions">
          <button type="button" disabled=${apply.busy} onClick=${async () => { if (await apply.run(() => api.post(`/projects/${projectId}/assistant/messages/${message.id}/apply`))) onApplied(); }}>Apply</button>
          <button type="button" class="secondary" disabled=${discard.busy} onClick=${async () => { if (await discard.run(() => api.post(`/projects/${projectId}/assistant/messages/${message.id}/discard`))) onChange(); }}>Discard</button>
        </p>`
      : null}
    <${Problem} error=${apply.error ?? discard.error} />
  </div>`;
}

export function Assistant({ api, app, projectId, readOnly, onChange }) {
  const messages = useLoad(() => api.get(`/projects/${projectId}/assistant/messages?applicationId=${app.id}&limit=100`), [app.id, app.serverVersion]);
  const [content, setContent] = useState('');
  const send = useAction();

  async function submit(event) {
    event.preventDefault();
    if (await send.run(() => api.post(`/projects/${projectId}/assistant/messages`, { content, applicationId: app.id }))) {
      setContent('');
      messages.reload();
    }
  }

  return html`<h2>Assistant</h2>
    <p class="hint">Ask for a change in plain words, e.g. “add a priority field to ToDo as a number”. Nothing changes until you apply a proposal.</p>
    <${Problem} error=${messages.error} />
    ${messages.loading && !messages.data
      ? html`<${Loading} />`
      : html`<ol class="chat" aria-label="Conversation" aria-live="polite">
          ${(messages.data?.items ?? []).map(
            (m) => html`<li class=${`message ${m.role}`}>
              <div class="meta">${m.role === 'assistant' ? 'Assistant' : 'You'} · ${when(m.createdAt)}</div>
              <p>${m.content}</p>
              ${m.role === 'assistant' ? html`<${Proposal} api=${api} projectId=${projectId} message=${m} readOnly=${readOnly} onApplied=${onChange} onChange=${messages.reload} />` : null}
            </li>`,
          )}
        </ol>`}
    ${readOnly
      ? null
      : html`<form onSubmit=${submit} aria-label="Ask the assistant">
          <${Field} label="Your request" name="request" type="textarea" value=${content} onInput=${setContent} required />
          <button type="submit" disabled=${send.busy}>${send.busy ? 'Asking…' : 'Ask'}</button>
          <${Problem} error=${send.error} />
        </form>`}`;
}
