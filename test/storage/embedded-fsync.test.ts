import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/storage/db.ts';
import { embeddedFsync, embeddedSyncCount, pgliteStartParams } from '../../src/storage/pglite.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded store is durable by default', () => {
  it('reads APPBUILDER_EMBEDDED_FSYNC: on unless off', () => {
    expect(embeddedFsync({})).toBe(true);
    expect(embeddedFsync({ APPBUILDER_EMBEDDED_FSYNC: 'on' })).toBe(true);
    expect(embeddedFsync({ APPBUILDER_EMBEDDED_FSYNC: 'OFF' })).toBe(false);
  });

  it('drops PGlite\'s -F and syncs the WAL with fsync when on; keeps -F when off', () => {
    const durable = pgliteStartParams(['--single', '-F', '-O'], {}, true);
    expect(durable).not.toContain('-F');
    expect(durable).toEqual(expect.arrayContaining(['fsync=on', 'wal_sync_method=fsync']));
    expect(pgliteStartParams(['--single', '-F', '-O'], {}, false)).toContain('-F');
  });

  it('a commit on a data directory reaches the disk through fsync, and stays after a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'appbuilder-fsync-'));
    dirs.push(dir);
    const db = await openPglite(dir, true);
    const setting = await sql<{ fsync: string }>`show fsync`.execute(db.kysely);
    expect(setting.rows[0]!.fsync).toBe('on');
    await sql`create table durable (n int)`.execute(db.kysely);
    const before = embeddedSyncCount();
    for (let i = 0; i < 5; i++) await sql`insert into durable values (${i})`.execute(db.kysely);
    expect(embeddedSyncCount() - before).toBeGreaterThanOrEqual(5);
    await db.close();
    const reopened = await openPglite(dir, true);
    const count = await sql<{ n: number }>`select count(*)::int as n from durable`.execute(reopened.kysely);
    expect(count.rows[0]!.n).toBe(5);
    await reopened.close();
  }, 60_000);
});
