import type { Executor } from '../storage/db.ts';
import { sql } from 'kysely';
import { schemaNameForApp } from '../definition/naming.ts';
import { ident } from '../storage/sql.ts';
import { notifyServedChange } from './served-notices.ts';

/** Drops an application's data schema (its tables and rows), inside the caller's transaction; no process serves it after the commit. */
export async function dropApplicationData(applicationId: string, executor: Executor): Promise<void> {
  await sql`drop schema if exists ${ident(schemaNameForApp(applicationId))} cascade`.execute(executor);
  await notifyServedChange(executor, applicationId);
}
