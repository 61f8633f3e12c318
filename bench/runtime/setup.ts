// The service under test: the real platform started in this process on a port, the to-do example
// (examples/todo.app.json, less its event trigger) created and published through the
// management API, end users signed up through the generated API, the bulk of the rows inserted by
// SQL into the published schema (signing 1,000 users up through scrypt would take minutes and
// measure nothing of reads).
import { sql } from 'kysely';
import type { Config } from '../../src/config.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { todoScode } from '../../test/support/examples.ts';
import { startTestPlatform } from '../../test/support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../../test/support/tenant.ts';
import { signup, type BenchService as SharedService, type EndUser, type SeedSize as SharedSize } from '../support/setup.ts';
import { insertUsersAndTodos } from './seed-sql.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface BenchService extends SharedService {
  tenant: Tenant;
  /** The builder's management credentials: the app's administrator. */
  adminHeaders: Record<string, string>;
}

export interface SeedSize extends SharedSize {
  /** How many of the users sign up through the API (their tokens drive the load). */
  signups: number;
}

async function publish(tenant: Tenant, applicationId: string): Promise<void> {
  const reply = await tenant.api.post<AppReply>(`/v1/applications/${applicationId}/publish`, {});
  if (reply.status !== 202) throw new Error(`publish answered ${reply.status}: ${reply.text}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await tenant.api.get<{ jobs: Array<{ jobType: string; status: string }> }>(`/v1/applications/${applicationId}/status`);
    const job = status.body.jobs.find((j) => j.jobType === 'deployment');
    if (job?.status === 'succeeded') return;
    if (job?.status === 'failed') throw new Error('the deployment job failed');
    if (Date.now() > deadline) throw new Error('the deployment job did not finish in 120 s');
    await sleep(100);
  }
}

/** Users 1..signups through the API, the rest and every to-do by SQL; then ANALYZE. */
async function seed(service: Omit<BenchService, 'users' | 'close'>, size: SeedSize): Promise<EndUser[]> {
  const { app } = service;
  const db = service.t.platform.db.kysely;
  const signedUp: Array<{ id: string; token: string }> = [];
  for (let i = 1; i <= size.signups; i++) signedUp.push(await signup(service.apiUrl, i));
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
  await insertUsersAndTodos(db, app, size.signups + 1, size);
  const users: EndUser[] = [];
  for (const s of signedUp) {
    const ids = await sql<{ id: string }>`select id from ${ident(app.schema, todo.table)} where ${t('user')} = ${s.id} order by id`.execute(db);
    users.push({ ...s, todoIds: ids.rows.map((r) => r.id) });
  }
  return users;
}

/** `overrides`: settings of the service (bench:query seeds a million rows: no statement timeout). */
export async function startService(driver: Driver, size: SeedSize, overrides: Partial<Config> = {}): Promise<BenchService> {
  const t = await startTestPlatform(driver, overrides);
  try {
    const tenant = await createTenant(t, 'Bench');
    // The example without its event trigger, whose welcome to-do for each new user would be
    // written in the background (100,020 rows, and a write in the middle of a measurement).
    const scode = todoScode();
    scode.triggers = (scode.triggers as Array<{ trigger: { type: string } }>).filter((trigger) => trigger.trigger.type !== 'event');
    const created = await createTodoApp(tenant, scode);
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const apiUrl = `${t.baseUrl}${t.config.appsPath}/${created.id}/api/v${created.serverVersion}`;
    const adminHeaders = { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    const partial = { t, tenant, app, apiUrl, adminHeaders };
    const users = await seed(partial, size);
    return { ...partial, users, close: () => t.close() };
  } catch (error) {
    await t.close();
    throw error;
  }
}
