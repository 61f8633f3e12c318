/**
 * Event-trigger tests: a real service (with short event and queue intervals), apps published
 * through the management API, and calls to `{app_url}/api/v{version}/…`.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { startPlatform, type Role } from '../../src/platform.ts';
import type { Driver } from '../../src/storage/db.ts';
import type { Db } from '../../src/storage/db.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS, type TestPlatform } from '../support/platform.ts';
import type { Tenant } from '../support/tenant.ts';

export { publish } from '../support/publish.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds of its answer; fails after `timeoutMs`. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(200);
  }
}

/**
 * A service on a real port over `database` (a fresh one unless given), polling the outbox every
 * second (`pollSeconds`: a long one shows that commits are dispatched without the poll).
 */
export async function startEventsPlatform(
  driver: Driver,
  options: { role?: Role; database?: TestDatabase; pollSeconds?: number } = {},
): Promise<TestPlatform> {
  const database = options.database ?? (await createTestDatabase(driver));
  const config = loadConfig({ ...process.env, APPBUILDER_TOKEN_RATE_LIMIT: '1000', ...GENEROUS_APP_LIMITS, APPBUILDER_SCHEDULE_CHECK: '1' }, { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' });
  const platform = await startPlatform(config, {
    db: database.db,
    logger: false,
    role: options.role ?? 'all',
    queue: { pollingIntervalSeconds: 0.5, stopTimeoutMs: 2_000 },
    events: { pollSeconds: options.pollSeconds ?? 1, retryDelaySeconds: 1 },
  });
  const baseUrl = await platform.server.listen({ port: 0, host: '127.0.0.1' });
  return {
    platform,
    database,
    baseUrl,
    config,
    close: async () => {
      await platform.close();
      await database.drop();
    },
  };
}

export interface AppAnswer<T> {
  status: number;
  body: T;
}

/** Calls one served version as an end user (their token), anonymously (null) or as the administrator. */
export async function callApp<T = Record<string, unknown>>(
  t: TestPlatform,
  tenant: Tenant,
  app: { id: string; serverVersion: string },
  method: string,
  path: string,
  as: string | 'admin' | null,
  body?: unknown,
): Promise<AppAnswer<T>> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (as === 'admin') {
    headers.authorization = `Bearer ${tenant.api.token}`;
    headers['x-svc-api-client'] = tenant.api.apiKey!;
  } else if (as) headers.authorization = `Bearer ${as}`;
  const url = `${t.baseUrl}${t.config.appsPath}/${app.id}/api/v${app.serverVersion}${path}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Signs up an end user of the app; their token and id. */
export async function signup(t: TestPlatform, tenant: Tenant, app: { id: string; serverVersion: string }, name: string): Promise<{ token: string; id: string }> {
  const reply = await callApp<{ token: string; user: { id: string } }>(t, tenant, app, 'POST', '/auth/signup', null, {
    name,
    email: `${name.toLowerCase()}@example.com`,
    password: 'correct horse battery',
  });
  if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return { token: reply.body.token, id: reply.body.user.id };
}

export interface StoredRun {
  id: string;
  trigger_id: string | null;
  action_id: string;
  status: string;
  input: { event?: { name: string; payload: Record<string, unknown> } };
  error: { message: string } | null;
}

/** The runs stored for an application, oldest first. */
export async function runsOf(db: Db, applicationId: string): Promise<StoredRun[]> {
  const result = await sql<StoredRun>`select id, trigger_id, action_id, status, input, error from appbuilder.runs
    where application_id = ${applicationId} order by started_at, id`.execute(db.kysely);
  return result.rows;
}

/** True once every outbox row is dispatched and no delivery is waiting, running or retrying. */
export async function eventsSettled(db: Db): Promise<boolean> {
  const pending = await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where dispatched_at is null`.execute(db.kysely);
  const jobs = await sql<{ n: number }>`select count(*)::int as n from pgboss.job
    where name = 'app-event' and state in ('created', 'retry', 'active')`.execute(db.kysely);
  return pending.rows[0].n === 0 && jobs.rows[0].n === 0;
}
