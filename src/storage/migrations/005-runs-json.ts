import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Cheaper run records (every HTTP-trigger request writes one). A run's parts are only ever
 * stored and handed back whole, never searched inside, so they become `json` (kept as sent:
 * no conversion to `jsonb` on write). A run of a few KB stays in its row uncompressed instead
 * of going through TOAST compression at 2 KB: `toast_tuple_target` is the largest allowed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    alter table appbuilder.runs
      alter column input type json using input::json,
      alter column steps type json using steps::json,
      alter column result type json using result::json,
      alter column response type json using response::json,
      alter column error type json using error::json;
    alter table appbuilder.runs set (toast_tuple_target = 8160)
`;
