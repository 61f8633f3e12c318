// The import's per-column converters: the fast path taken by plain spreadsheet cells must accept
// exactly what the general path (the import's notations, then the write path's field check)
// accepts, store the same value (a date-time as the same instant), and leave every other cell to
// the general path, which words the error with the field's path.
import { describe, expect, it } from 'vitest';
import { converter, FieldError } from '../../src/imports/row-shape.ts';
import { fieldValue, ValueError } from '../../src/imports/values.ts';
import { checkFieldValue } from '../../src/runtime/writes/values.ts';
import type { CompiledField } from '../../src/runtime/compiled-app.ts';
import type { SourceValue } from '../../src/imports/sql-rows.ts';

const field = (to: string, extra: Partial<CompiledField> = {}): CompiledField =>
  ({ id: 'f', name: 'taken', to, column: 'c', required: false, many: false, min: 0, max: 1, accessControl: {}, ...extra }) as CompiledField;

/** The general path, as the import ran it before converters: a value, or the error's path and message. */
function general(f: CompiledField, raw: SourceValue, cells: boolean): { value: unknown } | { path: string; message: string } {
  let value: unknown;
  try {
    value = fieldValue(f, raw, cells);
  } catch (error) {
    if (error instanceof ValueError) return { path: `/${f.name}`, message: error.message };
    throw error;
  }
  const checked = checkFieldValue(f, value);
  return checked.ok ? { value: checked.value } : { path: checked.errors[0]!.path, message: checked.errors[0]!.message };
}

function fast(f: CompiledField, raw: SourceValue, cells: boolean): { value: unknown } | { path: string; message: string } {
  try {
    return { value: converter(f)(raw, cells) };
  } catch (error) {
    if (error instanceof FieldError) return { path: error.path, message: error.message };
    throw error;
  }
}

/** Date-times compare as instants (the fast path keeps the text the database reads as that instant). */
function same(f: CompiledField, a: ReturnType<typeof fast>, b: ReturnType<typeof fast>): void {
  if (f.to === 'p_DATE_TIME' && 'value' in a && 'value' in b && typeof a.value === 'string' && typeof b.value === 'string') {
    expect(Date.parse(a.value)).toBe(Date.parse(b.value));
  } else expect(a).toEqual(b);
}

const CELLS: Record<string, SourceValue[]> = {
  p_TEXT: ['Adelie', ' Adelie ', 'NA', 'na', 'N/A', '-', '', 'null', 'nan', 'Torgersen Island', 'x'],
  p_NUMBER: ['39.1', '-5', '0', '1e3', '1e400', 'NA', '-', '', ' 12 ', 'abc', '12.5.1', '0x10', 'Infinity', '.5', 3.5, true, null],
  p_BOOLEAN: ['true', 'false', 'TRUE', 'False', 'tRuE', 'yes', 'off', '1', '0', 'maybe', 'NA', '', true, null],
  p_DATE: ['2024-02-29', '2023-02-29', '2024-13-01', '2024/2/3', '0000-00-00', '2024-02-03T10:00:00Z', '0999-01-01', 'NA', ''],
  p_DATE_TIME: [
    '2024-02-03T10:00:00Z',
    '2024-02-03T10:00Z',
    '2024-02-03 10:00:00',
    '2024-02-03T10:00:00.5+02:00',
    '2024-02-03T10:00:00.123-05:30',
    '2024-02-03T10:00:00.123456Z',
    '2024-02-30T10:00:00Z',
    '2024-02-03T24:00:00Z',
    '2024-02-03T10:60:00Z',
    '2024-02-03T10:00:00+25:00',
    '2024-02-03t10:00:00z',
    '2024-02-03',
    '0000-00-00 00:00:00',
    'NA',
    '',
    'yesterday',
  ],
};

describe('per-column converters', () => {
  for (const [to, cells] of Object.entries(CELLS)) {
    it(`${to}: the fast path gives what the general path gives, value or error`, () => {
      for (const extra of [{}, { required: true }]) {
        const f = field(to, extra);
        for (const raw of cells) for (const isCell of [true, false]) same(f, fast(f, raw, isCell), general(f, raw, isCell));
      }
    });
  }

  it('keeps an enum: a value it does not list is refused at the field, a missing marker it lists is kept', () => {
    const f = field('p_TEXT', { enum: ['alpha', 'beta', 'NA'] });
    expect(fast(f, 'beta', true)).toEqual({ value: 'beta' });
    expect(fast(f, 'NA', true)).toEqual({ value: 'NA' });
    expect(fast(f, 'gamma', true)).toEqual({ path: '/taken', message: 'must be one of "alpha", "beta", "NA"' });
  });

  it('refuses a bad cell with the field path and the reason', () => {
    expect(fast(field('p_DATE_TIME'), '2024-02-30T10:00:00Z', true)).toEqual({ path: '/taken', message: 'must be an ISO 8601 date-time' });
    expect(fast(field('p_NUMBER'), 'abc', true)).toEqual({ path: '/taken', message: 'must be a number' });
    expect(fast(field('p_NUMBER', { required: true }), 'NA', true)).toEqual({ path: '/taken', message: 'is required and cannot be null' });
  });
});
