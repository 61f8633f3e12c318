// The compiler's short path (src/storage/raw-compiler.ts) against Kysely's own PostgreSQL compiler:
// for statements of raw fragments and values, the same text and the same parameters; for anything
// else, Kysely's answer unchanged.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type RawBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RawFirstQueryCompiler, reusedSql } from '../../src/storage/raw-compiler.ts';
import { ident, jsonb } from '../../src/storage/sql.ts';

function kyselyWith(compiler: () => PostgresQueryCompiler) {
  return new Kysely<Record<string, Record<string, unknown>>>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: compiler,
    },
  });
}

const theirs = kyselyWith(() => new PostgresQueryCompiler());
const ours = kyselyWith(() => new RawFirstQueryCompiler());

function both(query: RawBuilder<unknown>) {
  const a = query.compile(theirs);
  const b = query.compile(ours);
  return { theirs: { sql: a.sql, parameters: a.parameters }, ours: { sql: b.sql, parameters: b.parameters } };
}

describe('the raw-first query compiler', () => {
  const cases: Array<[string, RawBuilder<unknown>]> = [
    ['plain text', sql`select 1`],
    ['values, nested and repeated', sql`select ${1}, ${'a'} from ${ident('s', 't')} where ${sql`x = ${null} and y = ${[1, 2]}`} or z = ${1}`],
    ['joins and raw pieces', sql`${sql.raw('/* prepared */ ')}select ${sql.join([sql`a`, sql`${2}`, sql`c = ${"it's"}`])} from t`],
    ['json parameters', sql`insert into t (v) values (${jsonb({ a: [1, 'two'] })})`],
    ['an empty join and a quote in a fragment', sql`select ${sql.join([])} 'it''s ${'$1'}'`],
  ];

  it.each(cases)('compiles %s exactly as Kysely does', (_name, query) => {
    const { theirs: a, ours: b } = both(query);
    expect(b).toEqual(a);
  });

  it('numbers the values of a marked piece by its place in each statement that uses it', () => {
    const piece = reusedSql(sql`t.a = ${'x'} and t.b in (${sql.join([1, 2])})`);
    for (const query of [
      sql`select 1 from t where ${piece}`,
      sql`select ${0} from t where ${piece} or (${piece} and t.c = ${'y'})`,
      sql`select ${sql.join([sql`${5}`, piece])}`,
    ]) {
      const { theirs: a, ours: b } = both(query);
      expect(b).toEqual(a);
    }
    expect(both(sql`select 1 where ${reusedSql(sql`${sql.lit('z')} = ${1}`)}`).ours.sql).toBe(`select 1 where 'z' = $1`);
  });

  it('leaves identifier nodes, literals and query builders to Kysely', () => {
    for (const query of [sql`select ${sql.id('a', 'b')}`, sql`select ${sql.lit('x')}`, sql`select ${sql.ref('t.c')} from t`]) {
      const { theirs: a, ours: b } = both(query);
      expect(b).toEqual(a);
    }
    const built = ours.selectFrom('t').select('c').where('id', '=', 3).compile();
    expect(built.sql).toBe('select "c" from "t" where "id" = $1');
    expect(built.parameters).toEqual([3]);
  });
});
