import type { Executor } from '../storage/db.ts';
import { quoteIdent } from '../storage/sql.ts';
import { runStatementBatch } from '../compiler/schema/index.ts';
import type { CompiledApp } from './compiled-app.ts';
import { dataVersionStatement } from './data-version.ts';
import { userNoticeStatements } from './end-user-cache.ts';

/** End-user password hashes, beside the user model's table (model tables are `m_…`, so no clash). */
export const CREDENTIALS_TABLE = 'auth_credentials';

/**
 * What the runtime keeps in an app's schema besides the models' tables: the
 * credentials side table, a unique index on the user model's lower(email), the
 * data version that list totals are cached against (data-version.ts) and the notices
 * of changed end users (end-user-cache.ts). Idempotent statements, in order, without
 * parameters: the deployment runs them in the batch and transaction of its migration
 * (one round trip for both, issue 28).
 */
export function runtimeSchemaStatements(app: CompiledApp): string[] {
  // The credentials table first: the data version gives it its triggers too.
  return [...credentialStatements(app), dataVersionStatement(app.schema), ...userNoticeStatements(app)];
}

/** `runtimeSchemaStatements` on their own, inside the caller's transaction. */
export async function ensureRuntimeTables(executor: Executor, app: CompiledApp): Promise<void> {
  await runStatementBatch(executor, runtimeSchemaStatements(app));
}

function credentialStatements(app: CompiledApp): string[] {
  const user = app.userModel;
  const email = user?.fieldsByName.get('email');
  if (!user || !email?.column) return [];
  const table = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
  return [
    `create table if not exists ${quoteIdent(app.schema)}.${quoteIdent(CREDENTIALS_TABLE)} (
    user_id uuid primary key references ${table}(id) on delete cascade,
    password_hash text not null
  )`,
    `create unique index if not exists ${quoteIdent(`${user.table}_email_key`.slice(0, 63))} on ${table} (lower(${quoteIdent(email.column)}))`,
  ];
}
