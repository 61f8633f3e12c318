/**
 * Writes one application into an archive, all of it read in one repeatable-read transaction
 * (one consistent snapshot): `application.json` (its row), `control/<table>.ndjson` (control.ts
 * rows with its id), `schema.json` (its data schema's structure, schema-ddl.ts),
 * `data/<table>.ndjson` (every row, ids included), `files.ndjson` and `files/<id>` (the files
 * its records refer to) and the manifest with per-table counts and checksums.
 */
import { sql } from 'kysely';
import type { Readable } from 'node:stream';
import type { Db } from '../storage/db.ts';
import { schemaNameForApp } from '../definition/naming.ts';
import type { StorageDriver } from '../files/drivers/driver.ts';
import { ArchiveWriter, ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, type TableSummary } from './archive.ts';
import { readSchemaShape, quote } from './schema-ddl.ts';
import { existingControlTables, jsonRows, tableSummary } from './parts.ts';

export interface SnapshotProgress {
  (done: { rows: number; table: string }): Promise<void> | void;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Writes the archive of `applicationId` to `path`: its size, SHA-256 and per-table summary. */
export async function writeSnapshot(
  db: Db,
  driver: StorageDriver,
  target: { applicationId: string; customerId: string },
  path: string,
  onProgress: SnapshotProgress = () => {},
): Promise<{ bytes: number; sha256: string; models: Record<string, TableSummary>; rows: number }> {
  const { applicationId, customerId } = target;
  const schema = schemaNameForApp(applicationId);
  const writer = new ArchiveWriter(path);
  try {
    const models: Record<string, TableSummary> = {};
    let rows = 0;
    await db.kysely
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const app = await sql<{ j: string }>`select row_to_json(a)::text as j from appbuilder.applications a where id = ${applicationId}`.execute(trx);
        writer.add('application.json', app.rows[0]!.j);
        for (const table of await existingControlTables(trx)) {
          const part = writer.part(`control/${table}.ndjson`);
          for await (const page of jsonRows(trx, sql`select * from ${sql.raw(`appbuilder.${quote(table)}`)} where application_id = ${applicationId}`)) {
            part.push(page.map((line) => `${line}\n`).join(''));
          }
          part.end();
        }
        const shape = await readSchemaShape(trx, schema);
        writer.add('schema.json', JSON.stringify(shape));
        for (const table of shape.tables) {
          const part = writer.part(`data/${table.name}.ndjson`);
          for await (const page of jsonRows(trx, sql`select * from ${sql.raw(`${quote(schema)}.${quote(table.name)}`)}`)) {
            part.push(page.map((line) => `${line}\n`).join(''));
            rows += page.length;
            await onProgress({ rows, table: table.name });
          }
          part.end();
          models[table.name] = await tableSummary(trx, schema, table.name);
        }
        const files = await sql<{ j: string; id: string; blob_key: string }>`select row_to_json(f)::text as j, f.id, f.blob_key
          from appbuilder.app_files af join appbuilder.files f on f.id = af.file_id where af.application_id = ${applicationId} order by f.id`.execute(trx);
        writer.add('files.ndjson', files.rows.map((row) => `${row.j}\n`).join(''));
        for (const file of files.rows) writer.add(`files/${file.id}`, await bytesOf(await driver.get(file.blob_key)));
      });
    const written = await writer.finish({
      format: ARCHIVE_FORMAT,
      formatVersion: ARCHIVE_FORMAT_VERSION,
      applicationId,
      customerId,
      createdAt: new Date().toISOString(),
      models,
    });
    return { ...written, models, rows };
  } catch (error) {
    writer.abort();
    throw error;
  }
}
