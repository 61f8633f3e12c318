// The request log's day partitions (DESIGN §19): `appbuilder.request_log_pYYYYMMDD` holds the rows
// of one UTC day. The writer creates the partitions of the days it writes (and the service those
// of today and tomorrow at start), and retention drops whole partitions: no row-by-row delete, no
// bloat, and a drop costs the same whatever the day's traffic was.
import { sql, type Kysely } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { quoteIdent } from '../storage/sql.ts';

const DAY_MS = 86_400_000;
const PREFIX = 'request_log_p';
// Any constant; the same in every process, so two writers never create one partition at once.
const PARTITION_LOCK_KEY = 7_311_043;

/** The UTC day of `at` as `YYYYMMDD`. */
export function dayKey(at: Date): string {
  return at.toISOString().slice(0, 10).replaceAll('-', '');
}

function dayStart(key: string): Date {
  return new Date(`${key.slice(0, 4)}-${key.slice(4, 6)}-${key.slice(6, 8)}T00:00:00Z`);
}

/** Creates the partitions of the days of `dates` that do not exist yet; resolves to the keys of the days now present. */
export async function ensureDayPartitions(executor: Executor, dates: Date[]): Promise<string[]> {
  const keys = [...new Set(dates.map(dayKey))];
  if (keys.length === 0) return [];
  await executor.transaction().execute(async (trx) => {
    const db = trx as unknown as Kysely<unknown>;
    await sql`select pg_advisory_xact_lock(${PARTITION_LOCK_KEY})`.execute(db);
    for (const key of keys) {
      const from = dayStart(key);
      const to = new Date(from.getTime() + DAY_MS);
      // The bounds are our own ISO strings (not input), so they are written as literals: DDL takes no parameters.
      await sql
        .raw(
          `create table if not exists appbuilder.${quoteIdent(PREFIX + key)} partition of appbuilder.request_log ` +
            `for values from ('${from.toISOString()}') to ('${to.toISOString()}') ` +
            // Append-only and dropped whole at the end of retention: vacuum has nothing to reclaim, and
            // autovacuum's insert-driven passes over a partition taking every request cost the database more
            // than the inserts themselves (anti-wraparound vacuum still runs when it must).
            `with (autovacuum_enabled = false)`,
        )
        .execute(db);
    }
  });
  return keys;
}

/** The day keys of the request log's partitions, oldest first. */
export async function listDayPartitions(executor: Executor): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_class p on p.oid = i.inhparent
    join pg_namespace n on n.oid = p.relnamespace
    where n.nspname = 'appbuilder' and p.relname = 'request_log'`.execute(executor);
  return result.rows
    .map((row) => row.name)
    .filter((name) => /^request_log_p\d{8}$/.test(name))
    .map((name) => name.slice(PREFIX.length))
    .sort();
}

/**
 * Drops the partitions whose whole day ended more than `retentionDays` days before `now`;
 * resolves to the day keys dropped. Several processes doing it at once drop each one once.
 */
export async function dropExpiredPartitions(executor: Executor, retentionDays: number, now = new Date()): Promise<string[]> {
  const cutoff = now.getTime() - retentionDays * DAY_MS;
  const expired = (await listDayPartitions(executor)).filter((key) => dayStart(key).getTime() + DAY_MS <= cutoff);
  for (const key of expired) {
    await sql.raw(`drop table if exists appbuilder.${quoteIdent(PREFIX + key)}`).execute(executor);
  }
  return expired;
}
