/**
 * The CSV extractor on FiveThirtyEight's congress-terms.csv (test/fixtures/README.md):
 * 18,635 rows, one per member of Congress per term. Expectations come from reading the
 * file: `congress` is the Congress number (80–113), `chamber` house or senate, `birthday`
 * and `termstart` ISO dates, `incumbent` Yes/No, `age` a decimal, `middlename` and
 * `suffix` often empty, `party` one of six codes, `state` one of 50 two-letter codes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractCsv } from '../../src/specifications/extractors/csv.ts';
import { ENUM_MAX_DISTINCT } from '../../src/specifications/extractors/csv-columns.ts';
import type { Draft, DraftField } from '../../src/specifications/extractors/types.ts';
import { ExtractionError } from '../../src/specifications/extractors/types.ts';
import { DOCUMENT_LIMITS } from '../../src/specifications/limits.ts';

const FIXTURE = new URL('../fixtures/csv/congress-terms.csv', import.meta.url);

function csv(text: string, name = 'sample.csv'): Promise<Draft> {
  return extractCsv({ attachmentId: 'att', name, kind: 'csv', bytes: new TextEncoder().encode(text) });
}

describe('CSV extractor: congress-terms.csv', () => {
  const bytes = new Uint8Array(readFileSync(FIXTURE));
  const drafted = extractCsv({ attachmentId: 'att_congress', name: 'congress-terms.csv', kind: 'csv', bytes });
  const field = async (name: string): Promise<DraftField> => {
    const found = (await drafted).models[0].fields.find((f) => f.name === name);
    if (!found) throw new Error(`no field ${name}`);
    return found;
  };

  it('makes one model named after the file, one field per header column in order', async () => {
    const draft = await drafted;
    expect(draft.models).toHaveLength(1);
    expect(draft.models[0].name).toBe('congress-terms');
    expect(draft.models[0].fields.map((f) => f.name)).toEqual([
      'congress', 'chamber', 'bioguide', 'firstname', 'middlename', 'lastname', 'suffix',
      'birthday', 'state', 'party', 'incumbent', 'termstart', 'age',
    ]);
    expect(draft.description).toBe('18635 rows of 13 columns');
    expect(draft.warnings).toEqual([]);
  });

  it('infers number, date and boolean columns over all rows', async () => {
    expect((await field('congress')).type).toBe('p_NUMBER');
    expect((await field('age')).type).toBe('p_NUMBER');
    expect((await field('birthday')).type).toBe('p_DATE');
    expect((await field('termstart')).type).toBe('p_DATE');
    expect((await field('incumbent')).type).toBe('p_BOOLEAN');
    for (const name of ['bioguide', 'firstname', 'middlename', 'lastname', 'state']) {
      expect((await field(name)).type, name).toBe('p_TEXT');
    }
  });

  it('marks the columns with no empty cell required, and only those', async () => {
    const draft = await drafted;
    const optional = draft.models[0].fields.filter((f) => !f.required).map((f) => f.name);
    expect(optional).toEqual(['middlename', 'suffix']);
  });

  it('turns few distinct values over many rows into enums, but not 50 states', async () => {
    expect((await field('chamber')).enum).toEqual(['house', 'senate']);
    // Libertarian (`L`) sits in one term only: a value seen once is no category, so party stays text.
    expect((await field('party')).enum).toBeUndefined();
    // Cells such as " Jr." count as "Jr.": values are compared trimmed.
    expect((await field('suffix')).enum).toEqual(['II', 'III', 'IV', 'Jr.', 'Sr.']);
    expect(50).toBeGreaterThan(ENUM_MAX_DISTINCT);
    expect((await field('state')).enum).toBeUndefined();
    expect((await field('bioguide')).enum).toBeUndefined();
    // Numbers and booleans are never enums, however few their values (34 Congresses).
    expect((await field('congress')).enum).toBeUndefined();
    expect((await field('incumbent')).enum).toBeUndefined();
  });

  it('locates each field by its column', async () => {
    expect((await field('termstart')).locator).toBe('column "termstart"');
    expect((await drafted).models[0].locator).toBe('line 1');
  });
});

describe('CSV extractor: inference rules', () => {
  it('needs every filled cell of a column to agree: one word among numbers makes it text', async () => {
    const draft = await csv('qty,flag\n1,true\n2,false\n3,maybe\n');
    const [qty, flag] = draft.models[0].fields;
    expect(qty.type).toBe('p_NUMBER');
    expect(flag.type).toBe('p_TEXT');
  });

  it('reads date-times, links and phone numbers; email addresses stay text', async () => {
    const draft = await csv(
      [
        'at,site,phone,email',
        '2024-03-01T10:15:00Z,https://example.com/a,+1 415-555-0132,ann@example.com',
        '2024-03-02 08:00,http://example.org,(415) 555-0199,bob@example.org',
      ].join('\n'),
    );
    expect(draft.models[0].fields.map((f) => f.type)).toEqual(['p_DATE_TIME', 'p_LINK', 'p_PHONE_NUMBER', 'p_TEXT']);
  });

  it('keeps digits in a phone-like shape that are no phone numbers as text (US social security numbers)', async () => {
    const draft = await csv('ssn\n123-45-6789\n987-65-4321\n');
    expect(draft.models[0].fields[0].type).toBe('p_TEXT');
  });

  it('keeps codes with a leading zero and impossible dates as text', async () => {
    const draft = await csv('zip,day\n02134,2023-02-30\n10001,2023-03-01\n');
    expect(draft.models[0].fields.map((f) => f.type)).toEqual(['p_TEXT', 'p_TEXT']);
  });

  it('sniffs a semicolon delimiter and reads quoted cells with delimiters inside', async () => {
    const draft = await csv('name;note\n"Smith; Ann";"said ""hi"""\nBob;x\n');
    expect(draft.models[0].fields.map((f) => f.name)).toEqual(['name', 'note']);
    expect(draft.description).toBe('2 rows of 2 columns');
  });

  it('names blank and repeated header cells and says so', async () => {
    const draft = await csv('a,,a\n1,2,3\n');
    expect(draft.models[0].fields.map((f) => f.name)).toEqual(['a', 'column_2', 'a_2']);
    expect(draft.warnings.map((w) => w.locator)).toEqual(['column 2', 'column "a"']);
  });

  it('warns about rows of another length, counting missing cells as empty', async () => {
    // A blank line and a quoted cell over two lines come before the short row, on line 6.
    const draft = await csv('a,b\n\n"x\ny",2\n1,2\n3\n4,5,6\n');
    expect(draft.warnings).toHaveLength(1);
    expect(draft.warnings[0].locator).toBe('line 6');
    expect(draft.warnings[0].message).toContain('2 rows');
    expect(draft.models[0].fields[1].required).toBe(false);
  });

  it('reads a byte-order mark and CRLF line ends as a spreadsheet exports them', async () => {
    const draft = await csv('\uFEFFid,when\r\n1,2024-05-01\r\n2,2024-05-02\r\n');
    expect(draft.models[0].fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['id', 'p_NUMBER', true],
      ['when', 'p_DATE', true],
    ]);
  });

  it('gives optional text fields and a warning for a header without rows', async () => {
    const draft = await csv('name,price\n');
    expect(draft.models[0].fields.map((f) => [f.type, f.required])).toEqual([
      ['p_TEXT', false],
      ['p_TEXT', false],
    ]);
    expect(draft.warnings.map((w) => w.locator)).toEqual(['line 1']);
  });

  it('fails with a clear message on an empty file or a broken quote', async () => {
    await expect(csv('')).rejects.toThrow(ExtractionError);
    await expect(csv('', 'empty.csv')).rejects.toThrow('empty.csv has no header row');
    await expect(csv('a,b\n"unclosed,2\n')).rejects.toThrow(/not readable as CSV/);
  });

  it('reads a 25 MiB file row by row up to the row limit, giving the event loop turns, and says the rest was not read', async () => {
    const row = '42,2024-01-31,yes,https://example.com/item,alpha\n';
    const rows = Math.ceil((25 * 1024 * 1024) / row.length);
    const text = 'n,day,ok,link,group\n' + row.repeat(rows);
    // The service keeps answering meanwhile: a timer gets its turns during the extraction.
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const draft = await csv(text, 'big.csv').finally(() => clearInterval(timer));
    expect(ticks).toBeGreaterThan(0);
    expect(rows).toBeGreaterThan(DOCUMENT_LIMITS.csvRows);
    expect(draft.description).toBe(`${DOCUMENT_LIMITS.csvRows} rows of 5 columns`);
    expect(draft.warnings).toContainEqual({ locator: `line ${DOCUMENT_LIMITS.csvRows + 2}`, message: expect.stringContaining('only the first 100,000 rows were read') });
    expect(draft.models[0].fields.map((f) => f.type)).toEqual(['p_NUMBER', 'p_DATE', 'p_BOOLEAN', 'p_LINK', 'p_TEXT']);
    // One distinct value is not an enum: "few" means at least two.
    expect(draft.models[0].fields[4].enum).toBeUndefined();
  }, 120_000);
});
