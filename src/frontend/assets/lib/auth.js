// Sign up, log in, log out, and the pages the account mails link to: forgot and reset password,
// verify an email address, confirm a new one. The token lives in localStorage (see api.js).
import { h, loading, notify, render } from './dom.js';
import { api, session } from './api.js';
import { fieldInput, readForm, showFieldErrors } from './fields.js';
import { reportError } from './problems.js';
import { SCHEMA } from '../schema.js';

const NOT_VERIFIED = 'https://appbuilder.dev/problems/email-not-verified';

/** A password input with its label, hint and error slot (`f-{name}`, `e-{name}`). */
function passwordInput(autocomplete, { name = 'password', label = 'Password', hint = 'At least 8 characters.' } = {}) {
  return h('div', { class: 'field', dataset: { field: name } },
    h('label', { for: `f-${name}` }, `${label} `, h('span', { class: 'required', 'aria-hidden': 'true' }, '*')),
    h('input', { id: `f-${name}`, name, type: 'password', required: true, minLength: 8, autocomplete, 'aria-describedby': hint ? `e-${name} ${name}-help` : `e-${name}` }),
    hint ? h('p', { class: 'hint', id: `${name}-help` }, hint) : null,
    h('p', { class: 'field-error', id: `e-${name}` }));
}

/** The email input of the log-in and mail forms. */
function emailInput() {
  const input = h('input', { id: 'f-email', name: 'email', type: 'email', required: true, autocomplete: 'username', 'aria-describedby': 'e-email' });
  return h('div', { class: 'field', dataset: { field: 'email' } }, h('label', { for: 'f-email' }, 'Email'), input, h('p', { class: 'field-error', id: 'e-email' }));
}

function done(result, text) {
  session.save(result);
  notify(text, 'success', { keep: true });
  window.dispatchEvent(new Event('sessionchange'));
  location.hash = SCHEMA.home;
}

export function renderSignup() {
  const model = SCHEMA.models.find((m) => m.resource === SCHEMA.auth.userResource);
  // The `verified` field is set by the verification mail's link, never at sign-up (the API refuses it).
  const fields = model.fields.filter((f) => SCHEMA.auth.signupFields.includes(f.name) && !isVerifiedField(f));
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
  const form = h('form', { class: 'record-form' },
    emailInput(),
    passwordInput('current-password'),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Log in'), h('a', { href: '#/signup' }, 'Create an account'),
      SCHEMA.auth.hasEmail ? h('a', { href: '#/forgot-password' }, 'Forgot your password?') : null));
  const email = form.elements.namedItem('email');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const result = await api.login({ email: email.value, password: form.elements.namedItem('password').value });
      if (result.mfaRequired) return renderMfaStep(result.mfaToken);
      done(result, 'You are logged in.');
    } catch (error) {
      if (error.status === 401) notify('Wrong email or password.', 'error');
      else if (error.status === 403 && error.problem.type === NOT_VERIFIED) notVerified(email.value);
      else reportError(error, form);
    }
  });
  render(h('h1', {}, 'Log in'), form, providerButtons());
}

/** The app logs in only verified addresses: say so, with a way to get a new mail. */
function notVerified(email) {
  const send = async () => {
    try {
      await api.verifyRequest({ email });
      notify(`A new verification mail is on its way to ${email}: open its link, then log in.`, 'success');
    } catch (error) {
      reportError(error);
    }
  };
  notify(['Your email address is not verified yet: open the link of the verification mail first. ',
    h('button', { type: 'button', class: 'secondary', onclick: send }, 'Send a new verification mail')], 'error');
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

// The account mails (DESIGN §18). Their links open `#/reset-password?token=…`, `#/verify?token=…`
// and `#/confirm-email?token=…` of this frontend (the app's FRONTEND_URL variable says where it is
// served). Each page takes the token out of the address at once (history, a shared screen).

/** The user model's `verified` field (a boolean the account mails set). */
function isVerifiedField(field) {
  return field.name === 'verified' && field.input === 'checkbox' && !field.many;
}

/** Whether the app keeps a `verified` field on its users, and this user's is not true yet. */
export function needsVerification(user) {
  const model = SCHEMA.auth && SCHEMA.models.find((m) => m.resource === SCHEMA.auth.userResource);
  return Boolean(model && model.fields.some(isVerifiedField) && SCHEMA.auth.hasEmail && user && user.verified !== true);
}

function takeToken(page, token) {
  if (token) history.replaceState(null, '', `${location.pathname}${location.search}#/${page}`);
  return token || null;
}

/** A used, expired or unknown link: the API names `/token` in its 400. */
const isLinkError = (error) => error.status === 400 && error.errors.some((e) => e.path === '/token');

/** The signed-in user as the API has it now (after a confirmation changed it). */
async function refreshUser() {
  if (!session.token) return;
  try {
    session.save({ token: session.token, user: await api.me() });
  } catch {
    // A refused token was forgotten by api.js: the page offers to log in.
  }
  window.dispatchEvent(new Event('sessionchange'));
}

const backToLogin = () => h('p', {}, h('a', { href: '#/login' }, 'Back to log in'));

/** The page of a link that cannot work: why in the message region (used, expired, unknown), and what to do (`remedy`). */
function linkFailed(error, title, remedy) {
  render(h('h1', {}, title), remedy);
  notify(error.problem.detail || error.message, 'error');
}

export function renderForgotPassword() {
  const form = h('form', { class: 'record-form', 'aria-describedby': 'forgot-help' },
    h('p', { id: 'forgot-help' }, 'Enter the email address of your account: we send it a link to choose a new password.'),
    emailInput(),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Send the link'), h('a', { href: '#/login' }, 'Back to log in')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = form.elements.namedItem('email').value.trim();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await api.passwordRequest(email);
      // The same answer whether or not an account has this address.
      render(h('h1', {}, 'Check your mail'),
        h('p', {}, 'The link works once, for a limited time. Nothing after a few minutes? Check the address and your spam folder, then ',
          h('button', { type: 'button', class: 'secondary', onclick: renderForgotPassword }, 'ask again'), '.'),
        backToLogin());
      notify(`If an account exists for ${email}, a mail with a link to choose a new password is on its way.`, 'success');
    } catch (error) {
      reportError(error, form);
    } finally {
      button.disabled = false;
    }
  });
  render(h('h1', {}, 'Forgot your password?'), form);
}

export function renderResetPassword(linkToken) {
  const token = takeToken('reset-password', linkToken);
  const askAgain = h('p', {}, h('a', { href: '#/forgot-password' }, 'Ask for a new link'), '.');
  if (!token) return render(h('h1', {}, 'Choose a new password'), h('p', {}, 'This page takes the link of a password reset mail.'), askAgain);
  const form = h('form', { class: 'record-form' },
    passwordInput('new-password', { label: 'New password' }),
    passwordInput('new-password', { name: 'repeat', label: 'Repeat the new password', hint: null }),
    h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Set the new password')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const password = form.elements.namedItem('password').value;
    if (password !== form.elements.namedItem('repeat').value) {
      showFieldErrors(form, [{ path: '/repeat', message: 'is not the same as the new password' }]);
      return notify('The two passwords are not the same.', 'error');
    }
    try {
      await api.passwordConfirm(token, password);
      // The change ended every session of the account, this browser's too.
      session.clear();
      window.dispatchEvent(new Event('sessionchange'));
      notify('Your password is changed: log in with the new one.', 'success', { keep: true });
      location.hash = '#/login';
    } catch (error) {
      if (isLinkError(error)) linkFailed(error, 'This link does not work any more', askAgain);
      else reportError(error, form);
    }
  });
  render(h('h1', {}, 'Choose a new password'), form);
}

/** A new verification mail: for the signed-in user a button, else a form asking the address. */
function askVerification() {
  const sent = (to) => notify(`A verification mail is on its way${to}: open its link to confirm the address.`, 'success');
  if (session.token) {
    const send = async () => {
      try {
        await api.verifyRequest();
        sent(session.user && session.user.email ? ` to ${session.user.email}` : '');
      } catch (error) {
        reportError(error);
      }
    };
    return h('p', {}, h('button', { type: 'button', onclick: send }, 'Send a new verification mail'));
  }
  const form = h('form', { class: 'record-form' }, emailInput(), h('div', { class: 'row actions' }, h('button', { type: 'submit' }, 'Send a new verification mail')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = form.elements.namedItem('email').value.trim();
    try {
      await api.verifyRequest({ email });
      sent(` to ${email} if an account has it`);
    } catch (error) {
      reportError(error, form);
    }
  });
  return form;
}

export async function renderVerify(linkToken) {
  const token = takeToken('verify', linkToken);
  const here = location.hash;
  render(h('h1', {}, 'Verify your email address'), loading(token ? 'Confirming your address…' : 'Loading…'));
  if (!token) {
    await refreshUser();
    if (location.hash !== here) return;
    const user = session.token ? session.user : null;
    const address = user && user.email ? ` ${user.email}` : '';
    if (user && !needsVerification(user)) return render(h('h1', {}, 'Verify your email address'), h('p', {}, `Your email address${address} is verified.`));
    return render(h('h1', {}, 'Verify your email address'),
      h('p', {}, user ? `Your email address${address} is not verified yet: open the link of the verification mail, or ask for a new one.` : 'Open the link of the verification mail, or ask for a new one.'),
      askVerification());
  }
  try {
    await api.verifyConfirm(token);
    await refreshUser();
    if (location.hash !== here) return;
    render(h('h1', {}, 'Your email address is verified'), h('p', {}, 'Thank you: the address is confirmed.'),
      h('p', {}, session.token ? h('a', { href: SCHEMA.home }, 'Continue') : h('a', { href: '#/login' }, 'Log in')));
    notify('Your email address is verified.', 'success');
  } catch (error) {
    if (location.hash !== here) return;
    if (isLinkError(error)) linkFailed(error, 'This link does not work', askVerification());
    else reportError(error);
  }
}

export async function renderConfirmEmail(linkToken) {
  const token = takeToken('confirm-email', linkToken);
  const title = 'Confirm your new email address';
  if (!token) return render(h('h1', {}, title), h('p', {}, 'This page takes the link of the mail sent to your new address.'));
  const here = location.hash;
  render(h('h1', {}, title), loading('Confirming your new address…'));
  try {
    const { email } = await api.emailConfirm(token);
    await refreshUser();
    if (location.hash !== here) return;
    render(h('h1', {}, 'Your email address is changed'), h('p', {}, `Your account's address is now ${email}: log in with it from now on.`));
    notify('Your new email address is confirmed.', 'success');
  } catch (error) {
    if (location.hash !== here) return;
    if (isLinkError(error)) linkFailed(error, 'This link does not work', h('p', {}, 'Ask for the change again to get a new mail.'));
    else reportError(error);
  }
}

/** The pages of the mails' links (app.js routes `#/{name}?token=…` to them). */
export const MAIL_PAGES = { 'forgot-password': renderForgotPassword, 'reset-password': renderResetPassword, verify: renderVerify, 'confirm-email': renderConfirmEmail };
