// Publish and unpublish, with the deployment job followed live, and where each served
// version answers (API, reference page, OpenAPI).
import { html, Problem, Table, useAction, when } from '../ui.js';
import { AdviceList, useAccess } from './app-access.js';
import { useEffect, useState } from 'preact/hooks';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const DONE = new Set(['completed', 'succeeded', 'failed', 'cancelled']);

function Job({ job }) {
  const steps = job.metadata?.steps ?? job.metadata?.progress;
  return html`<li class=${`job ${job.status}`}>
    <span class="tag">${job.jobType}</span> <strong class="job-status">${job.status}</strong>
    <span class="hint"> ${when(job.startedAt)}${job.completedAt ? ` → ${when(job.completedAt)}` : ''}</span>
    ${Array.isArray(steps) ? html`<ol>${steps.map((s) => html`<li>${typeof s === 'string' ? s : (s.name ?? JSON.stringify(s))}</li>`)}</ol>` : null}
    ${job.errorMessage ? html`<div class="problem" role="alert">${job.errorMessage}</div>` : null}
  </li>`;
}

export function Publish({ api, app, readOnly, onChange }) {
  const [current, setCurrent] = useState(app);
  const [following, setFollowing] = useState(false);
  // The advice of the version about to be published, then the publish answer's.
  const access = useAccess(api, app);
  const [advice, setAdvice] = useState(null);
  const publish = useAction();
  const unpublish = useAction();
  useEffect(() => setCurrent(app), [app]);

  async function follow() {
    setFollowing(true);
    try {
      for (let i = 0; i < 600; i++) {
        const next = await api.get(`/applications/${app.id}`);
        setCurrent(next);
        const deployments = next.status.jobs.filter((j) => j.jobType === 'deployment');
        if (deployments.length > 0 && deployments.every((j) => DONE.has(j.status))) break;
        await sleep(400);
      }
    } finally {
      setFollowing(false);
      onChange();
    }
  }

  async function doPublish() {
    const done = await publish.run(() => api.post(`/applications/${app.id}/publish`, { serverVersion: app.serverVersion }));
    if (done) {
      setAdvice(done.advice ?? null);
      setCurrent(done);
      await follow();
    }
  }
  async function doUnpublish(version) {
    const done = await unpublish.run(() => api.post(`/applications/${app.id}/unpublish`, { serverVersion: version }));
    if (done) onChange();
  }

  const deployments = current.status.deployments ?? [];
  const jobs = [...(current.status.jobs ?? [])].slice(-8).reverse();
  return html`<h2>Publish</h2>
    ${readOnly
      ? null
      : html`<p><button type="button" onClick=${doPublish} disabled=${publish.busy || following}>
          ${following ? 'Publishing…' : `Publish v${app.serverVersion}`}</button></p>`}
    <${Problem} error=${publish.error ?? unpublish.error} />
    <section aria-label="Publish advice">
      <h3>Advice for v${app.serverVersion}</h3>
      <${AdviceList} advice=${advice ?? access.data?.advice} />
    </section>
    ${current.status.appUrl
      ? html`<p>The application's address (its own origin; browsers open it, and its HTML answers are served only there):
          <a href=${current.status.appUrl} target="_blank" rel="noopener" class="app-url">${current.status.appUrl}</a></p>`
      : null}
    <h3>Served versions</h3>
    <${Table}
      caption="Deployments"
      head=${['Version', 'State', 'Published', 'Health', 'Links', '']}
      rows=${deployments.map((d) => [
        `v${d.serverVersion}`,
        html`<span class=${`status ${d.state}`}>${d.state}</span>`,
        when(d.publishedAt),
        d.health ?? '—',
        d.apiUrl ? html`<a href=${d.docsUrl} target="_blank" rel="noopener">Reference</a> · <a href=${d.openapiUrl} target="_blank" rel="noopener">OpenAPI</a>` : '—',
        readOnly || d.state !== 'active' ? '' : html`<button type="button" class="small" onClick=${() => doUnpublish(d.serverVersion)}>Unpublish</button>`,
      ])}
      empty="Not published yet."
    />
    <h3>Jobs</h3>
    <ul class="jobs" aria-live="polite">${jobs.map((j) => html`<${Job} job=${j} />`)}</ul>`;
}
