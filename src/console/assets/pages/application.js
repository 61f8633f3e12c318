// One application: its definition (models and fields, rules, actions, triggers), versions,
// publishing, runs, data, the assistant and its variables and secrets — one tab each.
import { html, Loading, Problem, Tabs, useLoad } from '../ui.js';
import { Models, Rules } from './app-models.js';
import { Actions, Triggers } from './app-actions.js';
import { Versions } from './app-versions.js';
import { Publish } from './app-publish.js';
import { Runs } from './app-runs.js';
import { Data } from './app-data.js';
import { Assistant } from './app-assistant.js';
import { Configuration } from './configuration.js';

const TABS = [
  ['models', 'Models'],
  ['rules', 'Access rules'],
  ['actions', 'Actions'],
  ['triggers', 'Triggers'],
  ['versions', 'Versions'],
  ['publish', 'Publish'],
  ['runs', 'Runs'],
  ['data', 'Data'],
  ['assistant', 'Assistant'],
  ['settings', 'Variables & secrets'],
];

const PANELS = { models: Models, rules: Rules, actions: Actions, triggers: Triggers, versions: Versions, publish: Publish, runs: Runs, data: Data, assistant: Assistant };

export function Application({ api, projectId, applicationId, tab, readOnly }) {
  const app = useLoad(() => api.get(`/applications/${applicationId}`), [applicationId]);
  const base = `#/projects/${projectId}/applications/${applicationId}`;
  const tabs = TABS.map(([id, label]) => ({ id, label, href: `${base}/${id}` }));
  if (app.loading && !app.data) return html`<${Loading} />`;
  if (app.error) return html`<${Problem} error=${app.error} />`;
  const a = app.data;
  const Panel = PANELS[tab];
  return html`<p class="crumbs"><a href="#/projects">Projects</a> / <a href=${`#/projects/${projectId}`}>Project</a></p>
    <h1>${a.name ?? a.scode.appId} <span class="version" aria-label="Saved version">v${a.serverVersion}</span></h1>
    ${readOnly ? html`<p class="notice" role="note">You are a viewer: you can look at everything, and change nothing.</p>` : null}
    <${Tabs} label="Application" tabs=${tabs} current=${tab} />
    <section class="tab-panel">
      ${Panel
        ? html`<${Panel} api=${api} app=${a} projectId=${projectId} readOnly=${readOnly} onChange=${app.reload} />`
        : html`<${Configuration} api=${api} owner=${`/applications/${applicationId}`} readOnly=${readOnly} />`}
    </section>`;
}
