import type { Executor } from '../storage/db.ts';
import { sql } from 'kysely';
import { ident } from '../storage/sql.ts';
import type { CompiledApp } from './compiled-app.ts';
import { ensureDataVersion } from './data-version.ts';
import { ensureUserNotices } from './end-user-cache.ts';

/** End-user password hashes, beside the user model's table (model tables are `m_…`, so no clash). */
export const CREDENTIALS_TABLE = 'auth_credentials';

/**
 * What the runtime keeps in an app's schema besides the models' tables: the
 * credentials side table, a unique index on the user model's lower(email), the
 * data version that list totals are cached against (data-version.ts) and the notices
 * of changed end users (end-user-cache.ts).
 * Idempotent; runs inside the deployment's transaction.
 */
export async function ensureRuntimeTables(executor: Executor, app: CompiledApp): Promise<void> {
  await ensureCredentials(executor, app);
  await ensureDataVersion(executor, app.schema);
  await ensureUserNotices(executor, app);
}

async function ensureCredentials(executor: Executor, app: CompiledApp): Promise<void> {
  const user = app.userModel;
  const email = user?.fieldsByName.get('email');
  if (!user || !email?.column) return;
  await sql`create table if not exists ${ident(app.schema, CREDENTIALS_TABLE)} (
    user_id uuid primary key references ${ident(app.schema, user.table)}(id) on delete cascade,
    password_hash text not null
  )`.execute(executor);
  await sql`create unique index if not exists ${ident(`${user.table}_email_key`.slice(0, 63))}
    on ${ident(app.schema, user.table)} (lower(${ident(email.column)}))`.execute(executor);
}
