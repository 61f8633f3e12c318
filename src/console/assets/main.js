// The console's shell: sign-in, the caller's role, the address-bar router and the layout.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Api, loadSession, saveSession } from './api.js';
import { html, Loading, Problem } from './ui.js';
import { SignIn } from './pages/sign-in.js';
import { Projects } from './pages/projects.js';
import { Project } from './pages/project.js';
import { Application } from './pages/application.js';
import { Storage } from './pages/storage.js';
import { Builders } from './pages/builders.js';
import { Audit } from './pages/audit.js';

const root = document.getElementById('console');
const config = JSON.parse(root.dataset.config);

function currentRoute() {
  const path = location.hash.replace(/^#/, '') || '/projects';
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function Page({ api, me, route }) {
  const [section, id, sub, subId, tab] = route;
  const props = { api, me, readOnly: me.role === 'viewer' };
  if (section === 'projects' && id && sub === 'applications' && subId) return html`<${Application} ...${props} projectId=${id} applicationId=${subId} tab=${tab ?? 'models'} rest=${route.slice(5)} />`;
  if (section === 'projects' && id) return html`<${Project} ...${props} projectId=${id} tab=${sub ?? 'applications'} />`;
  if (section === 'storage') return html`<${Storage} ...${props} />`;
  if (section === 'builders') return html`<${Builders} ...${props} />`;
  if (section === 'audit') return html`<${Audit} ...${props} />`;
  return html`<${Projects} ...${props} />`;
}

const NAV = [
  { href: '#/projects', label: 'Projects', section: 'projects' },
  { href: '#/storage', label: 'Storage', section: 'storage' },
  { href: '#/builders', label: 'Builders', section: 'builders' },
  { href: '#/audit', label: 'Audit log', section: 'audit' },
];

function Shell() {
  const [session, setSession] = useState(loadSession);
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const route = useRoute();
  const api = session ? new Api(config, session) : null;

  useEffect(() => {
    if (!api) return;
    api.get('/builders/me').then(setMe, (e) => {
      setError(e);
      if (e.status === 401) signOut();
    });
  }, [session?.token]);

  function signIn(next) {
    saveSession(next);
    setError(null);
    setSession(next);
  }
  function signOut() {
    // The next person to sign in starts at the projects, not on the page the last one left.
    location.hash = '#/projects';
    saveSession(null);
    setMe(null);
    setSession(null);
  }

  if (!session) return html`<main id="main" class="sign-in-page"><${SignIn} config=${config} onSignIn=${signIn} /></main>`;
  const section = route[0] ?? 'projects';
  return html`
    <a class="skip" href="#main" onClick=${(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
    <header class="top">
      <span class="brand">appbuilder</span>
      <nav aria-label="Main">
        ${NAV.map((n) => html`<a href=${n.href} aria-current=${n.section === section ? 'page' : undefined}>${n.label}</a>`)}
      </nav>
      <span class="who">${me ? html`<span class="role" data-role=${me.role}>${me.role}</span>` : null}
        <button type="button" class="link" onClick=${signOut}>Sign out</button></span>
    </header>
    <main id="main" tabindex="-1">
      <${Problem} error=${error} />
      ${me ? html`<${Page} api=${api} me=${me} route=${route} />` : error ? null : html`<${Loading} />`}
    </main>`;
}

// The page's "Loading the console…" is for the moment before this module runs: gone once it does.
root.replaceChildren();
render(html`<${Shell} />`, root);
