// The request log's writes (PGlite, and PostgreSQL when it answers): one statement stores every field
// as given (nulls and text that array literals must escape included), and rows that keep arriving
// while a write is slower than the database usually is wait for the next interval instead of
// being written back to back a few rows at a time (the cause of the log's cost in issue 26).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDayPartitions } from '../../src/monitoring/partitions.ts';
import { insertRequestLog, type RequestLogEntry } from '../../src/monitoring/request-log.ts';
import { BatchWriter } from '../../src/storage/batch-writer.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';

const APP = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const entry = (i: number, fields: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  at: new Date(Date.now() + i),
  applicationId: APP,
  serverVersion: '1.0.0',
  method: 'GET',
  route: '/toDos/:id',
  status: 200,
  durationMs: 1.25,
  userId: null,
  bytes: 100 + i,
  errorType: null,
  ...fields,
});

describe.each(await availableDrivers())('request log writes on %s', (driver) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    await migrateControlPlane(database.db);
    await ensureDayPartitions(database.db.kysely, [new Date(), new Date(Date.now() + 86_400_000)]);
  });
  afterAll(() => database?.drop());

  const stored = async (where: string) =>
    (
      await sql<{ at: Date; server_version: string; method: string; route: string; status: number; duration_ms: number; user_id: string | null; bytes: number | null; error_type: string | null }>`
        select at, server_version, method, route, status, duration_ms, user_id, bytes, error_type from appbuilder.request_log
        where server_version = ${where} order by at`.execute(database.db.kysely)
    ).rows;

  it('stores every field of every row as given, in one statement', async () => {
    const awkward = ['a,b', 'say "hi"', 'back\\slash', '{braces}', 'NULL', '', 'ünïcødé ✓'];
    const entries = awkward.map((text, i) =>
      entry(i, { serverVersion: 'fields', route: `/r/${text}`, userId: i % 2 ? text : null, errorType: i % 3 ? text : null, bytes: i === 0 ? null : i, status: 500 + i, durationMs: i + 0.5 }),
    );
    await insertRequestLog(database.db.kysely, entries);
    const rows = await stored('fields');
    expect(rows.map((r) => ({ ...r, at: new Date(r.at).getTime(), status: Number(r.status), duration_ms: Number(r.duration_ms) }))).toEqual(
      entries.map((e) => ({
        at: e.at.getTime(),
        server_version: 'fields',
        method: 'GET',
        route: e.route,
        status: e.status,
        duration_ms: e.durationMs,
        user_id: e.userId,
        bytes: e.bytes,
        error_type: e.errorType,
      })),
    );
  });

  it('writes rows arriving during a slow write at the next interval, not back to back', async () => {
    const FLUSH_MS = 100;
    const statements: number[] = [];
    const writer = new BatchWriter<RequestLogEntry>({
      flushAfterMs: FLUSH_MS,
      maxRows: 10_000,
      maxPending: 50_000,
      what: 'test rows',
      write: async (batch) => {
        // A write slower than rows arrive (a commit waiting for the disk), far quicker than the interval.
        await sql`select pg_sleep(0.01)`.execute(database.db.kysely);
        await insertRequestLog(database.db.kysely, batch);
        statements.push(batch.length);
      },
    });
    const started = Date.now();
    let added = 0;
    while (Date.now() - started < 600) {
      writer.add(entry(added++, { serverVersion: 'batched' }));
      await sleep(1);
    }
    const elapsed = Date.now() - started;
    await writer.flush();
    // One statement per interval (and the final flush); written back to back it was one per ~10 ms.
    expect(statements.length).toBeLessThanOrEqual(Math.ceil(elapsed / FLUSH_MS) + 2);
    expect(statements.reduce((sum, n) => sum + n, 0)).toBe(added);
    const rows = await stored('batched');
    expect(rows.map((r) => r.bytes)).toEqual(Array.from({ length: added }, (_, i) => 100 + i));
  });
});
