// The SQL extractor on two real sample databases (test/fixtures/README.md): Pagila, a pg_dump
// of a DVD rental store, and MySQL's own Sakila schema. Expectations come from reading the DDL.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractSql } from '../../src/specifications/extractors/sql.ts';
import { extractorFor } from '../../src/specifications/extractors/index.ts';
import type { Draft, DraftField, DraftModel } from '../../src/specifications/extractors/types.ts';

async function extract(file: string): Promise<Draft> {
  const bytes = readFileSync(new URL(`../fixtures/sql/${file}`, import.meta.url));
  return extractSql({ attachmentId: 'att-1', name: file, kind: 'sql', bytes });
}

function model(draft: Draft, name: string): DraftModel {
  const found = draft.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${draft.models.map((m) => m.name).join(', ')}`);
  return found;
}

function field(draft: Draft, modelName: string, name: string): DraftField {
  const found = model(draft, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name}`);
  return found;
}

describe('Pagila (PostgreSQL, pg_dump)', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('pagila-schema.sql');
  });

  it('is the extractor registered for sql attachments', () => {
    expect(extractorFor('sql')).toBe(extractSql);
  });

  it('reads the 16 tables as models, the 55 monthly payment partitions folded into payment', () => {
    expect(draft.models.map((m) => m.name).sort()).toEqual([
      'actor', 'address', 'category', 'city', 'country', 'customer', 'film', 'film_actor', 'film_category',
      'film_embedding', 'inventory', 'language', 'payment', 'rental', 'staff', 'store',
    ]);
    expect(model(draft, 'film').locator).toMatch(/^table public\.film \(line 438\)$/);
  });

  it('types columns: text, numeric, smallint, boolean, date, timestamptz, bytea, the year domain, text[]', () => {
    expect(field(draft, 'film', 'title')).toMatchObject({ type: 'p_TEXT', required: true, many: false });
    expect(field(draft, 'film', 'description')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'film', 'rental_rate')).toMatchObject({ type: 'p_NUMBER', required: true, defaultValue: 4.99 });
    expect(field(draft, 'film', 'rental_duration')).toMatchObject({ type: 'p_NUMBER', required: true, defaultValue: 3 });
    expect(field(draft, 'film', 'release_year')).toMatchObject({ type: 'p_NUMBER', required: false });
    expect(field(draft, 'film', 'special_features')).toMatchObject({ type: 'p_TEXT', many: true });
    expect(field(draft, 'staff', 'active')).toMatchObject({ type: 'p_BOOLEAN', required: true, defaultValue: true });
    expect(field(draft, 'staff', 'picture').type).toBe('p_FILE');
    expect(field(draft, 'customer', 'create_date').type).toBe('p_DATE');
    expect(field(draft, 'rental', 'return_date')).toMatchObject({ type: 'p_DATE_TIME', required: false });
    expect(field(draft, 'payment', 'amount')).toMatchObject({ type: 'p_NUMBER', required: true });
  });

  it('reads the mpaa_rating enum type with its default', () => {
    expect(field(draft, 'film', 'rating')).toMatchObject({
      type: 'p_TEXT',
      enum: ['G', 'PG', 'PG-13', 'R', 'NC-17'],
      defaultValue: 'G',
      required: false,
    });
  });

  it('leaves serial keys to the generated ids and gives now() defaults as a now expression', () => {
    expect(model(draft, 'film').fields.map((f) => f.name)).not.toContain('film_id');
    expect(model(draft, 'actor').fields.map((f) => f.name)).not.toContain('actor_id');
    expect(field(draft, 'actor', 'last_update')).toMatchObject({ type: 'p_DATE_TIME', required: true, defaultValue: { expression: 'now' } });
  });

  it('turns ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY into relationships naming the to-many partner', () => {
    expect(field(draft, 'address', 'city')).toMatchObject({ type: { model: 'city' }, many: false, required: true, partner: 'addresses' });
    expect(field(draft, 'city', 'country')).toMatchObject({ type: { model: 'country' }, partner: 'cities' });
    expect(field(draft, 'customer', 'address')).toMatchObject({ type: { model: 'address' }, partner: 'customers' });
    expect(field(draft, 'rental', 'inventory')).toMatchObject({ type: { model: 'inventory' }, required: true, partner: 'rentals' });
    expect(field(draft, 'film', 'language')).toMatchObject({ type: { model: 'language' }, required: true, partner: 'films' });
    expect(field(draft, 'film', 'original_language')).toMatchObject({
      type: { model: 'language' },
      required: false,
      partner: 'films_as_original_language',
    });
  });

  it('takes payment foreign keys from its partitions (pg_dump declares them there)', () => {
    expect(field(draft, 'payment', 'customer')).toMatchObject({ type: { model: 'customer' }, partner: 'payments' });
    expect(field(draft, 'payment', 'staff')).toMatchObject({ type: { model: 'staff' }, partner: 'payments' });
    expect(field(draft, 'payment', 'rental')).toMatchObject({ type: { model: 'rental' }, partner: 'payments' });
  });

  it('sees film_actor and film_category as join tables, and inventory (own key, referenced by rental) as an entity', () => {
    expect(model(draft, 'film_actor').joinOf).toEqual(['actor', 'film']);
    expect(model(draft, 'film_category').joinOf).toEqual(['film', 'category']);
    expect(model(draft, 'inventory').joinOf).toBeUndefined();
    expect(model(draft, 'film_embedding').joinOf).toBeUndefined();
  });

  it('keeps store.manager_staff_id a plain number: the dump declares no foreign key for it', () => {
    expect(field(draft, 'store', 'manager_staff_id')).toMatchObject({ type: 'p_NUMBER', required: true });
  });

  it('summarises what it skipped in a few warnings, not one per function, view or trigger', () => {
    expect(draft.warnings.length).toBeLessThanOrEqual(4);
    const text = draft.warnings.map((w) => w.message).join('\n');
    expect(text).toMatch(/film\.fulltext \(tsvector\)/);
    expect(text).toMatch(/film\.length_hours \(generated\)/);
    expect(text).toMatch(/\d+ statements describing no table/);
  });
});

describe('Sakila (MySQL)', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('sakila-mysql-schema.sql');
  });

  it('reads it as MySQL, its tables as models', () => {
    expect(draft.description).toMatch(/^MySQL schema/);
    const names = draft.models.map((m) => m.name);
    for (const table of ['actor', 'address', 'category', 'city', 'country', 'customer', 'film', 'film_actor', 'film_category', 'film_text', 'inventory', 'language', 'payment', 'rental', 'store']) {
      expect(names).toContain(table);
    }
  });

  it('reads ENUM and SET columns as enums (SET as many values) with their defaults', () => {
    expect(field(draft, 'film', 'rating')).toMatchObject({ type: 'p_TEXT', many: false, enum: ['G', 'PG', 'PG-13', 'R', 'NC-17'], defaultValue: 'G' });
    expect(field(draft, 'film', 'special_features')).toMatchObject({
      type: 'p_TEXT',
      many: true,
      enum: ['Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes'],
    });
  });

  it('types MySQL columns and reads NOT NULL and literal defaults', () => {
    expect(field(draft, 'customer', 'active')).toMatchObject({ type: 'p_BOOLEAN', required: true, defaultValue: true });
    expect(field(draft, 'customer', 'create_date')).toMatchObject({ type: 'p_DATE_TIME', required: true });
    expect(field(draft, 'customer', 'email')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'film', 'rental_rate')).toMatchObject({ type: 'p_NUMBER', required: true, defaultValue: 4.99 });
    expect(field(draft, 'film', 'release_year').type).toBe('p_NUMBER');
    expect(model(draft, 'film').fields.map((f) => f.name)).not.toContain('film_id');
  });

  it('turns inline CONSTRAINT … FOREIGN KEY into relationships with partners, and the two pairings into joins', () => {
    expect(field(draft, 'customer', 'address')).toMatchObject({ type: { model: 'address' }, required: true, partner: 'customers' });
    expect(field(draft, 'customer', 'store')).toMatchObject({ type: { model: 'store' }, partner: 'customers' });
    expect(field(draft, 'payment', 'rental')).toMatchObject({ type: { model: 'rental' }, required: false, partner: 'payments' });
    expect(model(draft, 'film_actor').joinOf).toEqual(['actor', 'film']);
    expect(model(draft, 'film_category').joinOf).toEqual(['film', 'category']);
  });

  it('reads the staff table past its BINARY attribute, skips routines and triggers by name, and reports every table', () => {
    const text = draft.warnings.map((w) => `${w.locator}: ${w.message}`).join('\n');
    // `password VARCHAR(40) BINARY` is outside node-sql-parser's MySQL grammar: the attribute is set aside, not the table
    expect(text).toMatch(/line 282: storage attributes the MySQL grammar does not read were set aside .*: BINARY/);
    expect(field(draft, 'staff', 'password')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'payment', 'staff')).toMatchObject({ type: { model: 'staff' }, partner: 'payments' });
    expect(field(draft, 'rental', 'staff')).toMatchObject({ type: { model: 'staff' }, required: true });
    // store.manager_staff_id names its target in its key: the qualifier stays with it
    expect(field(draft, 'store', 'manager_staff')).toMatchObject({ type: { model: 'staff' }, required: true });
    expect(text).toMatch(/16 routine, trigger or views skipped, statement by statement: trigger ins_film \(line 184\), trigger upd_film/);
    expect(text).toMatch(/16 tables in the document: 14 models .*2 join tables read as many-to-many \(film_actor, film_category\); none left out/);
    expect(text).not.toMatch(/does not define/);
    expect(draft.warnings.length).toBeLessThan(10);
  });
});
