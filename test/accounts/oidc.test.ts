// Issue 25 (part B): sign-in with OpenID Connect against a real provider (`oidc-provider`)
// started on a loopback port. The test is the browser: it follows every redirect with a cookie
// jar, from the app's start route through the provider's login and consent to the app's callback.
// Start and callback are on the application's own origin (`http://{id}.localhost:{port}`), reached
// as a browser would (test/support/app-origin.ts); the other routes on the shared path form.
import { parseSetCookie } from 'cookie';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from '../runtime/served-app.ts';
import { startTestProvider, type TestAccount, type TestProvider } from './oidc-provider.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';

/** A browser: cookies per origin, redirects followed by hand so each hop can be looked at. */
class Browser {
  readonly #jar = new Map<string, Map<string, string>>();
  /** Every Set-Cookie header received, as sent. */
  readonly setCookies: string[] = [];

  async get(url: string): Promise<Response> {
    const origin = new URL(url).origin;
    const cookies = this.#jar.get(origin) ?? new Map<string, string>();
    const header = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers: Record<string, string> = header ? { cookie: header } : {};
    // An application's own origin: Node resolves no `*.localhost`, so connect as a browser would.
    const response = new URL(url).hostname.endsWith('.localhost') ? await fetchAppOrigin(url, { headers }) : await fetch(url, { redirect: 'manual', headers });
    for (const raw of response.headers.getSetCookie()) {
      this.setCookies.push(raw);
      const cookie = parseSetCookie(raw);
      if (!cookie.value || cookie.maxAge === 0) cookies.delete(cookie.name);
      else cookies.set(cookie.name, cookie.value);
    }
    this.#jar.set(origin, cookies);
    return response;
  }

  /**
   * Opens `url` and follows redirects. Stops before a location for which `stopBefore` is true
   * (answering that location), else at the first answer that is not a redirect.
   */
  async follow(url: string, stopBefore: (location: string) => boolean = () => false): Promise<{ response: Response | null; url: string; hops: string[] }> {
    const hops = [url];
    let current = url;
    let response = await this.get(current);
    for (let i = 0; i < 20 && response.status >= 300 && response.status < 400; i++) {
      const next = new URL(response.headers.get('location')!, current).toString();
      if (stopBefore(next)) return { response: null, url: next, hops };
      current = next;
      hops.push(current);
      response = await this.get(current);
    }
    return { response, url: current, hops };
  }
}

interface SessionBody {
  token: string;
  refreshToken: string;
  user: Rec;
}

describe.each(await availableDrivers())('sign-in with an OpenID provider on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let provider: TestProvider;
  /** The version on the app's own origin: where sign-ins start and come back. */
  let own: string;
  let callback: string;
  const allowBefore = process.env.APPBUILDER_HTTP_ALLOW;

  /** One whole sign-in in a fresh browser as `account`: the app's last answer. */
  async function signIn(account: TestAccount, query = ''): Promise<{ response: Response; browser: Browser; hops: string[] }> {
    provider.signInAs(account);
    const browser = new Browser();
    const { response, hops } = await browser.follow(`${own}/auth/oauth/test${query}`);
    return { response: response!, browser, hops };
  }

  /** Starts a sign-in as `account` and stops at the callback URL the provider sends the browser to. */
  async function untilCallback(account: TestAccount): Promise<{ browser: Browser; callbackUrl: string }> {
    provider.signInAs(account);
    const browser = new Browser();
    const { url } = await browser.follow(`${own}/auth/oauth/test`, (location) => location.startsWith(`${callback}?`));
    expect(url.startsWith(`${callback}?`)).toBe(true);
    return { browser, callbackUrl: url };
  }

  beforeAll(async () => {
    // The provider listens on loopback: the outbound address guard lets it through only when listed.
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Provided');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    own = `${t.platform.origins.of(app.id)}/api/v${app.serverVersion}`;
    callback = `${own}/auth/oauth/test/callback`;
    provider = await startTestProvider([callback]);
    const put = async (path: string, value: string) => {
      const reply = await tenant.api.put(`/v1/applications/${app.id}/${path}`, { value });
      expect(reply.status).toBe(201);
    };
    await put('secrets/OIDC_TEST_SECRET', provider.clientSecret);
    await put('variables/AUTH_PROVIDERS', JSON.stringify([{ name: 'test', displayName: 'Test ID', issuer: provider.issuer, clientId: provider.clientId, clientSecret: 'OIDC_TEST_SECRET' }]));
  });
  afterAll(async () => {
    if (allowBefore === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = allowBefore;
    await provider?.close();
    await t?.close();
  });

  it('lists the provider with its start and callback URLs', async () => {
    const reply = await api.get<{ items: Array<Record<string, string>> }>('/auth/providers');
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([{ name: 'test', displayName: 'Test ID', startUrl: `${own}/auth/oauth/test`, callbackUrl: callback }]);
  });

  it('documents the provider and second-factor routes in the version\'s OpenAPI document', async () => {
    const doc = await api.get<{ paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }>> }>('/openapi.json');
    expect(doc.status).toBe(200);
    const operations = Object.fromEntries(
      ['/auth/providers', '/auth/oauth/{provider}', '/auth/oauth/{provider}/callback', '/auth/mfa', '/auth/mfa/totp/enroll', '/auth/mfa/totp/verify', '/auth/mfa/totp/disable'].map((path) => [
        path,
        Object.values(doc.body.paths[path] ?? {}).find((op) => typeof op === 'object' && op !== null && 'operationId' in op)?.operationId,
      ]),
    );
    expect(operations).toEqual({
      '/auth/providers': 'listSignInProviders',
      '/auth/oauth/{provider}': 'startProviderSignIn',
      '/auth/oauth/{provider}/callback': 'finishProviderSignIn',
      '/auth/mfa': 'completeSecondFactor',
      '/auth/mfa/totp/enroll': 'enrollTotp',
      '/auth/mfa/totp/verify': 'verifyTotp',
      '/auth/mfa/totp/disable': 'disableTotp',
    });
    expect(doc.body.paths['/auth/login'].post.responses!['200'].content!['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/Session' }, { $ref: '#/components/schemas/MfaChallenge' }],
    });
  });

  it('signs a new user up through the authorization-code flow with PKCE, and a second sign-in finds the same user', async () => {
    const alice = { sub: 'alice-1', email: 'Alice@Example.test', email_verified: true, name: 'Alice' };
    const first = await signIn(alice);
    // The app sent the browser to the provider with PKCE (S256), state and nonce.
    const authorize = new URL(first.hops[1]);
    expect(authorize.origin).toBe(provider.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('redirect_uri')).toBe(callback);
    // The state is bound to the browser by an httpOnly cookie.
    expect(first.browser.setCookies.find((c) => c.startsWith('appbuilder_oidc_state='))).toMatch(/HttpOnly/i);
    // The browser went through the provider's login and consent and came back to the callback.
    expect(first.hops.at(-1)!.startsWith(`${callback}?`)).toBe(true);
    expect(first.response.status).toBe(200);
    const session = (await first.response.json()) as SessionBody;
    expect(session.token).toBeTruthy();
    expect(session.refreshToken).toBeTruthy();
    expect(session.user).toMatchObject({ email: 'alice@example.test', name: 'Alice' });
    const me = await api.get('/auth/me', session.token);
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(session.user.id);

    const second = await signIn(alice);
    expect(second.response.status).toBe(200);
    const again = (await second.response.json()) as SessionBody;
    expect(again.user.id).toBe(session.user.id);
    expect(again.token).not.toBe(session.token);
    const users = await api.get<Page>(`/users?filter=${encodeURIComponent("record.email == 'alice@example.test'")}`, 'admin');
    expect(users.body.total).toBe(1);
  });

  it('refuses a tampered state, and takes the genuine one once', async () => {
    const { browser, callbackUrl } = await untilCallback({ sub: 'carol-1', email: 'carol@example.test', email_verified: true, name: 'Carol' });
    const tampered = new URL(callbackUrl);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
    const refused = await browser.get(tampered.toString());
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await refused.json()) as ProblemBody;
    expect(problem.errors[0].path).toBe('/state');
    expect(await api.get<Page>(`/users?filter=${encodeURIComponent("record.email == 'carol@example.test'")}`, 'admin').then((r) => r.body.total)).toBe(0);

    // Without the browser's cookie the genuine callback is refused too (no login CSRF).
    expect((await new Browser().get(callbackUrl)).status).toBe(400);
    const genuine = await browser.get(callbackUrl);
    expect(genuine.status).toBe(200);
    // A state is used once.
    expect((await browser.get(callbackUrl)).status).toBe(400);
  });

  it('links an account with a password by the provider\'s verified email only', async () => {
    const bob = await api.signup('Bob', 'bob@example.test');
    const unverified = await signIn({ sub: 'bob-unverified', email: 'bob@example.test', email_verified: false, name: 'Bob' });
    expect(unverified.response.status).toBe(403);
    expect(unverified.response.headers.get('content-type')).toContain('application/problem+json');
    const verified = await signIn({ sub: 'bob-1', email: 'bob@example.test', email_verified: true, name: 'Bob B.' });
    expect(verified.response.status).toBe(200);
    const session = (await verified.response.json()) as SessionBody;
    expect(session.user.id).toBe(bob.user.id);
    // The password still works for the linked account.
    expect((await api.post('/auth/login', { email: 'bob@example.test', password: 'correct horse' })).status).toBe(200);
  });

  it('names the required fields of the user model that the provider cannot fill', async () => {
    const { response } = await signIn({ sub: 'nameless-1', email: 'nameless@example.test', email_verified: true });
    expect(response.status).toBe(422);
    const problem = (await response.json()) as ProblemBody;
    expect(problem.errors).toEqual([{ path: '/name', message: expect.stringContaining('required') }]);
  });

  it('asks a user with a second factor for a code after the provider, and completes with one', async () => {
    const eve = { sub: 'eve-1', email: 'eve@example.test', email_verified: true, name: 'Eve' };
    const first = (await (await signIn(eve)).response.json()) as SessionBody;
    const enrolled = await api.post<{ secret: string }>('/auth/mfa/totp/enroll', {}, first.token);
    const code = (steps: number) => new TOTP({ secret: Secret.fromBase32(enrolled.body.secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
    expect((await api.post('/auth/mfa/totp/verify', { code: code(0) }, first.token)).status).toBe(200);

    const { response } = await signIn(eve);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, unknown>;
    expect(answer).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    const done = await api.post<SessionBody>('/auth/mfa', { mfaToken: answer.mfaToken, code: code(1) });
    expect(done.status).toBe(200);
    expect(done.body.user.id).toBe(first.user.id);
  });

  it('returns the browser to an allowed redirect with the tokens in the fragment, and refuses another origin', async () => {
    const target = `${new URL(own).origin}/my-frontend/`;
    provider.signInAs({ sub: 'dora-1', email: 'dora@example.test', email_verified: true, name: 'Dora' });
    // The app's last answer is a 302 to the frontend, where the test stops (it serves no page).
    const { response, url } = await new Browser().follow(`${own}/auth/oauth/test?redirect=${encodeURIComponent(target)}`, (location) => location.startsWith(target));
    expect(response).toBeNull();
    const landed = new URL(url);
    expect(`${landed.origin}${landed.pathname}`).toBe(target);
    expect(landed.search).toBe('');
    const fragment = new URLSearchParams(landed.hash.slice(1));
    const me = await api.get('/auth/me', fragment.get('token'));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'dora@example.test' });
    expect(fragment.get('refreshToken')).toBeTruthy();

    const outside = await api.get<ProblemBody>(`/auth/oauth/test?redirect=${encodeURIComponent('https://evil.example/')}`);
    expect(outside.status).toBe(400);
    expect(outside.body.errors[0].path).toBe('/redirect');
  });

  // Last: it breaks the application's provider configuration.
  it('answers a configuration it cannot use with a problem naming the member', async () => {
    const reply = await tenant.api.put(`/v1/applications/${api.applicationId}/variables/AUTH_PROVIDERS`, {
      value: JSON.stringify([{ name: 'test', issuer: provider.issuer, clientId: provider.clientId, clientSecret: 'NOT_SET_ANYWHERE' }]),
    });
    expect(reply.status).toBe(200);
    const providers = await api.get<ProblemBody>('/auth/providers');
    expect(providers.status).toBe(409);
    expect(providers.contentType).toContain('application/problem+json');
    expect(providers.body.errors).toEqual([{ path: '/AUTH_PROVIDERS/0/clientSecret', message: 'names no secret of the application' }]);
    expect((await api.get<ProblemBody>('/auth/oauth/test')).status).toBe(409);
  });
});
