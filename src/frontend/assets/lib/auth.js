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
      done(await api.login({ email: email.value, password: form.elements.namedItem('password').value }), 'You are logged in.');
    } catch (error) {
      if (error.status === 401) notify('Wrong email or password.', 'error');
      else reportError(error, form);
    }
  });
  render(h('h1', {}, 'Log in'), form);
}

export function logout() {
  session.clear();
  window.dispatchEvent(new Event('sessionchange'));
  notify('You are logged out.', 'success', { keep: true });
  location.hash = '#/login';
}
