import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.ts';
import { jsonb } from '../../src/storage/sql.ts';
import { uuidv7 } from '../../src/tools/ids.ts';

/** Short pg-boss intervals so retries and expiries happen within a test. */
export const FAST = {
  pollingIntervalSeconds: 0.5,
  superviseIntervalSeconds: 1,
  monitorIntervalSeconds: 1,
  stopTimeoutMs: 2_000,
} as const;

export interface Owner {
  customerId: string;
  projectId: string;
}

/** A customer and a project, inserted directly: jobs only need their ids. */
export async function createOwner(db: Db): Promise<Owner> {
  const customerId = uuidv7();
  const projectId = uuidv7();
  await db.kysely.insertInto('appbuilder.customers').values({ id: customerId, name: 'Jobs test' }).execute();
  await db.kysely
    .insertInto('appbuilder.projects')
    .values({ id: projectId, customer_id: customerId, name: 'Jobs project', components: jsonb([]) })
    .execute();
  return { customerId, projectId };
}

/**
 * Records every status a job row takes, by a trigger, so a test can assert the whole
 * flow (queued → running → …) without sampling the row at the right moment.
 */
export async function installStatusLog(db: Db): Promise<void> {
  const statements = [
    `create table public.job_status_log (
       seq bigserial primary key, job_id uuid not null, status text not null, error_message text)`,
    `create function public.log_job_status() returns trigger language plpgsql as $$
     begin
       if tg_op = 'INSERT' or new.status is distinct from old.status then
         insert into public.job_status_log (job_id, status, error_message) values (new.id, new.status, new.error_message);
       end if;
       return new;
     end $$`,
    `create trigger job_status_log after insert or update on appbuilder.jobs
       for each row execute function public.log_job_status()`,
    `create table public.job_attempts (seq bigserial primary key, job_id uuid not null, worker text not null)`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db.kysely);
}

export async function statusLog(db: Db, jobId: string): Promise<Array<{ status: string; error: string | null }>> {
  const result = await sql<{ status: string; error_message: string | null }>`
    select status, error_message from public.job_status_log where job_id = ${jobId} order by seq`.execute(db.kysely);
  return result.rows.map((row) => ({ status: row.status, error: row.error_message }));
}

/** Which workers ran a job, in order (written by the test handlers, also from another process). */
export async function recordAttempt(db: Db, jobId: string, worker: string): Promise<void> {
  await sql`insert into public.job_attempts (job_id, worker) values (${jobId}, ${worker})`.execute(db.kysely);
}

export async function attempts(db: Db, jobId: string): Promise<string[]> {
  const result = await sql<{ worker: string }>`select worker from public.job_attempts where job_id = ${jobId} order by seq`.execute(db.kysely);
  return result.rows.map((row) => row.worker);
}

/** Polls `read` until `done` holds; the timeout is only a safety net, never an assertion. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
