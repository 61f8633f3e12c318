// Runs of the application's actions, newest first; one run's steps with their inputs,
// outputs and durations.
import { useState } from 'preact/hooks';
import { html, Loading, Problem, Table, useLoad, when } from '../ui.js';

function json(value) {
  return value === undefined ? '—' : html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}

function Run({ api, app, runId }) {
  const run = useLoad(() => api.get(`/applications/${app.id}/runs/${runId}`), [runId]);
  if (run.loading && !run.data) return html`<${Loading} />`;
  if (run.error) return html`<${Problem} error=${run.error} />`;
  const r = run.data;
  return html`<section class="card" aria-label="Run">
    <h3>Run of <code>${r.actionId}</code> — ${r.status ?? (r.error ? 'failed' : 'succeeded')} in ${r.durationMs} ms</h3>
    <h4>Input</h4>${json(r.input ?? r.initialState)}
    <${Table}
      caption="Steps"
      head=${['Effect', 'Kind', 'Duration', 'Output']}
      rows=${r.steps.map((s) => [html`<code>${s.actionEffectId}</code>`, s.effect, `${s.durationMs} ms`, s.error ? html`<span class="problem">${s.error.message}</span>` : json(s.output)])}
    />
    <h4>Result</h4>${json(r.result)}
  </section>`;
}

export function Runs({ api, app }) {
  const runs = useLoad(() => api.get(`/applications/${app.id}/runs?limit=50`), [app.id]);
  const [open, setOpen] = useState(null);
  if (runs.loading && !runs.data) return html`<${Loading} />`;
  return html`<h2>Runs</h2>
    <${Problem} error=${runs.error} />
    <${Table}
      caption="Runs, newest first"
      head=${['Action', 'Version', 'Status', 'Started', 'Duration', '']}
      rows=${(runs.data?.items ?? []).map((r) => [
        html`<code>${r.actionId}</code>`,
        r.serverVersion,
        r.status ?? (r.error ? 'failed' : 'succeeded'),
        when(r.startedAt),
        `${r.durationMs} ms`,
        html`<button type="button" class="small" onClick=${() => setOpen(open === r.id ? null : r.id)} aria-expanded=${open === r.id}>${open === r.id ? 'Close' : 'Steps'}</button>`,
      ])}
      empty="No runs yet."
    />
    ${open ? html`<${Run} api=${api} app=${app} runId=${open} />` : null}`;
}
