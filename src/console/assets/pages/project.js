// One project: its applications, its documents and the specifications made from them, its
// Figma imports, its variables and secrets.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, Tabs, useAction, useLoad, when } from '../ui.js';
import { Documents } from './documents.js';
import { FigmaImports } from './figma.js';
import { Configuration } from './configuration.js';

export function Project({ api, projectId, tab, readOnly }) {
  const project = useLoad(() => api.get(`/projects/${projectId}`), [projectId]);
  const base = `#/projects/${projectId}`;
  const tabs = [
    { id: 'applications', label: 'Applications', href: `${base}/applications` },
    { id: 'documents', label: 'Documents', href: `${base}/documents` },
    { id: 'figma', label: 'Figma', href: `${base}/figma` },
    { id: 'settings', label: 'Variables & secrets', href: `${base}/settings` },
  ];
  const props = { api, projectId, readOnly };
  return html`<p class="crumbs"><a href="#/projects">Projects</a></p>
    <h1>${project.data?.name ?? 'Project'}</h1>
    <${Problem} error=${project.error} />
    <${Tabs} label="Project" tabs=${tabs} current=${tab} />
    <section class="tab-panel">
      ${tab === 'documents'
        ? html`<${Documents} ...${props} />`
        : tab === 'figma'
          ? html`<${FigmaImports} ...${props} />`
          : tab === 'settings'
            ? html`<${Configuration} api=${api} owner=${`/projects/${projectId}`} readOnly=${readOnly} />`
            : html`<${Applications} ...${props} />`}
    </section>`;
}

function Applications({ api, projectId, readOnly }) {
  const apps = useLoad(() => api.get(`/applications?projectId=${projectId}&limit=100`), [projectId]);
  const [definition, setDefinition] = useState('');
  const [name, setName] = useState('');
  const create = useAction();

  async function submit(event) {
    event.preventDefault();
    const app = await create.run(async () => {
      let scode;
      try {
        scode = JSON.parse(definition);
      } catch (e) {
        throw Object.assign(new Error('The definition is not JSON.'), { problem: { title: 'The definition is not JSON.', detail: e.message } });
      }
      return api.post('/applications', { projectId, ...(name.trim() ? { name: name.trim() } : {}), scode: scode.scode ?? scode });
    });
    if (app) location.hash = `#/projects/${projectId}/applications/${app.id}`;
  }

  return html`<h2>Applications</h2>
    <${Problem} error=${apps.error} />
    ${apps.loading && !apps.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption="Applications of the project"
          head=${['Name', 'Version', 'Published', 'Active']}
          rows=${(apps.data?.items ?? []).map((a) => [
            html`<a href=${`#/projects/${projectId}/applications/${a.id}`}>${a.name ?? a.scode?.appId ?? a.id}</a>`,
            a.serverVersion ?? '—',
            when(a.lastPublishedAt),
            a.isActive ? 'yes' : 'no',
          ])}
          empty="No applications yet: generate one from a document (Documents), or paste a definition below."
        />`}
    ${readOnly
      ? null
      : html`<details class="card">
          <summary>Create from a definition (JSON)</summary>
          <form onSubmit=${submit}>
            <${Field} label="Name" name="appName" value=${name} onInput=${setName} />
            <${Field} label="Definition (scode) as JSON" name="definition" type="textarea" value=${definition} onInput=${setDefinition} required />
            <${Problem} error=${create.error} />
            <button type="submit" disabled=${create.busy}>Create application</button>
          </form>
        </details>`}`;
}
