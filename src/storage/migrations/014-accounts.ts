import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * End-user accounts of generated applications (DESIGN §18), kept in the control plane beside the
 * application (not in its data schema): they exist from the first sign-in whichever version is
 * served, need no deployment to appear, and go with the application.
 * - `end_user_sessions`: one refresh-token family per sign-in; `revoked_at` ends it.
 * - `end_user_refresh_tokens`: every refresh token of a family, by its sha256; the one not yet
 *   `used_at` is the family's current token, a used one presented again revokes the family.
 * - `end_user_states`: per user, access tokens issued before `tokens_valid_after` are refused.
 * - `end_user_email_tokens`: single-use tokens of the email flows, by their sha256.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.end_user_sessions (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      user_id uuid not null,
      created_at timestamptz not null default now(),
      last_used_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz
    );
    create index end_user_sessions_user on appbuilder.end_user_sessions (application_id, user_id);
    create table appbuilder.end_user_refresh_tokens (
      token_hash text primary key,
      session_id uuid not null references appbuilder.end_user_sessions(id) on delete cascade,
      created_at timestamptz not null default now(),
      used_at timestamptz
    );
    create index end_user_refresh_tokens_session on appbuilder.end_user_refresh_tokens (session_id);
    create table appbuilder.end_user_states (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      user_id uuid not null,
      tokens_valid_after timestamptz not null,
      primary key (application_id, user_id)
    );
    create table appbuilder.end_user_email_tokens (
      token_hash text primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      user_id uuid not null,
      purpose text not null check (purpose in ('verify', 'password', 'email')),
      new_email text,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    );
    create index end_user_email_tokens_user on appbuilder.end_user_email_tokens (application_id, user_id)
`;
