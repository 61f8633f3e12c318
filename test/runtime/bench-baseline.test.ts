// `npm run bench:runtime` compares equal work (issue 43): for every request the bench times, the
// hand-written baseline (bench/runtime/baseline-server.ts, its SQL from bench/runtime/baseline.ts)
// and the generated API answer the same status and the same bytes, on both drivers; and the
// baseline applies the owner condition as the service's rule does (another user's to-do: 404 on both).
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { baselineDatabase, endUserKey, type BaselineDatabase } from '../../bench/support/baseline.ts';
import { NARROW_FIELDS, statements } from '../../bench/runtime/baseline.ts';
import { serveBaseline } from '../../bench/runtime/baseline-server.ts';
import { cases, type Case } from '../../bench/runtime/cases.ts';
import { seedTodos } from '../../bench/runtime/outside.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, todoScodeWithoutEvents } from './served-app.ts';

describe.each(await availableDrivers())('the runtime bench baseline on %s', (driver) => {
  let t: TestPlatform;
  let database: BaselineDatabase;
  let baseline: { url: string; close(): Promise<void> };
  let benched: Case[];
  let other: { path: string; token: string; baselinePath: string };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const tenant = await createTenant(t, 'Bench baseline');
    const created = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const key = await endUserKey(t.platform.db, created.id);
    // 25 to-dos each: a list of 20 has more behind it, so the totals and the pages both count.
    const users = await seedTodos(t.platform.db, app, key, { users: 3, todosPerUser: 25 });
    const adminKey = randomBytes(32);
    const adminToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('baseline-admin').setExpirationTime('1h').sign(adminKey);
    database = baselineDatabase(driver, t);
    baseline = await serveBaseline(
      { statements: statements(app, t.config.embeddedIdLimit), endUserKey: Buffer.from(key).toString('base64url'), adminKey: adminKey.toString('base64url'), audience: `app:${created.id}`, narrowFields: NARROW_FIELDS },
      database.query,
    );
    const apiPath = `${t.config.appsPath}/${created.id}/api/v${created.serverVersion}`;
    benched = cases({ apiPath, adminHeaders: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! }, adminToken, users });
    other = { path: `${apiPath}/toDos/${users[1].todoIds[0]}`, baselinePath: `/toDos/${users[1].todoIds[0]}`, token: users[0].token };
  });
  afterAll(async () => {
    await baseline?.close();
    await database?.close();
    await t?.close();
  });

  const answer = async (url: string, headers: Record<string, string>) => {
    const reply = await fetch(url, { headers });
    return { status: reply.status, bytes: Buffer.from(await reply.arrayBuffer()) };
  };

  it('benches the four shapes, each over every user', () => {
    expect(benched.map((c) => c.letter)).toEqual(['a', 'b', 'c', 'e']);
    expect(benched.find((c) => c.letter === 'c')!.platform).toHaveLength(30);
    expect(benched.find((c) => c.letter === 'a')!.platform).toHaveLength(3);
  });

  it.each(['a', 'b', 'c', 'e'])('answers every request of case (%s) with the same bytes as the service', async (letter) => {
    const c = benched.find((x) => x.letter === letter)!;
    for (let i = 0; i < c.platform.length; i++) {
      const mine = await answer(`${t.baseUrl}${c.platform[i].path}`, c.platform[i].headers);
      const theirs = await answer(`${baseline.url}${c.baseline[i].path}`, c.baseline[i].headers);
      expect(mine.status, c.platform[i].path).toBe(200);
      expect(theirs.status).toBe(200);
      expect(theirs.bytes.toString()).toBe(mine.bytes.toString());
      expect(theirs.bytes.equals(mine.bytes)).toBe(true);
    }
  });

  it('refuses another user\'s to-do on both sides (the owner condition)', async () => {
    const headers = { authorization: `Bearer ${other.token}` };
    expect((await answer(`${t.baseUrl}${other.path}`, headers)).status).toBe(404);
    expect((await answer(`${baseline.url}${other.baselinePath}`, headers)).status).toBe(404);
  });
});
