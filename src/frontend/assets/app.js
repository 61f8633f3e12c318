// Entry point: navigation, session bar and the hash router. Generic: every
// application-specific detail comes from schema.js; the API address from config.js.
import { SCHEMA } from './schema.js';
import { API_BASE_URL } from './config.js';
import { h, render, clearMessagesOnNavigate, notify } from './lib/dom.js';
import { session } from './lib/api.js';
import { modelByResource, recordLabel } from './lib/model.js';
import { renderList } from './lib/list.js';
import { renderDetail, renderForm } from './lib/record.js';
import { renderLogin, renderSignup, logout, takeProviderSignIn, needsVerification, MAIL_PAGES } from './lib/auth.js';

function renderNav() {
  const current = location.hash.split('?')[0] || '#/';
  const links = SCHEMA.navigation.map((item) => {
    const active = current === item.href || current.startsWith(`${item.href}/`);
    return h('li', {}, h('a', { href: item.href, title: item.description || undefined, 'aria-current': active ? 'page' : undefined }, item.label));
  });
  document.getElementById('nav-links').replaceChildren(...links);

  const box = document.getElementById('session');
  if (!SCHEMA.auth) return box.replaceChildren();
  const user = session.user;
  const userModel = modelByResource(SCHEMA.auth.userResource);
  box.replaceChildren(...(user && session.token
    ? [h('span', {}, 'Signed in as ', h('a', { href: `#/${SCHEMA.auth.userResource}/${encodeURIComponent(user.id)}` }, recordLabel(userModel, user))),
       needsVerification(user) ? h('a', { href: '#/verify' }, 'Verify your email') : null,
       h('button', { type: 'button', class: 'secondary', onclick: logout }, 'Log out')].filter(Boolean)
    : [h('a', { href: '#/login', class: 'button secondary' }, 'Log in'), h('a', { href: '#/signup', class: 'button' }, 'Sign up')]));
}

function notFoundPage(path) {
  render(h('h1', {}, 'Page not found'), h('p', {}, `There is no page at ${path}. `, h('a', { href: SCHEMA.home }, 'Go to the start page'), '.'));
}

function home() {
  render(h('h1', {}, SCHEMA.appName), h('p', {}, SCHEMA.description),
    h('ul', { class: 'cards' }, SCHEMA.navigation.map((item) => h('li', {}, h('a', { href: item.href }, item.label), item.description ? h('p', {}, item.description) : null))));
}

async function route() {
  clearMessagesOnNavigate();
  // Back from a provider's sign-in (lib/auth.js): the fragment holds the session, not a route.
  if (SCHEMA.auth && /^#(token|mfaRequired)=/.test(location.hash)) return takeProviderSignIn();
  renderNav();
  const [path, queryText = ''] = (location.hash.replace(/^#/, '') || '/').split('?');
  const params = Object.fromEntries(new URLSearchParams(queryText));
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) {
    if (SCHEMA.home !== '#/') location.replace(SCHEMA.home);
    else home();
    return;
  }
  if (SCHEMA.auth && parts[0] === 'login' && parts.length === 1) return renderLogin();
  if (SCHEMA.auth && parts[0] === 'signup' && parts.length === 1) return renderSignup();
  // The pages the account mails link to (`#/reset-password?token=…`, …).
  if (SCHEMA.auth && SCHEMA.auth.hasEmail && parts.length === 1 && Object.hasOwn(MAIL_PAGES, parts[0])) return MAIL_PAGES[parts[0]](params.token);
  const model = modelByResource(parts[0]);
  if (!model) return notFoundPage(path);
  if (SCHEMA.auth && !session.token) notify(['You are not logged in: you may see nothing here. ', h('a', { href: '#/login' }, 'Log in'), '.'], 'info');
  if (parts.length === 1) return renderList(model, params);
  if (parts[1] === 'new' && parts.length === 2) return renderForm(model, null);
  if (parts.length === 2) return renderDetail(model, parts[1]);
  if (parts.length === 3 && parts[2] === 'edit') return renderForm(model, parts[1]);
  return notFoundPage(path);
}

document.title = SCHEMA.appName;
document.getElementById('app-name').textContent = SCHEMA.appName;
document.getElementById('api-info').textContent = `API ${API_BASE_URL} (v${SCHEMA.serverVersion})`;
// The skip link focuses the content without touching the hash (the router owns it).
document.querySelector('.skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  document.getElementById('main').focus();
});
window.addEventListener('hashchange', () => void route());
window.addEventListener('sessionchange', renderNav);
void route();
