// The import's readers of rows written in SQL, CSV and JSON, and the translation of source notations
// into field values: what a reader of a dump or a spreadsheet expects each value to be.
import { describe, expect, it } from 'vitest';
import { copyFields, copyHeader, insertRows, SqlValueError } from '../../src/imports/sql-rows.ts';
import { readSqlDocument, segmentRows, type SourceRow } from '../../src/imports/sql-source.ts';
import { csvRows, jsonRows } from '../../src/imports/text-rows.ts';
import { fieldValue, pgArray, ValueError } from '../../src/imports/values.ts';
import type { CompiledField } from '../../src/runtime/compiled-app.ts';

const field = (to: string, extra: Partial<CompiledField> = {}): CompiledField =>
  ({ id: 'f', name: 'f', to, column: 'c', required: false, many: false, min: 0, max: 1, accessControl: {}, ...extra }) as CompiledField;

async function all(rows: AsyncIterable<SourceRow>): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('COPY text format', () => {
  it('splits on tabs, reads \\N as null and undoes the backslash escapes', () => {
    expect(copyFields('1\tPENELOPE\t\\N\ta\\tb\\nc\\\\d\t\\101\\x42')).toEqual(['1', 'PENELOPE', null, 'a\tb\nc\\d', 'AB']);
  });
  it('reads the table and columns of the COPY statement', () => {
    expect(copyHeader('COPY public.film (film_id, title, "Release Year") FROM stdin;')).toEqual({ table: 'film', columns: ['film_id', 'title', 'Release Year'] });
    expect(copyHeader('-- data\nCOPY "Album" FROM stdin')).toEqual({ table: 'Album', columns: null });
  });
});

describe('INSERT statements', () => {
  it('reads PostgreSQL multi-row inserts: doubled quotes, N and E strings, casts, NULL, booleans', () => {
    const read = insertRows(`INSERT INTO public."Artist" ("ArtistId", name, ok, at) VALUES (88, N'Guns N'' Roses', TRUE, '2022-01-01'::date), (-1.5e2, E'a\\'b\\nc', NULL, DEFAULT);`, false);
    expect(read).toEqual({
      table: 'Artist',
      columns: ['ArtistId', 'name', 'ok', 'at'],
      rows: [
        ['88', "Guns N' Roses", true, '2022-01-01'],
        ['-1.5e2', "a'b\nc", null, null],
      ],
    });
    // standard strings: a backslash is itself
    expect(insertRows(`insert into t values ('C:\\temp')`, false)!.rows).toEqual([['C:\\temp']]);
  });
  it('reads MySQL inserts: backticks, backslash escapes, double-quoted strings, no column list', () => {
    const read = insertRows("INSERT INTO `sakila`.`actor` VALUES (1,'PENELOPE','O\\'Brien \\\\ x',\"say \\\"hi\\\"\"),(2,'NICK',NULL,'2006-02-15 04:34:33');", true);
    expect(read).toEqual({
      table: 'actor',
      columns: null,
      rows: [
        ['1', 'PENELOPE', "O'Brien \\ x", 'say "hi"'],
        ['2', 'NICK', null, '2006-02-15 04:34:33'],
      ],
    });
  });
  it("reads MySQL's hexadecimal literals (a BLOB in a dump) as X'…' is, beside plain numbers", () => {
    const read = insertRows("INSERT INTO `staff` VALUES (1,0x89504E47,'a'),(2,NULL,'b'),(0,0.5,X'0a');", true)!;
    expect(read.rows).toEqual([
      ['1', '\\x89504E47', 'a'],
      ['2', null, 'b'],
      ['0', '0.5', '\\x0a'],
    ]);
  });
  it('refuses a value that is not a literal, and ignores other statements', () => {
    expect(() => insertRows('INSERT INTO t (a) VALUES (nextval(1))', false)).toThrow(SqlValueError);
    expect(insertRows('UPDATE t SET a = 1', false)).toBeUndefined();
  });
});

describe('a SQL document', () => {
  it('finds each table’s COPY blocks and INSERTs, with partitions and the columns of the schema', async () => {
    const text = [
      'CREATE TABLE public.payment (payment_id integer NOT NULL, amount numeric) PARTITION BY RANGE (payment_id);',
      'CREATE TABLE public.payment_p1 PARTITION OF public.payment FOR VALUES FROM (1) TO (100);',
      'COPY public.payment_p1 (payment_id, amount) FROM stdin;',
      '1\t2.99',
      '2\t\\N',
      '\\.',
      'INSERT INTO payment VALUES (3, 4.5), (4, 0);',
    ].join('\n');
    const doc = await readSqlDocument(text);
    expect(doc.dialect).toBe('postgresql');
    expect(doc.partitionOf.get('payment_p1')).toBe('payment');
    expect(doc.tables.map((t) => t.name)).toEqual(['payment']);
    const rows = [...doc.segments.get('payment_p1')!, ...doc.segments.get('payment')!].flatMap((segment) => [...segmentRows(doc, segment, ['payment_id', 'amount'], () => {})]);
    expect(rows.map((r) => r.values)).toEqual([['1', '2.99'], ['2', null], ['3', '4.5'], ['4', '0']]);
    expect(rows[0]!.line).toBe(4);
    expect(rows[2]!.columns).toEqual(['payment_id', 'amount']);
  });
});

describe('CSV and JSON rows', () => {
  it('reads CSV rows under their header, cells as written (missing-value markers decided per field)', async () => {
    const rows = await all(csvRows(Buffer.from('species;bill\n"Adelie, big";NA\nGentoo;47.5\n')));
    expect(rows.map((r) => [r.columns, r.values, r.line, r.cells])).toEqual([
      [['species', 'bill'], ['Adelie, big', 'NA'], 2, true],
      [['species', 'bill'], ['Gentoo', '47.5'], 3, true],
    ]);
  });
  it('reads a JSON array and NDJSON, a line that is no object reported', async () => {
    expect((await all(jsonRows(Buffer.from('[{"a":1},{"a":2,"b":"x"}]')))).map((r) => r.values)).toEqual([[1], [2, 'x']]);
    const nd = await all(jsonRows(Buffer.from('{"a":1}\n\nnot json\n[1]\n')));
    expect(nd.map((r) => r.unreadable ?? r.values)).toEqual([[1], 'is not valid JSON', 'is not a JSON object']);
  });
});

describe('source values as field values', () => {
  it('translates the notations of dumps and spreadsheets', () => {
    expect(fieldValue(field('p_BOOLEAN'), 't')).toBe(true);
    expect(fieldValue(field('p_BOOLEAN'), '0')).toBe(false);
    expect(fieldValue(field('p_NUMBER'), '20.99')).toBe(20.99);
    expect(fieldValue(field('p_DATE_TIME'), '2022-09-10 16:46:03.905795+00')).toBe('2022-09-10T16:46:03.905795+00:00');
    expect(fieldValue(field('p_DATE_TIME'), '1962/2/18')).toBe('1962-02-18T00:00:00Z');
    expect(fieldValue(field('p_DATE'), '2006-02-15 04:34:33')).toBe('2006-02-15');
    expect(fieldValue(field('p_TEXT', { many: true, max: null }), '{Trailers,"Deleted Scenes"}')).toEqual(['Trailers', 'Deleted Scenes']);
    expect(pgArray('{}')).toEqual([]);
    expect(() => fieldValue(field('p_NUMBER'), 'two')).toThrow(ValueError);
  });
  it('reads a spreadsheet’s missing-value markers as no value, unless a text field must hold them', () => {
    expect(fieldValue(field('p_NUMBER'), 'NA', true)).toBeNull();
    expect(fieldValue(field('p_TEXT'), '-', true)).toBeNull();
    expect(fieldValue(field('p_TEXT', { enum: ['female', 'male', 'NA'] }), 'NA', true)).toBe('NA');
    expect(fieldValue(field('p_TEXT'), 'NA', false)).toBe('NA');
  });
});

describe('computed values in INSERTs', () => {
  it('evaluates NOW()/RAND()/INTERVAL/CAST as the loading database would, and still refuses other expressions', () => {
    const read = insertRows(`INSERT INTO customer VALUES (1,CAST(NOW() - INTERVAL FLOOR(6935 + (Rand() * 19345)) DAY as DATE),'x'),(2,NOW() + INTERVAL 1 DAY,CURRENT_TIMESTAMP);`, true)!;
    const [first, second] = read.rows;
    const born = new Date(`${String(first![1])}T00:00:00Z`).getTime();
    const day = 86_400_000;
    expect(first![1]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Date.now() - born).toBeGreaterThanOrEqual(6934 * day);
    expect(Date.now() - born).toBeLessThanOrEqual((6935 + 19345 + 1) * day);
    expect(first![2]).toBe('x');
    expect(new Date(String(second![1])).getTime() - Date.now()).toBeGreaterThan(day - 60_000);
    expect(second![2]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(() => insertRows(`INSERT INTO t VALUES (1, uuid_generate_v4());`, false)).toThrow(SqlValueError);
  });
});
