/**
 * Revocation across processes (DESIGN §10), on PostgreSQL: a builder token works on two server
 * processes sharing the database (this one and `appbuilder serve --role api` in a child
 * process), is revoked through one, and is refused by the other on the very next request.
 * Deactivating the builder works the same way in the other direction.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { addBuilder, tokenFor } from './builders-support.ts';
import { freePort } from '../support/ports.ts';

const hasPostgres = await postgresAvailable();
const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));
// One master key for both processes, so the API client's access token is valid on both too.
const MASTER_KEY = randomBytes(32).toString('base64');

describe.skipIf(!hasPostgres)('builder token revocation across two processes (PostgreSQL)', () => {
  let t: TestPlatform;
  let a: Tenant;
  let child: ChildProcess | undefined;
  let second: string;

  beforeAll(async () => {
    t = await startTestPlatform('postgres', { masterKey: MASTER_KEY });
    a = await createTenant(t, 'Revocation');
    const port = await freePort();
    let output = '';
    child = spawn(process.execPath, [BIN, 'serve', '--role', 'api', '--port', String(port), '--host', '127.0.0.1'], {
      env: { ...process.env, DATABASE_URL: t.database.url!, APPBUILDER_MASTER_KEY: MASTER_KEY, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    second = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`${second}/readyz`).then((r) => r.status === 200, () => false);
      if (up) break;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the second process did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 90_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await t?.close();
  }, 60_000);

  it('refuses a token revoked through one process on the very next request to the other', async () => {
    const builder = await addBuilder(a.api, 'viewer');
    const onSecond = new ApiClient(second, a.api.apiKey);
    onSecond.token = builder.token;
    expect((await builder.api.get('/v1/projects')).status).toBe(200);
    expect((await onSecond.get('/v1/projects')).status).toBe(200);

    expect((await a.api.delete(`/v1/builders/${builder.id}/tokens/${builder.tokenId}`)).status).toBe(204);
    const refused = await onSecond.get('/v1/projects');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await builder.api.get('/v1/projects')).status).toBe(401);
  });

  it('refuses a builder deactivated through the other process on the next request here', async () => {
    const builder = await addBuilder(a.api, 'editor');
    const token = await tokenFor(a.api, builder.id);
    expect((await token.api.get('/v1/projects')).status).toBe(200);
    const ownerOnSecond = new ApiClient(second, a.api.apiKey);
    ownerOnSecond.token = a.api.token;
    expect((await ownerOnSecond.patch(`/v1/builders/${builder.id}`, { isActive: false })).status).toBe(200);
    expect((await token.api.get('/v1/projects')).status).toBe(401);
    expect((await builder.api.get('/v1/projects')).status).toBe(401);
  });
});
