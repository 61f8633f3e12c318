// The service under test for `npm run bench:realtime`: `npm start` itself (the compiled build, the
// flags a user runs it with) in a process of its own over a fresh PostgreSQL database, so that the
// RSS measured is the serving process's alone, not this bench's. The to-do example (less its event
// trigger) is published through the management API; `users` end users with one to-do each are
// inserted by SQL (signing 10,000 users up through scrypt would take minutes and measure nothing of
// realtime), each with an access token signed with the application's own key, as the service signs
// them. The service's own figures (realtime statements, connections, CPU, heap) come from its
// /metrics; its memory from /proc.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { ident } from '../../src/storage/sql.ts';
import { ApiClient } from '../../test/support/client.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { BOOTSTRAP } from '../../test/support/platform.ts';
import { publish } from '../../test/support/publish.ts';
import { createTodoApp } from '../../test/support/tenant.ts';
import { todoScodeWithoutEvents } from '../../test/runtime/served-app.ts';
import { endUserKey } from '../support/baseline.ts';
import { npmStart, processTree, type NpmStart } from '../scale/process-tree.ts';

export interface Subscriber {
  id: string;
  token: string;
  todoId: string;
}

export interface RealtimeService {
  applicationId: string;
  /** `http://127.0.0.1:port/apps/{id}/api/v{version}` */
  apiUrl: string;
  users: Subscriber[];
  /** The serving node process (npm's child). */
  pid: number;
  metrics(): Promise<ServiceMetrics>;
  /** Resident memory now and at its peak since the last `resetPeak`, MB (/proc/{pid}/status). */
  memory(): { rssMb: number; peakMb: number };
  resetPeak(): void;
  close(): Promise<void>;
}

/** The figures of the service's /metrics the bench reads. */
export interface ServiceMetrics {
  connections: number;
  visibilityStatements: number;
  outboxStatements: number;
  cpuSeconds: number;
  heapUsedMb: number;
  loopP99Ms: number;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The sum of a metric's samples in Prometheus text whose labels contain `labels` (a metric absent: 0). */
function metric(text: string, name: string, labels = ''): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || !/^[{ ]/.test(line.slice(name.length)) || !line.includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

function kb(status: string, field: string): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
}

/** Starts `npm start` on PostgreSQL with the environment `env` (realtime settings) and seeds `users` end users with a to-do each. */
export async function startRealtimeService(users: number, env: Record<string, string>): Promise<RealtimeService> {
  const database: TestDatabase = await createTestDatabase('postgres');
  let service: NpmStart | undefined;
  try {
    service = await npmStart(ROOT, {
      ...env,
      DATABASE_URL: database.url!,
      APPBUILDER_BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
      APPBUILDER_BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
      APPBUILDER_APP_RATE_LIMIT: '100000000',
      // Every subscriber connects from this machine's one address.
      APPBUILDER_REALTIME_MAX_PER_ADDRESS: '100000',
      APPBUILDER_REALTIME_MAX_PER_APP: '100000',
      APPBUILDER_TOKEN_RATE_LIMIT: '100000',
    });
    const admin = await ApiClient.login(service.url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Realtime bench' });
    const api = await ApiClient.login(service.url, customer.body.apiClient);
    const project = await api.post<{ id: string }>('/v1/projects', { name: 'Realtime bench' });
    const tenant = { api, projectId: project.body.id };
    const created = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const db = database.db.kysely;
    const user = app.userModel!;
    const todo = app.modelsByResource.get('toDos')!;
    const u = (name: string) => ident(user.fieldsByName.get(name)!.column!);
    const c = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
    await sql`insert into ${ident(app.schema, user.table)} (id, ${u('name')}, ${u('email')})
      select gen_random_uuid(), 'User ' || i, 'user' || i || '@bench.test' from generate_series(1, ${users}::int) i`.execute(db);
    await sql`insert into ${ident(app.schema, todo.table)} (id, ${c('title')}, ${c('status')}, ${c('user')})
      select gen_random_uuid(), 'To-do of ' || u.id, 'open', u.id from ${ident(app.schema, user.table)} u`.execute(db);
    await sql`analyze`.execute(db);
    const rows = await sql<{ id: string; todo_id: string }>`select ${c('user')} as id, id as todo_id from ${ident(app.schema, todo.table)} order by ${c('user')}`.execute(db);
    // Tokens live for the whole run: no expiry timer fires in the middle of a measurement.
    const key = await endUserKey(database.db, created.id);
    const subscribers: Subscriber[] = [];
    for (const row of rows.rows) {
      const token = await new SignJWT({ ims: Date.now() }).setProtectedHeader({ alg: 'HS256' }).setSubject(row.id).setAudience(`app:${created.id}`).setIssuedAt().setExpirationTime('4h').sign(key);
      subscribers.push({ id: row.id, token, todoId: row.todo_id });
    }
    const running = service;
    const pid = processTree(running.child.pid!).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('appbuilder.js'));
    if (pid === undefined) throw new Error(`no serving process under npm start:\n${running.output()}`);
    return {
      applicationId: created.id,
      apiUrl: `${running.url}/apps/${created.id}/api/v${created.serverVersion}`,
      users: subscribers,
      pid,
      metrics: async () => {
        const text = await (await fetch(`${running.url}/metrics`)).text();
        return {
          connections: metric(text, 'appbuilder_realtime_connections'),
          visibilityStatements: metric(text, 'appbuilder_realtime_statements_total', 'kind="visibility"'),
          outboxStatements: metric(text, 'appbuilder_realtime_statements_total', 'kind="outbox"'),
          cpuSeconds: metric(text, 'process_cpu_seconds_total'),
          heapUsedMb: metric(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
          loopP99Ms: metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
        };
      },
      memory: () => {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return { rssMb: kb(status, 'VmRSS') / 1024, peakMb: kb(status, 'VmHWM') / 1024 };
      },
      // Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS (Linux, proc(5)).
      resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
      close: async () => {
        await running.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await service?.stop();
    await database.drop();
    throw error;
  }
}
