// Signed-in end users (`auth`) kept between requests, so that a request does not read its caller's
// row again: one statement fewer on every authenticated request.
//
// Why it stays right:
// - Only `auth` records made of the user table's own columns are kept (auth-reads.ts loads only what
//   the app's expressions read). One that holds a relationship stored in another table (`auth.todos`)
//   changes when that table does, and is read every time.
// - Every change to a user row reaches every process: a trigger on the user table (ensureUserNotices,
//   created with the app's schema) sends `NOTIFY appbuilder_users, '<schema> <user id>'` on update and
//   delete (`'<schema> *'` on truncate), delivered at commit, whoever wrote, and the listener
//   (served-notices.ts) forgets the user. A write through this process forgets at once (forgetUser),
//   so its own next request never sees the old record.
// - A record read while a notice arrives is not kept (the generation check): it may predate the change.
// - Without a listener, or while it reconnects, nothing is kept: a notice could be missed.
// - An app deployed before the trigger existed has none until its next deployment: checked once per
//   compiled version, and its users are read every time until then.
//
// After a change commits in another process, that process's notice takes a few milliseconds to
// arrive; until then a request here may still see the user as they were.
import { sql } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { quoteIdent } from '../storage/sql.ts';
import { dollarQuoted, quoteLiteral } from '../compiler/schema/index.ts';
import { authFields, loadAuth } from './auth-reads.ts';
import type { CompiledApp } from './compiled-app.ts';
import type { PlainRecord } from './writes/plain-record.ts';

export const USERS_CHANNEL = 'appbuilder_users';
export const USER_NOTICE_TRIGGER = 'end_user_notice';
const USER_NOTICE_TRUNCATE_TRIGGER = 'end_user_notice_truncate';
const USER_NOTICE_FUNCTION = 'notify_end_user_change';

const MAX_USERS = 50_000;

/** Whether the app's `auth` is made of the user table's own columns only (so a user-row notice covers it). */
function cacheable(app: CompiledApp): boolean {
  const model = app.userModel;
  if (!model) return false;
  const fields = authFields(app) ?? model.fields.filter((field) => field.computed === undefined);
  return fields.every((field) => field.column !== null);
}

class EndUserCache {
  /** schema → user id → compiled version → `auth`. */
  readonly #users = new Map<string, Map<string, Map<CompiledApp, PlainRecord>>>();
  #size = 0;
  /** Listeners delivering notices now; nothing is kept without one. */
  #listeners = 0;
  /** Changes on every notice: a read that straddles one is not kept. */
  #generation = 0;
  /** Per compiled version: whether its user table sends notices. */
  readonly #notifying = new WeakMap<CompiledApp, Promise<boolean>>();

  /** The end user `id` as `auth` for `app`; undefined when they are gone. */
  async load(executor: Executor, app: CompiledApp, id: string): Promise<PlainRecord | undefined> {
    const known = this.#users.get(app.schema)?.get(id)?.get(app);
    if (known) return known;
    const generation = this.#generation;
    const keep = this.#listeners > 0 && cacheable(app) && (await this.#notifies(executor, app));
    const user = await loadAuth(executor, app, id);
    if (user && keep && generation === this.#generation && this.#listeners > 0) this.#keep(app, id, user);
    return user;
  }

  /** Forgets user `id` of the app with `schema` (`*`: every user of it). */
  forget(schema: string, id: string): void {
    this.#generation++;
    const bySchema = this.#users.get(schema);
    if (!bySchema) return;
    if (id === '*') {
      for (const versions of bySchema.values()) this.#size -= versions.size;
      this.#users.delete(schema);
      return;
    }
    const versions = bySchema.get(id);
    if (!versions) return;
    this.#size -= versions.size;
    bySchema.delete(id);
  }

  /** Forgets everyone (a listener reconnected: notices may have been missed). */
  clear(): void {
    this.#generation++;
    this.#users.clear();
    this.#size = 0;
  }

  /** A listener started delivering notices; returns its stop, which also forgets everyone. */
  listening(): () => void {
    this.clear();
    this.#listeners++;
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#listeners--;
      this.clear();
    };
  }

  #keep(app: CompiledApp, id: string, user: PlainRecord): void {
    if (this.#size >= MAX_USERS) this.clear();
    let bySchema = this.#users.get(app.schema);
    if (!bySchema) this.#users.set(app.schema, (bySchema = new Map()));
    let versions = bySchema.get(id);
    if (!versions) bySchema.set(id, (versions = new Map()));
    if (!versions.has(app)) this.#size++;
    // Shared by every request of this user: nobody may change it.
    versions.set(app, Object.freeze(user));
  }

  #notifies(executor: Executor, app: CompiledApp): Promise<boolean> {
    let known = this.#notifying.get(app);
    if (!known) {
      const table = app.userModel!.table;
      known = sql<{ ok: boolean }>`select exists(
          select 1 from pg_trigger g join pg_class c on c.oid = g.tgrelid join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = ${app.schema} and c.relname = ${table} and g.tgname = ${USER_NOTICE_TRIGGER}) as ok`
        .execute(executor)
        .then((result) => result.rows[0]?.ok === true);
      // A failed check is asked again next time.
      known.catch(() => this.#notifying.delete(app));
      this.#notifying.set(app, known);
    }
    return known;
  }
}

/** The process's one cache (apps are told apart by their schema, unique per installation). */
export const endUserCache = new EndUserCache();

/** A write to user `id` of `app` by this process: forgotten now, not only when the notice comes. */
export function forgetUser(app: CompiledApp, id: string): void {
  endUserCache.forget(app.schema, id);
}

/**
 * The statements creating the notice trigger on the user model's table (see the top of this file),
 * run in the deployment's batch and transaction (`schema-extras.ts`). Idempotent: the triggers are
 * created only where the catalog lacks them. The function body is a literal; the channel is a constant.
 */
export function userNoticeStatements(app: CompiledApp): string[] {
  const model = app.userModel;
  if (!model) return [];
  const fn = `${quoteIdent(app.schema)}.${quoteIdent(USER_NOTICE_FUNCTION)}`;
  const table = `${quoteIdent(app.schema)}.${quoteIdent(model.table)}`;
  const body = `begin
      if tg_op = 'TRUNCATE' then
        perform pg_notify('${USERS_CHANNEL}', tg_table_schema || ' *');
      else
        perform pg_notify('${USERS_CHANNEL}', tg_table_schema || ' ' || old.id::text);
      end if;
      return null;
    end`;
  const triggers: Array<[string, string]> = [
    [USER_NOTICE_TRIGGER, `create trigger ${quoteIdent(USER_NOTICE_TRIGGER)} after update or delete on ${table} for each row execute function ${fn}()`],
    [USER_NOTICE_TRUNCATE_TRIGGER, `create trigger ${quoteIdent(USER_NOTICE_TRUNCATE_TRIGGER)} after truncate on ${table} for each statement execute function ${fn}()`],
  ];
  const missing = (name: string) =>
    `not exists (select 1 from pg_trigger g where g.tgrelid = ${quoteLiteral(table)}::regclass and g.tgname = ${quoteLiteral(name)})`;
  const block = `begin
  ${triggers.map(([name, statement]) => `if ${missing(name)} then execute ${quoteLiteral(statement)}; end if;`).join('\n  ')}
end`;
  return [`create or replace function ${fn}() returns trigger language plpgsql as ${dollarQuoted(body, 'n')}`, `do ${dollarQuoted(block, 'un')}`];
}
