// Sign up, log in, log out. The token lives in localStorage (see api.js).
import { h, notify, render } from './dom.js';
import { api, session } from './api.js';
import { fieldInput, readForm } from './fields.js';
import { reportError } from './problems.js';
import { SCHEMA } from '../schema.js';

function passwordInput(autocomplete) {
  return h('div', { class: 'field', dataset: { field: 'password' } },
    h('label', { for: 'f-password' }, 'Password ', h('span', { class: 'required', 'aria-hidden': 'true' }, '*')),
    h('input', { id: 'f-password', name: 'password', type: 'password', required: true, minLength: 8, autocomplete, 'aria-describedby': 'e-password password-help' }),
    h('p', { class: 'hint', id: 'password-help' }, 'At least 8 characters.'),
    h('p', { class: 'field-error', id: 'e-password' }));
}

function done(result, text) {
  session.save(result);
  notify(text, 'success', { keep: true });
  window.dispatchEvent(new Event('sessionchange'));
  location.hash = SCHEMA.home;
}

export function renderSignup() {
  const model = SCHEMA.models.find((m) => m.resource === SCHEMA.auth.userResource);
  const fields = model.fields.filter((f) => SCHEMA.auth.signupFields.includes(f.name));
  const form = h('form', { class: 'record-form' }, fields.map((f) => fieldInput(f, f.default, { pending: [], defaultRelation: () => null })), passwordInput('new-password'),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Sign up'), h('a', { href: '#/login' }, 'I already have an account')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const { body } = readForm(form, fields, 'create');
    body.password = form.elements.namedItem('password').value;
    try {
      done(await api.signup(body), 'Welcome! Your account is ready.');
    } catch (error) {
      reportError(error, form);
    }
  });
  render(h('h1', {}, 'Sign up'), form);
}

export function renderLogin() {
  const email = h('input', { id: 'f-email', name: 'email', type: 'email', required: true, autocomplete: 'username', 'aria-describedby': 'e-email' });
  const form = h('form', { class: 'record-form' },
    h('div', { class: 'field', dataset: { field: 'email' } }, h('label', { for: 'f-email' }, 'Email'), email, h('p', { class: 'field-error', id: 'e-email' })),
    passwordInput('current-password'),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Log in'), h('a', { href: '#/signup' }, 'Create an account')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const result = await api.login({ email: email.value, password: form.elements.namedItem('password').value });
      if (result.mfaRequired) return renderMfaStep(result.mfaToken);
      done(result, 'You are logged in.');
    } catch (error) {
      if (error.status === 401) notify('Wrong email or password.', 'error');
      else reportError(error, form);
    }
  });
  render(h('h1', {}, 'Log in'), form, providerButtons());
}

/** A button per sign-in provider of the app; each sign-in comes back to this page with its session in the fragment. */
function providerButtons() {
  const box = h('div', { class: 'row actions providers' });
  api.providers().then(({ items }) => {
    const back = location.href.split('#')[0];
    box.replaceChildren(...items.map((p) => h('a', { class: 'button secondary', href: `${p.startUrl}?redirect=${encodeURIComponent(back)}` }, `Sign in with ${p.displayName}`)));
  }, () => box.remove());
  return box;
}

/** The second step of a sign-in to an account with an authenticator app: a code or a recovery code. */
export function renderMfaStep(mfaToken) {
  const code = h('input', { id: 'f-code', name: 'code', required: true, inputmode: 'numeric', autocomplete: 'one-time-code', 'aria-describedby': 'e-code code-help' });
  const form = h('form', { class: 'record-form' },
    h('div', { class: 'field', dataset: { field: 'code' } }, h('label', { for: 'f-code' }, 'Code'), code,
      h('p', { class: 'hint', id: 'code-help' }, 'The 6-digit code of your authenticator app, or one of your recovery codes.'),
      h('p', { class: 'field-error', id: 'e-code' })),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Continue')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      done(await api.mfa({ mfaToken, code: code.value.trim() }), 'You are logged in.');
    } catch (error) {
      if (error.status === 401) notify('That code is not right, or it was already used.', 'error');
      else reportError(error, form);
    }
  });
  render(h('h1', {}, 'Enter your code'), form);
}

/** Back from a provider's sign-in: the session (or the second step) is in the URL fragment, taken out of the address at once. */
export async function takeProviderSignIn() {
  const params = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (params.get('mfaRequired') === 'true') return renderMfaStep(params.get('mfaToken'));
  session.save({ token: params.get('token'), refreshToken: params.get('refreshToken'), user: null });
  try {
    done({ token: params.get('token'), refreshToken: params.get('refreshToken'), user: await api.me() }, 'You are logged in.');
  } catch (error) {
    reportError(error);
  }
}

export function logout() {
  session.clear();
  window.dispatchEvent(new Event('sessionchange'));
  notify('You are logged out.', 'success', { keep: true });
  location.hash = '#/login';
}
