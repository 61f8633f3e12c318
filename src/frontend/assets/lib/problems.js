// Clear messages for the API's errors (401, 403, 404, 409, 422, …).
import { h, notify } from './dom.js';
import { showFieldErrors } from './fields.js';

export function problemMessage(error) {
  const detail = error.problem && error.problem.detail ? ` ${error.problem.detail}` : '';
  switch (error.status) {
    case undefined:
      return `Something went wrong: ${error.message}`;
    case 0:
      return error.message;
    case 401:
      return ['You need to log in to do this. ', h('a', { href: '#/login' }, 'Log in'), ' or ', h('a', { href: '#/signup' }, 'sign up'), '.'];
    case 403:
      return `You are not allowed to do this.${detail}`;
    case 404:
      return `Not found: this record does not exist or you cannot see it.${detail}`;
    case 409:
    case 422:
    case 400:
      return error.problem.detail || 'The request was not accepted.';
    default:
      return `Something went wrong (${error.status}).${detail}`;
  }
}

/** Shows an error: in the live region, and next to each field of `form` that `errors[].path` names. */
export function reportError(error, form) {
  let message = problemMessage(error);
  if (form && error.errors && error.errors.length > 0) {
    const rest = showFieldErrors(form, error.errors);
    message = [message, rest.length ? ` ${rest.join('; ')}` : '', ' See the highlighted fields.'];
  }
  notify(message, 'error');
}
