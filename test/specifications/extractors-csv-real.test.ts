/**
 * The CSV extractor on two more real files (test/fixtures/README.md): Palmer penguins (344
 * rows, `NA` for missing measurements and sex) and FiveThirtyEight's Avengers (173 rows, not
 * valid UTF-8: one Latin-1 byte 0xE6 in a note on line 31). Expectations come from reading the files.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractCsv } from '../../src/specifications/extractors/csv.ts';
import { detectKind } from '../../src/specifications/kind.ts';
import { decodeDocumentText, firstInvalidUtf8 } from '../../src/specifications/text.ts';
import type { Draft, DraftField } from '../../src/specifications/extractors/types.ts';

const bytesOf = (file: string) => new Uint8Array(readFileSync(new URL(`../fixtures/csv/${file}`, import.meta.url)));
const read = (file: string): Promise<Draft> => extractCsv({ attachmentId: 'att', name: file, kind: 'csv', bytes: bytesOf(file) });
const csv = (text: string): Promise<Draft> => extractCsv({ attachmentId: 'att', name: 'sample.csv', kind: 'csv', bytes: new TextEncoder().encode(text) });
function field(draft: Draft, name: string): DraftField {
  const found = draft.models[0]!.fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${name}`);
  return found;
}

describe('CSV missing-value markers: penguins.csv', () => {
  const drafted = read('penguins.csv');

  it('reads NA as a missing value: the measurements stay numbers, optional', async () => {
    const draft = await drafted;
    for (const name of ['bill_length_mm', 'bill_depth_mm', 'flipper_length_mm', 'body_mass_g']) {
      expect(field(draft, name)).toMatchObject({ type: 'p_NUMBER', required: false });
    }
    expect(field(draft, 'year')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(draft.description).toBe('344 rows of 8 columns');
  });

  it('never makes NA an enum value', async () => {
    const draft = await drafted;
    expect(field(draft, 'sex')).toMatchObject({ type: 'p_TEXT', required: false, enum: ['female', 'male'] });
    expect(field(draft, 'species')).toMatchObject({ required: true, enum: ['Adelie', 'Chinstrap', 'Gentoo'] });
    expect(field(draft, 'island').enum).toEqual(['Biscoe', 'Dream', 'Torgersen']);
  });

  it('treats N/A, null, NULL, - and empty cells alike, and needs each enum value twice', async () => {
    const draft = await csv('n,kind,rare\n1,a,x\nN/A,b,y\nnull,a,x\nNULL,b,y\n-,a,z\n,b,y\n3,a,x\n4,b,y\n5,a,x\n6,b,y\n7,a,y\n');
    expect(field(draft, 'n')).toMatchObject({ type: 'p_NUMBER', required: false });
    expect(field(draft, 'kind').enum).toEqual(['a', 'b']);
    // `z` is seen once: no enum
    expect(field(draft, 'rare').enum).toBeUndefined();
  });
});

describe('a CSV that is not valid UTF-8: avengers-latin1.csv', () => {
  it('is a CSV attachment, not `other`', async () => {
    const bytes = bytesOf('avengers-latin1.csv');
    expect(await detectKind(bytes, 'avengers.csv', 'text/csv')).toBe('csv');
    expect(await detectKind(bytes, 'avengers', 'application/octet-stream')).toBe('csv');
  });

  it('is read as Windows-1252 whole, with a warning naming the first such byte\'s line and column', async () => {
    const draft = await read('avengers-latin1.csv');
    expect(draft.warnings[0]).toEqual({
      locator: 'line 31, column 300',
      message: 'the document is not valid UTF-8 (first at line 31, column 300: byte 0xE6): read as Windows-1252 (Latin-1)',
    });
    expect(draft.description).toBe('173 rows of 21 columns');
    expect(field(draft, 'URL')).toMatchObject({ type: 'p_LINK', required: true });
    expect(field(draft, 'Appearances')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(field(draft, 'Gender').enum).toEqual(['FEMALE', 'MALE']);
    expect(field(draft, 'Death1')).toMatchObject({ type: 'p_BOOLEAN', required: true });
  });

  it('decodes with the byte read as its Windows-1252 character, and leaves UTF-8 and BOMs alone', () => {
    const bytes = bytesOf('avengers-latin1.csv');
    expect(firstInvalidUtf8(bytes)).toBeGreaterThan(0);
    const decoded = decodeDocumentText(bytes);
    expect(decoded.encoding).toBe('windows-1252');
    expect(decoded.text).toContain('Kree Empire using the\u00e6M\'Kraan Crystal');
    expect(decodeDocumentText(new TextEncoder().encode('café, naïve'))).toEqual({ text: 'café, naïve', encoding: 'utf-8' });
    expect(decodeDocumentText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xc3, 0xa9]))).toEqual({ text: 'aé', encoding: 'utf-8' });
    expect(decodeDocumentText(new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0xe9, 0x00])).text).toBe('aé');
    // a declaration names the encoding: no warning
    const declared = decodeDocumentText(new Uint8Array([...new TextEncoder().encode("SET client_encoding = 'LATIN1';\n-- caf"), 0xe9]));
    expect(declared).toEqual({ text: "SET client_encoding = 'LATIN1';\n-- café", encoding: 'windows-1252' });
    // an overlong or truncated sequence is not UTF-8
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0xaf]))).toBe(1);
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xe2, 0x82]))).toBe(1);
    expect(firstInvalidUtf8(new TextEncoder().encode('€𝄞'))).toBe(-1);
  });
});
