// Records as JSON for any number of members (runtime/data/json-object.ts): up to 50 key-value
// pairs the one `json_build_object` call every ordinary model has always had (the same statement
// text, so the same plans and speed); past 50, chunks joined into the very text one call would give,
// members in their order and values typed as `json_build_object` types them, on both drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type RawBuilder } from 'kysely';
import { jsonObject, MAX_JSON_PAIRS } from '../../src/runtime/data/json-object.ts';
import { RecordJson } from '../../src/runtime/data/record-json.ts';
import { plainJson } from '../../src/runtime/writes/plain-record.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { NOW, todoApp, TODO, USER } from './fixture.ts';
import { sqlText } from './sql-text.ts';

/** Pair i: a key that sorts apart from its position, and a value of one of several JSON types (braces and quotes in text). */
function pair(i: number): RawBuilder<unknown> {
  const key = sql.lit(`${'zyx'[i % 3]}${i}`);
  switch (i % 6) {
    case 0: return sql`${key}, ${sql.lit(i)}::int`;
    case 1: return sql`${key}, ${sql.lit(`te"x}t{ ${i}, `)}::text`;
    case 2: return sql`${key}, ${sql.lit(i % 4 === 0)}::boolean`;
    case 3: return sql`${key}, null::text`;
    case 4: return sql`${key}, json_build_object('in', ${sql.lit(`}${i}{`)}::text, 'n', array[${sql.lit(i)}::int, 2])`;
    default: return sql`${key}, to_char(timestamptz '2025-01-02 03:04:05+00' at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
}
const pairs = (n: number) => Array.from({ length: n }, (_, i) => pair(i));

describe('the statement text of an ordinary record', () => {
  it('is one json_build_object call up to 50 pairs', () => {
    for (const n of [1, 2, MAX_JSON_PAIRS]) {
      const texts = pairs(n).map((p) => sqlText(p).sql);
      expect(sqlText(jsonObject(pairs(n))).sql).toBe(`json_build_object(${texts.join(', ')})`);
    }
    expect(sqlText(jsonObject(pairs(MAX_JSON_PAIRS + 1))).sql).not.toMatch(/^json_build_object\(/);
  });

  it('is unchanged for the example models: no chunk joins in the record of a read, an event or the signed-in user', () => {
    const app = todoApp();
    for (const id of [TODO, USER]) {
      const model = app.modelsById.get(id)!;
      for (const json of [
        new RecordJson(app, { auth: null, operation: 'read', now: NOW }, true).record(model, 't', true),
        new RecordJson(app, { auth: null, operation: 'read', now: NOW }, true).record(model, 't', false, null, true),
        plainJson(app, model),
      ]) {
        const text = sqlText(json).sql;
        expect(text).toMatch(/^json_build_object\('id', /);
        expect(text).not.toMatch(/left\(|substr\(|\)::json$/);
      }
    }
  });
});

describe.each(await availableDrivers())('records of any width on %s', (driver) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(driver);
  }, 60_000);
  afterAll(() => database?.drop());

  /** The text PostgreSQL gives for `json`. */
  const textOf = async (json: RawBuilder<unknown>) => (await sql<{ text: string }>`select (${json})::text as text`.execute(database.db.kysely)).rows[0].text;

  it('gives the text one call would give, members in order, for 1 to 1600 pairs', async () => {
    for (const n of [1, 49, 50, 51, 99, 100, 101, 150, 299, 1600]) {
      // The reference: each pair alone through json_build_object (an array constructor takes any number), joined as the function joins members.
      const alone = (await sql<{ texts: string[] }>`select array[${sql.join(pairs(n).map((p) => sql`json_build_object(${p})::text`))}] as texts`.execute(database.db.kysely)).rows[0].texts;
      const text = await textOf(jsonObject(pairs(n)));
      expect(text, `n=${n}`).toBe(`{${alone.map((t) => t.slice(1, -1)).join(', ')}}`);
      expect(Object.keys(JSON.parse(text) as object)).toEqual(Array.from({ length: n }, (_, i) => `${'zyx'[i % 3]}${i}`));
    }
  });

  it('keeps the types json_build_object gives: numbers, booleans, null, objects, arrays', async () => {
    const parsed = JSON.parse(await textOf(jsonObject(pairs(120)))) as Record<string, unknown>;
    expect(parsed.z60).toBe(60);
    expect(parsed.x116).toBe(true);
    expect(parsed.x110).toBe(false);
    expect(parsed.z111).toBeNull();
    expect(parsed.y100).toEqual({ in: '}100{', n: [100, 2] });
    expect(parsed.x113).toBe('2025-01-02T03:04:05.000Z');
    expect(parsed.y115).toBe('te"x}t{ 115, ');
  });
});
