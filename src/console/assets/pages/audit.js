// The audit log: the customer's management writes, newest first.
import { useState } from 'preact/hooks';
import { html, Loading, Problem, Table, useLoad, when } from '../ui.js';

export function Audit({ api }) {
  const [offset, setOffset] = useState(0);
  const events = useLoad(() => api.get(`/audit-events?limit=50&offset=${offset}`), [offset]);
  const total = events.data?.metadata?.total ?? 0;
  return html`<h1>Audit log</h1>
    <${Problem} error=${events.error} />
    ${events.loading && !events.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption=${`${total} writes`}
          head=${['When', 'Who', 'Operation', 'Route', 'Status']}
          rows=${(events.data?.items ?? []).map((e) => [when(e.createdAt ?? e.at), `${e.actor.type} ${e.actor.id.slice(0, 8)}`, e.operationId ?? '—', `${e.method} ${e.path}`, String(e.status)])}
          empty="No writes yet."
        />`}
    <nav class="pager" aria-label="Pages">
      <button type="button" class="small" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - 50))}>Newer</button>
      <button type="button" class="small" disabled=${offset + 50 >= total} onClick=${() => setOffset(offset + 50)}>Older</button>
    </nav>`;
}
