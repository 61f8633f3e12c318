// The attack: customer B hands a victim a sign-in link of customer A's app whose `redirect` is a
// page of B's (on the shared service origin, where every customer's app answers, or on B's own
// origin). After signing in at the provider, the victim's browser would carry A's access and
// refresh tokens in the fragment to B's page. A sign-in returns the browser only to A's own origin
// or an origin A lists in AUTH_REDIRECT_ORIGINS (scheme, host and port exactly); the start and the
// callback answer on A's own origin only, and the provider's callback URI is there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { checkedRedirect } from '../../src/runtime/accounts/oidc.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody } from '../runtime/served-app.ts';
import { startTestProvider, type TestProvider } from '../accounts/oidc-provider.ts';

const A = 'http://0190aaaa-0000-7000-8000-00000000000a.localhost:8080';
const B = 'http://0190bbbb-0000-7000-8000-00000000000b.localhost:8080';

const values = (listed: string) => ({ env: { AUTH_REDIRECT_ORIGINS: listed }, secrets: {}, secretValues: [] });

function refusal(redirect: unknown, listed?: string): Problem {
  try {
    checkedRedirect(redirect, A, listed === undefined ? undefined : values(listed));
  } catch (error) {
    return error as Problem;
  }
  throw new Error(`${String(redirect)} was allowed`);
}

describe('which redirects a sign-in may return tokens to', () => {
  it('allows the app\'s own origin and the origins it lists, exactly', () => {
    expect(checkedRedirect(`${A}/#/signed-in`, A, undefined)).toBe(`${A}/`);
    expect(checkedRedirect(undefined, A, undefined)).toBeNull();
    const listed = 'https://todo.example.test, http://localhost:5173';
    expect(checkedRedirect('https://todo.example.test/app/', A, values(listed))).toBe('https://todo.example.test/app/');
    expect(checkedRedirect('http://localhost:5173/', A, values(listed))).toBe('http://localhost:5173/');
  });

  it('refuses another app\'s origin, the shared origin, look-alikes and other schemes with a 400 naming redirect', () => {
    for (const redirect of [`${B}/`, 'http://localhost:8080/apps/0190bbbb-0000-7000-8000-00000000000b/', A.replace(':8080', ':8081'), A.replace('http:', 'https:'), `${A}.evil.example/`, 'javascript:alert(1)', '//evil.example/', ['x']]) {
      const problem = refusal(redirect);
      expect(problem.status, String(redirect)).toBe(400);
      expect(problem.errors[0].path).toBe('/redirect');
    }
    // Listed origins match exactly: another port or scheme of a listed host is not listed.
    expect(refusal('https://todo.example.test:444/', 'https://todo.example.test').status).toBe(400);
    expect(refusal('http://todo.example.test/', 'https://todo.example.test').status).toBe(400);
    // An entry that is no http(s) origin allows nothing (a `data:` URL's origin is "null", like `javascript:`'s).
    expect(refusal('javascript:alert(1)', 'data:text/html,x').status).toBe(400);
  });
});

describe.each(await availableDrivers())('OpenID redirects between customers on %s', (driver) => {
  let t: TestPlatform;
  let a: ServedApi;
  let b: ServedApi;
  let provider: TestProvider;
  const allowBefore = process.env.APPBUILDER_HTTP_ALLOW;

  beforeAll(async () => {
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    const victimCustomer = await createTenant(t, 'Customer A');
    const attacker = await createTenant(t, 'Customer B');
    const appA = await createTodoApp(victimCustomer, todoScodeWithoutEvents());
    await publish(victimCustomer, appA.id);
    const appB = await createTodoApp(attacker, todoScodeWithoutEvents());
    await publish(attacker, appB.id);
    a = new ServedApi(t, victimCustomer, appA.id, appA.serverVersion);
    b = new ServedApi(t, attacker, appB.id, appB.serverVersion);
    provider = await startTestProvider([`${t.platform.origins.of(appA.id)}/api/v${appA.serverVersion}/auth/oauth/test/callback`]);
    const put = async (path: string, value: string) => expect((await victimCustomer.api.put(`/v1/applications/${appA.id}/${path}`, { value })).status).toBe(201);
    await put('secrets/OIDC_TEST_SECRET', provider.clientSecret);
    await put('variables/AUTH_PROVIDERS', JSON.stringify([{ name: 'test', issuer: provider.issuer, clientId: provider.clientId, clientSecret: 'OIDC_TEST_SECRET' }]));
  }, 120_000);
  afterAll(async () => {
    if (allowBefore === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = allowBefore;
    await provider?.close();
    await t?.close();
  });

  it('refuses a redirect to customer B\'s page on the shared origin or on B\'s own origin', async () => {
    const pageOfB = `${b.base}/hook`;
    for (const redirect of [pageOfB, `${t.platform.origins.of(b.applicationId)}/`]) {
      const started = await a.get<ProblemBody>(`/auth/oauth/test?redirect=${encodeURIComponent(redirect)}`);
      expect(started.status, redirect).toBe(400);
      expect(started.contentType).toContain('application/problem+json');
      expect(started.body.errors[0].path).toBe('/redirect');
    }
  });

  it('answers the start and the callback on the app\'s own origin only, with the provider\'s callback there', async () => {
    const own = `${t.platform.origins.of(a.applicationId)}/api/v${a.serverVersion}`;
    // On the shared origin: no state cookie is set there and no browser is sent anywhere.
    for (const path of ['/auth/oauth/test', '/auth/oauth/test/callback?state=x&code=y']) {
      const reply = await fetch(`${a.base}${path}`, { redirect: 'manual' });
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('set-cookie')).toBeNull();
      expect(reply.headers.get('location')).toBeNull();
      expect(((await reply.json()) as { detail: string }).detail).toContain(own);
    }
    const listed = await a.get<{ items: Array<{ startUrl: string; callbackUrl: string }> }>('/auth/providers');
    expect(listed.body.items[0]).toMatchObject({ startUrl: `${own}/auth/oauth/test`, callbackUrl: `${own}/auth/oauth/test/callback` });
  });
});
