import { sql, type Kysely } from 'kysely';

/** Runs a migration's SQL one statement per query: PGlite's extended protocol takes a single command. */
export async function runStatements(db: Kysely<unknown>, statements: string): Promise<void> {
  for (const statement of statements.split(/;\s*\n/).map((s) => s.trim()).filter(Boolean)) {
    await sql.raw(statement).execute(db);
  }
}
