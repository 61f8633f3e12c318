import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Sign-in with OpenID Connect providers and the TOTP second factor of generated apps' end users
 * (DESIGN §18), in the control plane beside the sessions of migration 014:
 * - `end_user_identities`: a provider's subject linked to a user of the application.
 * - `end_user_oauth_states`: a started authorization (by the sha256 of its `state`) with its PKCE
 *   verifier and nonce, kept server-side for ten minutes and deleted when the callback uses it.
 * - `end_user_totp`: a user's TOTP secret, sealed under the application's data key; active once a
 *   code confirmed it; `last_step` is the newest time step used, so a code is never taken twice.
 * - `end_user_recovery_codes`: one-time codes by their sha256; `used_at` once spent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.end_user_identities (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      provider text not null,
      subject text not null,
      user_id uuid not null,
      email text,
      created_at timestamptz not null default now(),
      primary key (application_id, provider, subject)
    );
    create index end_user_identities_user on appbuilder.end_user_identities (application_id, user_id);
    create table appbuilder.end_user_oauth_states (
      state_hash text primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      provider text not null,
      code_verifier text not null,
      nonce text not null,
      redirect text,
      expires_at timestamptz not null
    );
    create index end_user_oauth_states_expiry on appbuilder.end_user_oauth_states (expires_at);
    create table appbuilder.end_user_totp (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      user_id uuid not null,
      sealed_secret text not null,
      activated_at timestamptz,
      last_step bigint not null default 0,
      created_at timestamptz not null default now(),
      primary key (application_id, user_id)
    );
    create table appbuilder.end_user_recovery_codes (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      user_id uuid not null,
      code_hash text not null,
      used_at timestamptz,
      primary key (application_id, user_id, code_hash)
    )
`;
