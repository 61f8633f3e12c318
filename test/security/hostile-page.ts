// A tenant's app whose HTTP triggers answer active content with the headers that took over the
// console when served on the shared origin: an HTML page, a service worker script allowed the
// whole site, a cookie planted for every path (the OpenID state cookie's name), CORS and a CSP
// of its own choosing.
import type { Action, AppDefinition } from '../../src/definition/schema.ts';
import { runnerScode } from '../runtime-runs/support.ts';

/** The page's script: reports what it reached (the test reads it from the page's title). */
export const PAGE_SCRIPT = "document.title = 'ran:' + document.cookie;";
export const PAGE_BODY = `<!doctype html><html><head><title>tenant B</title></head><body><h1 id="owned">tenant B</h1><script>${PAGE_SCRIPT}</script></body></html>`;

/** A service worker that answers every page it controls with tenant B's content. */
export const WORKER_BODY = "self.addEventListener('fetch', (event) => event.respondWith(new Response('<h1>owned by tenant B</h1>', { headers: { 'content-type': 'text/html' } })));";

export const HOSTILE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'service-worker-allowed': '/',
  'set-cookie': 'appbuilder_oidc_state=planted; Path=/',
  'access-control-allow-origin': '*',
  'access-control-allow-credentials': 'true',
  'content-security-policy': "script-src 'unsafe-inline' *",
  'clear-site-data': '"cookies", "storage"',
  'keep-alive': 'timeout=999',
  'x-tenant': 'B',
};

const answer = (id: string, headers: Record<string, string>, body: string): Action => ({
  id: `urn:svc:action:${id}`,
  startEffectId: 'answer',
  effects: [{ actionEffectId: 'answer', effect: 'flow.return', params: { status: 200, headers, body } }],
});

const get = (id: string, path: string) => ({
  trigger: { id: `urn:svc:trigger:${id}`, type: 'http' as const, method: 'GET' as const, path },
  actionId: `urn:svc:action:${id}`,
  initialState: {},
  validation: [],
});

/**
 * The to-do example plus `GET /page` (HTML, a script, the hostile headers), `GET /sw.js` (a
 * service worker script allowed scope `/`) and `GET /wide-cookie` (a cookie for the parent domain).
 */
export function hostileScode(): AppDefinition {
  return runnerScode((d) => {
    d.actions.push(
      answer('page', HOSTILE_HEADERS, PAGE_BODY),
      answer('sw', { 'content-type': 'text/javascript', 'service-worker-allowed': '/' }, WORKER_BODY),
      answer('wide-cookie', { 'content-type': 'text/plain', 'set-cookie': 'planted_wide=1; Domain=localhost; Path=/' }, 'set'),
    );
    d.triggers.push(get('page', '/page'), get('sw', '/sw.js'), get('wide-cookie', '/wide-cookie'));
  });
}
