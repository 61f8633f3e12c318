// The one place that talks to the API: base URL, token, JSON, problem details.
import { API_BASE_URL } from '../config.js';

const TOKEN_KEY = 'appbuilder.token';
const USER_KEY = 'appbuilder.user';

/** An error answer of the API (application/problem+json), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `Request failed (${status})`);
    this.status = status;
    this.problem = problem;
    /** [{path, message}] */
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
  }
}

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  get user() {
    try {
      return JSON.parse(localStorage.getItem(USER_KEY) || 'null');
    } catch {
      return null;
    }
  },
  save({ token, user }) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
  },
};

const base = API_BASE_URL.replace(/\/+$/, '');

/** `anonymous`: sent without the session's token (a mail's link works whoever is signed in here, or whose token expired). */
export async function request(method, path, { query, body, form, anonymous = false } = {}) {
  // A relative API_BASE_URL (same origin as the page) works too.
  const url = new URL(base + path, location.href);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  }
  const headers = { Accept: 'application/json' };
  if (session.token && !anonymous) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    // A form (a file upload) goes as multipart/form-data, its boundary set by the browser.
    response = await fetch(url, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) });
  } catch (error) {
    throw new ApiError(0, { title: 'Network error', detail: `The API at ${base} cannot be reached (${error.message}). Check API_BASE_URL in config.js and that the API allows this origin (CORS).` });
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { detail: text };
    }
  }
  if (!response.ok) {
    // A rejected token is useless: forget it so the next page offers to log in.
    if (response.status === 401 && session.token && !anonymous) session.clear();
    throw new ApiError(response.status, data || { title: response.statusText });
  }
  return data;
}

export const api = {
  list: (resource, query) => request('GET', `/${resource}`, { query }),
  get: (resource, id) => request('GET', `/${resource}/${encodeURIComponent(id)}`),
  create: (resource, body) => request('POST', `/${resource}`, { body }),
  update: (resource, id, body) => request('PATCH', `/${resource}/${encodeURIComponent(id)}`, { body }),
  remove: (resource, id) => request('DELETE', `/${resource}/${encodeURIComponent(id)}`),
  signup: (body) => request('POST', '/auth/signup', { body }),
  login: (body) => request('POST', '/auth/login', { body }),
  me: () => request('GET', '/auth/me'),
  /** The sign-in providers of the app: [{name, displayName, startUrl}] under `items`. */
  providers: () => request('GET', '/auth/providers'),
  /** The second step of a sign-in that answered {mfaRequired, mfaToken}. */
  mfa: (body) => request('POST', '/auth/mfa', { body }),
  /** A new verification mail: to the signed-in user, or (`{email}`, sent without the token) to that address's account. */
  verifyRequest: (body = {}) => request('POST', '/auth/verify/request', { body, anonymous: body.email !== undefined }),
  verifyConfirm: (token) => request('POST', '/auth/verify/confirm', { body: { token }, anonymous: true }),
  /** Answers 202 alike whether or not an account has the address. */
  passwordRequest: (email) => request('POST', '/auth/password/request', { body: { email }, anonymous: true }),
  /** The new password; it ends every session of the account (204). */
  passwordConfirm: (token, password) => request('POST', '/auth/password/confirm', { body: { token, password }, anonymous: true }),
  emailConfirm: (token) => request('POST', '/auth/email/confirm', { body: { token }, anonymous: true }),
  /** Stores a File through POST /files; answers {key, url, contentType, size}. */
  upload: (file) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return request('POST', '/files', { form });
  },
};

/** Where this API serves a file field's URL (through API_BASE_URL), or null for anyone else's URL. */
export function ownFileUrl(url) {
  const path = new URL(url, location.href).pathname;
  const files = `${new URL(base, location.href).pathname.replace(/\/+$/, '')}/files/`;
  return path.startsWith(files) ? new URL(base + path.slice(files.length - '/files/'.length), location.href) : null;
}

/** The bytes of one of this API's files, fetched with the session's token (a plain link would carry none). */
export async function downloadFile(url) {
  const response = await fetch(ownFileUrl(url), { headers: session.token ? { Authorization: `Bearer ${session.token}` } : {} });
  if (!response.ok) throw new ApiError(response.status, { title: `The file could not be fetched (${response.status}).` });
  return response.blob();
}
