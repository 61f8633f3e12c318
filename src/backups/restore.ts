/**
 * Writes a checked archive (archive.ts) back: into a scratch schema that is always rolled back
 * (the restore drill that verifies a backup), or over the application it came from, in one
 * transaction: until it commits the application serves as before; after, every process serves
 * the restored versions (the served-change notice) and forgets its cached users and values.
 */
import { sql } from 'kysely';
import { Readable } from 'node:stream';
import type { Db, Executor } from '../storage/db.ts';
import { schemaNameForApp } from '../definition/naming.ts';
import type { StorageDriver } from '../files/drivers/driver.ts';
import { notifyServedChange } from '../runtime/served-notices.ts';
import { notifyConfigChange } from '../secrets/app-values.ts';
import { USERS_CHANNEL } from '../runtime/end-user-cache.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { OpenedArchive } from './archive.ts';
import { quote, statementsFor, type SchemaShape } from './schema-ddl.ts';
import { existingControlTables, insertJsonRows, tableSummary, writableColumns } from './parts.ts';

const BATCH = 1000;

export function* ndjsonBatches(text: string): Generator<string[]> {
  let batch: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    batch.push(line);
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Makes `schema` from the archive's structure and rows; returns the rows written. */
export async function loadData(executor: Executor, archive: OpenedArchive, schema: string, onRows: (rows: number) => Promise<void> | void = () => {}): Promise<number> {
  const shape = JSON.parse(archive.text('schema.json')) as SchemaShape;
  await sql`create schema ${sql.raw(quote(schema))}`.execute(executor);
  const statements = statementsFor(shape.statements, schema);
  const creates = statements.filter((statement) => /^create table /i.test(statement) || /^create or replace function /i.test(statement));
  const rest = statements.filter((statement) => !creates.includes(statement));
  for (const statement of creates) await sql.raw(statement).execute(executor);
  let rows = 0;
  // Rows before constraints, indexes and triggers: each is checked once, at the end, and no trigger fires per restored row.
  for (const table of shape.tables) {
    for (const batch of ndjsonBatches(archive.text(`data/${table.name}.ndjson`))) {
      await insertJsonRows(executor, schema, table.name, table.writable, batch);
      rows += batch.length;
      await onRows(rows);
    }
  }
  for (const statement of rest) await sql.raw(statement).execute(executor);
  return rows;
}

/** Raised inside the drill's transaction so it always rolls back. */
class DrillDone extends Error {}

/**
 * The restore drill: makes the archive's data in a scratch schema, in a transaction always
 * rolled back, and compares each table's rows and checksum with the manifest. Resolves with
 * the rows restored; rejects naming the first table that differs.
 */
export async function drill(db: Db, archive: OpenedArchive): Promise<number> {
  const scratch = `backup_drill_${uuidv7().replace(/-/g, '')}`;
  let restored = 0;
  try {
    await db.kysely.transaction().execute(async (trx) => {
      restored = await loadData(trx, archive, scratch);
      for (const [table, expected] of Object.entries(archive.manifest.models)) {
        const actual = await tableSummary(trx, scratch, table);
        if (actual.rows !== expected.rows) throw new Error(`Table ${table}: ${actual.rows} rows restored, ${expected.rows} backed up.`);
        if (actual.checksum !== expected.checksum) throw new Error(`Table ${table}: the restored rows' checksum differs from the backed-up one.`);
      }
      throw new DrillDone();
    });
  } catch (error) {
    if (!(error instanceof DrillDone)) throw error;
  }
  return restored;
}

interface ArchivedFile {
  id: string;
  blob_key: string;
  [column: string]: unknown;
}

/**
 * Restores the archive over its own application. Files it refers to that are gone are stored
 * again first (new blobs, unreferenced should the transaction fail, then swept); everything
 * else is one transaction.
 */
export async function restoreInPlace(db: Db, driver: StorageDriver, archive: OpenedArchive, applicationId: string, onRows?: (rows: number) => Promise<void> | void): Promise<number> {
  const schema = schemaNameForApp(applicationId);
  const files = [...ndjsonBatches(archive.text('files.ndjson'))].flat().map((line) => JSON.parse(line) as ArchivedFile);
  const present = files.length
    ? new Set((await sql<{ id: string }>`select id from appbuilder.files where id = any(cast(${files.map((file) => file.id)} as uuid[]))`.execute(db.kysely)).rows.map((row) => row.id))
    : new Set<string>();
  const missing = files.filter((file) => !present.has(file.id));
  const blobs = new Map<string, string>();
  for (const file of missing) {
    const key = uuidv7();
    await driver.put(key, Readable.from([Buffer.from(archive.parts[`files/${file.id}`]!)]));
    blobs.set(file.id, key);
  }
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      await sql`select id from appbuilder.applications where id = ${applicationId} for update`.execute(trx);
      await sql`set local statement_timeout = 0`.execute(trx);
      const tables = await existingControlTables(trx);
      // A restore signs every end user out: their sessions (and refresh tokens with them) go.
      await sql`delete from appbuilder.end_user_sessions where application_id = ${applicationId}`.execute(trx);
      for (const table of [...tables].reverse()) await sql`delete from ${sql.raw(`appbuilder.${quote(table)}`)} where application_id = ${applicationId}`.execute(trx);
      await sql`drop schema if exists ${sql.raw(quote(schema))} cascade`.execute(trx);
      const rows = await loadData(trx, archive, schema, onRows);
      if (missing.length > 0) {
        const columns = await writableColumns(trx, 'appbuilder', 'files');
        const lines = missing.map((file) => JSON.stringify({ ...file, blob_key: blobs.get(file.id) }));
        await insertJsonRows(trx, 'appbuilder', 'files', columns, lines);
      }
      for (const table of tables) {
        const name = `control/${table}.ndjson`;
        if (!(name in archive.parts)) continue;
        const columns = await writableColumns(trx, 'appbuilder', table);
        for (const batch of ndjsonBatches(archive.text(name))) await insertJsonRows(trx, 'appbuilder', table, columns, batch);
      }
      const columns = (await writableColumns(trx, 'appbuilder', 'applications')).filter((column) => !['id', 'customer_id', 'project_id', 'created_at'].includes(column));
      const list = columns.map(quote).join(', ');
      await sql`update appbuilder.applications set (${sql.raw(list)}) = (select ${sql.raw(list)} from json_populate_record(null::appbuilder.applications, ${archive.text('application.json')}::json))
        where id = ${applicationId}`.execute(trx);
      await notifyServedChange(trx, applicationId);
      await notifyConfigChange(trx, 'application', applicationId);
      await sql`select pg_notify(${USERS_CHANNEL}, ${`${schema} *`})`.execute(trx);
      return rows;
    });
  } catch (error) {
    for (const key of blobs.values()) await driver.remove(key).catch(() => {});
    throw error;
  }
}
