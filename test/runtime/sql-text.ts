// Compiles generated SQL fragments to text and parameters without a database.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type RawBuilder } from 'kysely';

const offline = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

export function sqlText(fragment: RawBuilder<unknown>): { sql: string; parameters: readonly unknown[] } {
  const compiled = sql`${fragment}`.compile(offline);
  return { sql: compiled.sql, parameters: compiled.parameters };
}
