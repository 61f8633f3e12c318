import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * `Idempotency-Key` (DESIGN §8): the first answer to a write sent with a key, kept 24 h per
 * caller, so a retry with the same key answers it again and changes nothing more. `status` is
 * null while the first request runs. `scope` names what the key belongs to (an application's
 * generated API, or its publish); `caller` who sent it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.idempotency_keys (
      scope text not null,
      caller text not null,
      key text not null,
      fingerprint text not null,
      status integer,
      body text,
      headers jsonb not null default '{}',
      created_at timestamptz not null default now(),
      primary key (scope, caller, key)
    );
    create index idempotency_keys_created_idx on appbuilder.idempotency_keys (created_at)
`;
