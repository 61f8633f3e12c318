// An end user's own record as they see it (`/auth/me`, sign-up, log-in): relationships as ids,
// their field rules applied with themselves as `auth`. The model's read rule is not applied:
// everyone may know who they are.
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { tableOf } from './columns.ts';
import { fillComputed } from './computed-js.ts';
import type { JsonRecord } from './read.ts';
import { RecordJson } from './record-json.ts';
import type { RuleContext } from './rule-sql.ts';

export async function getOwnRecord(
  db: Db,
  app: CompiledApp,
  model: CompiledModel,
  self: Record<string, unknown> & { id: string },
  executor: Executor = db.kysely,
  /** The version's files route: file fields read as URLs under it (file-urls.ts); else as stored. */
  filesUrl?: string,
): Promise<JsonRecord | undefined> {
  const ctx: RuleContext = { auth: self, operation: 'read', now: new Date(), env: {} };
  const json = new RecordJson(app, ctx, false, filesUrl === undefined ? {} : { filesUrl });
  const result = await sql<{ body: string }>`select (${json.record(model, 't', false)})::text as body
    from ${tableOf(app, model)} t where t.id = cast(${self.id} as uuid)`.execute(executor);
  const text = result.rows[0]?.body;
  if (text === undefined) return undefined;
  const record = JSON.parse(text) as JsonRecord;
  if (json.jsComputed.size > 0) fillComputed(app, model, [record], json.jsComputed, { now: ctx.now, env: {} });
  return record;
}
