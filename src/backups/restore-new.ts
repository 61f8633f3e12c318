/**
 * A new application made from an archive (`POST …/applications` with `fromBackup`): the same
 * definition, versions, served versions, rows (with their ids), files, variables, secrets and end
 * users under a new id, in one transaction. What is sealed for the old id (the data key, secret
 * values, the signing key, TOTP secrets) is opened with the master key and sealed again for the
 * new one; where the master key cannot open it (an archive of another service), secrets and
 * factors are left out and each one is named in the warnings.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { schemaNameForApp } from '../definition/naming.ts';
import type { StorageDriver } from '../files/drivers/driver.ts';
import { dataKeyAad, isSealed, open, seal, signingKeyAad, valueAad } from '../secrets/envelope.ts';
import { totpAad } from '../runtime/accounts/totp.ts';
import { notifyServedChange } from '../runtime/served-notices.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { OpenedArchive } from './archive.ts';
import { insertJsonRows, existingControlTables, writableColumns } from './parts.ts';
import { loadData, ndjsonBatches } from './restore.ts';

type Row = Record<string, unknown>;

/** Tables whose `id` is their own key: a new application's rows get new ones. */
const OWN_IDS = new Set(['application_version_rows', 'app_migrations', 'config_values']);

export interface NewApplication {
  id: string;
  customerId: string;
  projectId: string;
  name: string | null;
}

function rows(archive: OpenedArchive, part: string): Row[] {
  return [...ndjsonBatches(archive.text(part))].flat().map((line) => JSON.parse(line) as Row);
}

/** Opens what was sealed for the old id and seals it for the new one; null when the master key cannot. */
class Resealer {
  readonly warnings: string[] = [];
  private readonly dataKey: Buffer | null;

  constructor(
    private readonly masterKey: Buffer,
    private readonly from: string,
    private readonly to: string,
    wrapped: string | undefined,
  ) {
    let key: Buffer | null = null;
    if (wrapped) {
      try {
        key = open(wrapped, masterKey, dataKeyAad(from));
      } catch {
        this.warnings.push("The archive's secrets were sealed under another master key: secrets, the signing key and second factors are left out.");
      }
    }
    this.dataKey = key;
  }

  wrappedKey(): string | null {
    return this.dataKey ? seal(this.dataKey, this.masterKey, dataKeyAad(this.to)) : null;
  }

  again(sealed: string, fromAad: string, toAad: string, what: string): string | null {
    if (!this.dataKey) {
      this.warnings.push(`${what} was left out: it cannot be opened here.`);
      return null;
    }
    try {
      return seal(open(sealed, this.dataKey, fromAad), this.dataKey, toAad);
    } catch {
      this.warnings.push(`${what} was left out: it cannot be opened here.`);
      return null;
    }
  }
}

/** Rewrites one control-plane row for the new application; null leaves it out. */
function rewrite(table: string, row: Row, target: NewApplication, from: string, resealer: Resealer): Row | null {
  const out: Row = { ...row, application_id: target.id };
  if ('customer_id' in out) out.customer_id = target.customerId;
  if (OWN_IDS.has(table)) out.id = table === 'application_version_rows' || table === 'app_migrations' ? uuidv7() : randomUUID();
  if ('owner_id' in out) out.owner_id = target.id;
  switch (table) {
    case 'data_keys': {
      const wrapped = resealer.wrappedKey();
      return wrapped ? { ...out, wrapped_key: wrapped } : null;
    }
    case 'config_values': {
      if (row.kind !== 'secret') return out;
      const version = Number(row.version);
      const sealed = resealer.again(String(row.sealed_value), valueAad(from, String(row.name), version), valueAad(target.id, String(row.name), version), `Secret ${String(row.name)}`);
      return sealed ? { ...out, sealed_value: sealed } : null;
    }
    case 'app_keys': {
      if (!isSealed(String(row.sealed_jwt_key))) return null;
      const sealed = resealer.again(String(row.sealed_jwt_key), signingKeyAad(from), signingKeyAad(target.id), 'The signing key');
      return sealed ? { ...out, sealed_jwt_key: sealed } : null;
    }
    case 'end_user_totp': {
      const user = String(row.user_id);
      const sealed = resealer.again(String(row.sealed_secret), totpAad(from, user), totpAad(target.id, user), `The second factor of end user ${user}`);
      return sealed ? { ...out, sealed_secret: sealed } : null;
    }
    default:
      return out;
  }
}

/** Makes the new application; resolves with the warnings (secrets left out). */
export async function restoreAsNew(db: Db, driver: StorageDriver, archive: OpenedArchive, target: NewApplication, masterKey: Buffer): Promise<string[]> {
  const from = archive.manifest.applicationId;
  const dataKeys = 'control/data_keys.ndjson' in archive.parts ? rows(archive, 'control/data_keys.ndjson') : [];
  const resealer = new Resealer(masterKey, from, target.id, dataKeys.find((row) => row.owner_id === from)?.wrapped_key as string | undefined);
  const files = rows(archive, 'files.ndjson');
  const fileIds = new Map<string, string>();
  const blobs: string[] = [];
  const newFiles: Row[] = [];
  for (const file of files) {
    const blob = uuidv7();
    await driver.put(blob, Readable.from([Buffer.from(archive.parts[`files/${String(file.id)}`]!)]));
    blobs.push(blob);
    const id = uuidv7();
    fileIds.set(String(file.id), id);
    const path = String(file.path).replace(`apps/${from}/`, `apps/${target.id}/`);
    newFiles.push({ ...file, id, blob_key: blob, path, customer_id: target.customerId, project_id: target.projectId, builder_id: null });
  }
  try {
    await db.kysely.transaction().execute(async (trx) => {
      await sql`set local statement_timeout = 0`.execute(trx);
      const application: Row = { ...(JSON.parse(archive.text('application.json')) as Row), id: target.id, customer_id: target.customerId, project_id: target.projectId };
      if (target.name !== null) application.name = target.name;
      delete application.created_at;
      delete application.updated_at;
      const appColumns = (await writableColumns(trx, 'appbuilder', 'applications')).filter((column) => column in application);
      await insertJsonRows(trx, 'appbuilder', 'applications', appColumns, [JSON.stringify(application)]);
      await loadData(trx, archive, schemaNameForApp(target.id));
      if (newFiles.length > 0) await insertJsonRows(trx, 'appbuilder', 'files', await writableColumns(trx, 'appbuilder', 'files'), newFiles.map((file) => JSON.stringify(file)));
      for (const table of await existingControlTables(trx)) {
        const name = `control/${table}.ndjson`;
        if (!(name in archive.parts)) continue;
        const columns = await writableColumns(trx, 'appbuilder', table);
        const written: string[] = [];
        for (const row of rows(archive, name)) {
          const next = rewrite(table, table === 'app_files' ? { ...row, file_id: fileIds.get(String(row.file_id)) } : row, target, from, resealer);
          if (next) written.push(JSON.stringify(next));
        }
        for (let i = 0; i < written.length; i += 1000) await insertJsonRows(trx, 'appbuilder', table, columns, written.slice(i, i + 1000));
      }
      // The application's data schema is new: nothing to forget in other processes, but routing learns of it.
      await notifyServedChange(trx, target.id);
    });
  } catch (error) {
    for (const blob of blobs) await driver.remove(blob).catch(() => {});
    throw error;
  }
  return resealer.warnings;
}
