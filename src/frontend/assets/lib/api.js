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

export async function request(method, path, { query, body } = {}) {
  // A relative API_BASE_URL (same origin as the page) works too.
  const url = new URL(base + path, location.href);
  for (const [key, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(key, String(value));
  }
  const headers = { Accept: 'application/json' };
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
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
    if (response.status === 401 && session.token) session.clear();
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
};
