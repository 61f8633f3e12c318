// Projects: list, create, delete.
import { useState } from 'preact/hooks';
import { Field, html, Loading, Problem, Table, useAction, useLoad } from '../ui.js';

export function Projects({ api, readOnly }) {
  const projects = useLoad(() => api.get('/projects?limit=100'), []);
  const [name, setName] = useState('');
  const create = useAction();
  const remove = useAction();

  async function submit(event) {
    event.preventDefault();
    const project = await create.run(() => api.post('/projects', { name: name.trim() }));
    if (project) {
      setName('');
      location.hash = `#/projects/${project.id}`;
    }
  }

  async function drop(project) {
    if (!confirm(`Delete the project “${project.name}” with its applications and their data?`)) return;
    await remove.run(() => api.delete(`/projects/${project.id}`));
    projects.reload();
  }

  return html`<h1>Projects</h1>
    ${readOnly
      ? null
      : html`<form class="inline card" onSubmit=${submit} aria-label="New project">
          <${Field} label="New project name" name="projectName" value=${name} onInput=${setName} required errors=${create.error ? [create.error.problem?.title ?? ''] : []} />
          <button type="submit" disabled=${create.busy}>Create project</button>
        </form>`}
    <${Problem} error=${projects.error ?? remove.error} />
    ${projects.loading && !projects.data
      ? html`<${Loading} />`
      : html`<${Table}
          caption=${`${projects.data?.metadata?.total ?? 0} projects`}
          head=${['Name', 'Created', '']}
          rows=${(projects.data?.items ?? []).map((p) => [
            html`<a href=${`#/projects/${p.id}`}>${p.name}</a>`,
            p.createdAt ? new Date(p.createdAt).toLocaleDateString() : '',
            readOnly ? '' : html`<button type="button" class="danger small" onClick=${() => drop(p)} aria-label=${`Delete project ${p.name}`}>Delete</button>`,
          ])}
          empty="No projects yet: create one above."
        />`}`;
}
