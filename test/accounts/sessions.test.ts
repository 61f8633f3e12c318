// Issue 25 (DESIGN §18): end-user sessions over real HTTP on both drivers. Log-in answers a short-
// lived access token and a refresh token; a refresh rotates the pair; a refresh token used twice
// ends its whole family; logout ends one session, logout everywhere all of them, and the access
// tokens already handed out stop working at once rather than when they expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { availableDrivers } from '../support/databases.ts';
import { login, startAccountsApp, type AccountsApp, type SessionBody } from './sessions-app.ts';

describe.each(await availableDrivers())('end-user sessions on %s', (driver) => {
  let a: AccountsApp;
  const me = (token: string) => a.api.get('/auth/me', token);
  const refresh = (refreshToken: string) => a.api.post<SessionBody>('/auth/refresh', { refreshToken });

  beforeAll(async () => {
    a = await startAccountsApp(driver);
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee']) await a.api.signup(name, `${name.toLowerCase()}@example.test`);
  });
  afterAll(() => a?.t.close());

  it('logs in with an access token of APPBUILDER_APP_TOKEN_TTL (900 s) and a refresh token', async () => {
    const session = await login(a.api, 'ann@example.test');
    expect(session.user).toMatchObject({ email: 'ann@example.test' });
    expect(session.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(session.token);
    expect(claims.exp! - claims.iat!).toBe(900);
    expect((await me(session.token)).status).toBe(200);
  });

  it('rotates the pair on refresh; a used refresh token presented again ends the family, its newest token included', async () => {
    const first = await login(a.api, 'bob@example.test');
    const second = await refresh(first.refreshToken);
    expect(second.status).toBe(200);
    expect(second.body.refreshToken).not.toBe(first.refreshToken);
    expect(second.body.user).toMatchObject({ email: 'bob@example.test' });
    expect((await me(second.body.token)).status).toBe(200);
    const third = await refresh(second.body.refreshToken);
    expect(third.status).toBe(200);

    // The first token again: stolen or replayed. 401, and the family ends.
    const reused = await refresh(first.refreshToken);
    expect(reused.status).toBe(401);
    expect(reused.contentType).toContain('application/problem+json');
    expect((reused.body as unknown as { detail: string }).detail).toMatch(/already used/);
    expect((await refresh(third.body.refreshToken)).status).toBe(401);
    expect((await me(third.body.token)).status).toBe(401);
    // Another session of the same user is not touched.
    const other = await login(a.api, 'bob@example.test');
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  it('refuses unknown and malformed refresh tokens', async () => {
    expect((await refresh('rt_nothing')).status).toBe(401);
    const missing = await a.api.post('/auth/refresh', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ errors: [{ path: '/refreshToken' }] });
  });

  it('logs out one session: its access and refresh tokens are refused, the other session goes on', async () => {
    const one = await login(a.api, 'cid@example.test');
    const two = await login(a.api, 'cid@example.test');
    expect((await a.api.post('/auth/logout', {}, one.token)).status).toBe(204);
    expect((await me(one.token)).status).toBe(401);
    expect((await refresh(one.refreshToken)).status).toBe(401);
    expect((await me(two.token)).status).toBe(200);
    expect((await refresh(two.refreshToken)).status).toBe(200);
    expect((await a.api.post('/auth/logout', {})).status).toBe(401);
  });

  it('logs out everywhere: every access token issued before is refused at once; a new log-in works', async () => {
    const one = await login(a.api, 'dee@example.test');
    const two = await login(a.api, 'dee@example.test');
    const rotated = (await refresh(two.refreshToken)).body;
    expect((await a.api.post('/auth/logout', { all: true }, one.token)).status).toBe(204);
    for (const token of [one.token, two.token, rotated.token]) expect((await me(token)).status).toBe(401);
    for (const token of [one.refreshToken, rotated.refreshToken]) expect((await refresh(token)).status).toBe(401);
    // Within the same second as the logout: the new token is newer than it, to the millisecond.
    const after = await login(a.api, 'dee@example.test');
    expect((await me(after.token)).status).toBe(200);
    expect((await refresh(after.refreshToken)).status).toBe(200);
  });

  it('refuses a logout body that is not {all?: boolean}', async () => {
    const session = await login(a.api, 'ann@example.test');
    const bad = await a.api.post('/auth/logout', { all: 'yes' }, session.token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ path: '/all' }] });
    expect((await me(session.token)).status).toBe(200);
  });
});
