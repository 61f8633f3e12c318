// The management API as the console calls it: the same public routes and headers as any
// client (Authorization: Bearer + x-svc-api-client), problems thrown as ApiError.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.title ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

const SESSION_KEY = 'appbuilder.console.session';

export function loadSession() {
  try {
    return JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
  } catch {
    return null;
  }
}

export function saveSession(session) {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(SESSION_KEY);
}

async function problemOf(response) {
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return await response.json();
    } catch {
      return { title: response.statusText };
    }
  }
  return { title: (await response.text()) || response.statusText };
}

/** Exchanges an API client's key and secret for an access token (POST {base}/oauth/token). */
export async function signInWithClient(config, clientId, clientSecret) {
  const response = await fetch(`${config.basePath}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  const body = await response.json();
  return { apiKey: clientId, token: body.access_token };
}

export class Api {
  constructor(config, session) {
    this.config = config;
    this.session = session;
  }

  headers(extra = {}) {
    return { authorization: `Bearer ${this.session.token}`, 'x-svc-api-client': this.session.apiKey, ...extra };
  }

  /** `path` under the management API ({base_url}; `/projects…` under {projects_url}). */
  url(path) {
    const prefix = /^\/projects(\/|$)/.test(path) ? this.config.projectsPath : this.config.basePath;
    return `${prefix}${path}`;
  }

  async send(method, url, body, extraHeaders = {}) {
    const isJson = body !== undefined && !(body instanceof Blob) && !(body instanceof FormData);
    const response = await fetch(url, {
      method,
      headers: this.headers(isJson ? { 'content-type': 'application/json', ...extraHeaders } : extraHeaders),
      body: isJson ? JSON.stringify(body) : body,
    });
    if (!response.ok) throw new ApiError(response.status, await problemOf(response));
    return response;
  }

  async json(method, path, body, headers) {
    const response = await this.send(method, this.url(path), body, headers);
    if (response.status === 204) return null;
    const type = response.headers.get('content-type') ?? '';
    return type.includes('json') ? response.json() : response.text();
  }

  get(path) {
    return this.json('GET', path);
  }
  post(path, body) {
    return this.json('POST', path, body);
  }
  patch(path, body, headers) {
    return this.json('PATCH', path, body, headers);
  }
  put(path, body) {
    return this.json('PUT', path, body);
  }
  delete(path) {
    return this.json('DELETE', path);
  }

  /** Bytes of a route (a zip, a file), as a Blob. */
  async blob(path) {
    return (await this.send('GET', this.url(path))).blob();
  }

  /** A generated app's route, with the management credentials (its administrator: rules bypassed). */
  async app(method, apiUrl, path, body) {
    const response = await this.send(method, `${apiUrl}${path}`, body);
    return response.status === 204 ? null : response.json();
  }

  /** Uploads `file` as the raw body of `path` (its query names it), with progress: XMLHttpRequest (fetch has none for uploads). */
  upload(path, file, onProgress) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', this.url(path));
      for (const [name, value] of Object.entries(this.headers({ 'content-type': file.type || 'application/octet-stream' }))) request.setRequestHeader(name, value);
      request.upload.onprogress = (event) => event.lengthComputable && onProgress?.(event.loaded / event.total);
      request.onload = () => {
        let body = null;
        try {
          body = JSON.parse(request.responseText);
        } catch {
          body = { title: request.statusText };
        }
        if (request.status >= 200 && request.status < 300) resolve(body);
        else reject(new ApiError(request.status, body));
      };
      request.onerror = () => reject(new ApiError(0, { title: 'The upload failed: the service did not answer.' }));
      request.send(file);
    });
  }
}
