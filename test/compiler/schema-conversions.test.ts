// Every conversion of the USING table, run against the database: what converts, and what is refused.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField, schemaNameForApp } from '../../src/definition/naming.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';
import { Problem } from '../../src/errors.ts';
import { ident } from '../../src/storage/sql.ts';
import { applyMigration, planMigration } from '../../src/compiler/schema/index.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { newAppId, primitive } from './fixtures/definitions.ts';

const VALUE = 'urn:svc:edge:thing-value';
const many = { max: null } as const;

function definition(value: Partial<Field> & { to: string }): AppDefinition {
  const model = { id: 'urn:svc:model:thing', name: 'Thing', accessControl: { rules: [] }, fields: [primitive(VALUE, 'value', value.to, value)] };
  return { models: [model] } as unknown as AppDefinition;
}

interface Case {
  from: Partial<Field> & { to: string };
  to: Partial<Field> & { to: string };
  /** The stored value, as a literal of the old column type. */
  input: string;
  /** The converted value (as `to_jsonb`, epoch seconds for date-times), or 'refused'. */
  expected: unknown;
  /** For a refusal: what the 409 must say. */
  reason?: RegExp;
}

const CASES: Case[] = [
  { from: { to: 'p_NUMBER' }, to: { to: 'p_TEXT' }, input: '2.5', expected: '2.5' },
  { from: { to: 'p_BOOLEAN' }, to: { to: 'p_TEXT' }, input: 'true', expected: 'true' },
  { from: { to: 'p_DATE' }, to: { to: 'p_TEXT' }, input: "'2024-02-03'", expected: '2024-02-03' },
  { from: { to: 'p_DATE_TIME' }, to: { to: 'p_TEXT' }, input: "'2024-02-03T04:05:06Z'", expected: '2024-02-03T04:05:06.000Z' },
  { from: { to: 'p_TIME' }, to: { to: 'p_TEXT' }, input: "'10:30'", expected: '10:30:00' },
  { from: { to: 'p_STAR_RATING' }, to: { to: 'p_TEXT' }, input: '4', expected: '4' },
  { from: { to: 'p_ADDRESS' }, to: { to: 'p_TEXT' }, input: `'{"a":1}'`, expected: '{"a": 1}' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_NUMBER' }, input: "' 12 '", expected: 12 },
  { from: { to: 'p_TEXT' }, to: { to: 'p_NUMBER' }, input: "''", expected: null },
  { from: { to: 'p_TEXT' }, to: { to: 'p_NUMBER' }, input: "'abc'", expected: 'refused' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_BOOLEAN' }, input: "'yes'", expected: true },
  { from: { to: 'p_TEXT' }, to: { to: 'p_BOOLEAN' }, input: "'maybe'", expected: 'refused' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_DATE' }, input: "'2024-01-31'", expected: '2024-01-31' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_DATE_TIME' }, input: "'2024-01-01T00:00:10Z'", expected: 1704067210 },
  { from: { to: 'p_TEXT' }, to: { to: 'p_TIME' }, input: "'10:00'", expected: '10:00:00' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_ADDRESS' }, input: `'{"city":"Oslo"}'`, expected: { city: 'Oslo' } },
  { from: { to: 'p_TEXT' }, to: { to: 'p_ADDRESS' }, input: "'Main Street 1'", expected: 'refused' },
  { from: { to: 'p_TEXT' }, to: { to: 'p_STAR_RATING' }, input: "'4'", expected: 4 },
  { from: { to: 'p_TEXT' }, to: { to: 'p_STAR_RATING' }, input: "'9'", expected: 'refused' },
  { from: { to: 'p_NUMBER' }, to: { to: 'p_STAR_RATING' }, input: '4', expected: 4 },
  { from: { to: 'p_NUMBER' }, to: { to: 'p_STAR_RATING' }, input: '4.5', expected: 'refused' },
  { from: { to: 'p_NUMBER' }, to: { to: 'p_BOOLEAN' }, input: '0', expected: false },
  { from: { to: 'p_BOOLEAN' }, to: { to: 'p_NUMBER' }, input: 'true', expected: 1 },
  { from: { to: 'p_BOOLEAN' }, to: { to: 'p_STAR_RATING' }, input: 'true', expected: 1 },
  { from: { to: 'p_STAR_RATING' }, to: { to: 'p_NUMBER' }, input: '3', expected: 3 },
  { from: { to: 'p_STAR_RATING' }, to: { to: 'p_BOOLEAN' }, input: '3', expected: true },
  { from: { to: 'p_DATE' }, to: { to: 'p_DATE_TIME' }, input: "'2024-01-02'", expected: 1704153600 },
  { from: { to: 'p_DATE_TIME' }, to: { to: 'p_DATE' }, input: "'2024-01-02T00:00:00Z'", expected: '2024-01-02' },
  { from: { to: 'p_DATE_TIME' }, to: { to: 'p_DATE' }, input: "'2024-01-02T10:00:00Z'", expected: 'refused', reason: /not a whole day/ },
  { from: { to: 'p_TEXT' }, to: { to: 'p_TEXT', ...many }, input: "'a'", expected: ['a'] },
  { from: { to: 'p_TEXT' }, to: { to: 'p_TEXT', ...many }, input: 'null', expected: [] },
  { from: { to: 'p_TEXT' }, to: { to: 'p_NUMBER', ...many }, input: "'7'", expected: [7] },
  { from: { to: 'p_TEXT', ...many }, to: { to: 'p_NUMBER', ...many }, input: "array['1', '2']", expected: [1, 2] },
  { from: { to: 'p_TEXT', ...many }, to: { to: 'p_NUMBER', ...many }, input: "array['1', 'x']", expected: 'refused' },
  { from: { to: 'p_NUMBER', ...many }, to: { to: 'p_TEXT', ...many }, input: 'array[1.5]::double precision[]', expected: ['1.5'] },
  { from: { to: 'p_NUMBER', ...many }, to: { to: 'p_STAR_RATING', ...many }, input: 'array[1, 2]::double precision[]', expected: [1, 2] },
  { from: { to: 'p_TEXT', ...many }, to: { to: 'p_TEXT' }, input: "array['only']", expected: 'only' },
  { from: { to: 'p_TEXT', ...many }, to: { to: 'p_TEXT' }, input: "array['a', 'b']", expected: 'refused', reason: /more than one value: \{a,b\}/ },
];

describe.each(await availableDrivers())('type conversions on %s', (driver) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(driver);
  });
  afterAll(() => database?.drop());

  const shown = (side: Case['from']) => `${side.to}${side.max === null ? '[]' : ''}`;
  it.each(CASES.map((c) => [`${shown(c.from)} → ${shown(c.to)}: ${c.input}`, c] as const))('%s', async (_name, { from, to, input, expected, reason }) => {
    const appId = newAppId();
    const schema = schemaNameForApp(appId);
    const before = definition(from);
    const after = definition(to);
    await applyMigration(database.db, planMigration(null, before, appId));
    const table = ident(schema, 'm_thing');
    const column = ident(columnNameForField(VALUE));
    await sql`insert into ${table} (${column}) values (${sql.raw(input)})`.execute(database.db.kysely);
    const plan = planMigration(before, after, appId);
    const read = async () => {
      const value = to.to === 'p_DATE_TIME' && to.max !== null ? sql`extract(epoch from ${column})::float8` : sql`to_jsonb(${column})`;
      const { rows } = await sql<{ v: unknown }>`select ${value} as v from ${table}`.execute(database.db.kysely);
      return rows[0].v;
    };
    if (expected === 'refused') {
      const stored = await read().catch(() => 'unreadable before');
      const error = await applyMigration(database.db, plan).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Problem);
      expect((error as Problem).status).toBe(409);
      expect((error as Problem).errors[0]).toEqual({ path: '/models/0/fields/0/to', message: expect.stringMatching(reason ?? /^existing rows/) });
      expect(await read().catch(() => 'unreadable before')).toEqual(stored);
      return;
    }
    await applyMigration(database.db, plan);
    expect(await read()).toEqual(expected);
  });
});
