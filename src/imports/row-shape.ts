/**
 * A row layout (its columns in order) compiled once per import into a shape: for each column
 * of the model's table, the source value that sets it and the one function that turns that
 * value into what the write path would store — the import's notations read (values.ts), then
 * the write path's own check of the field (`checkFieldValue`: required, types, enums, array
 * bounds) — or, for a field the row does not set, its default or "is required". Rows then cost
 * one call per column: no record object, no map of values, no pass over the model per row.
 *
 * The common spreadsheet cells (text, numbers, ISO dates and date-times) take a fast path that
 * accepts exactly what the general path accepts and gives the same value; anything else (a
 * missing-value marker, another notation, a bad value) goes the general way, which also words
 * the error.
 */
import type { CompiledField, CompiledModel } from '../runtime/compiled-app.ts';
import { checkFieldValue } from '../runtime/writes/values.ts';
import type { Binding, TablePlan } from './plan.ts';
import type { SourceValue } from './sql-rows.ts';
import { isMissingCell } from './text-rows.ts';
import { fieldValue, ValueError } from './values.ts';

/** A value the field refuses: the row is rejected at `path` with `message`. */
export class FieldError extends Error {
  override name = 'FieldError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export type Convert = (raw: SourceValue | SourceValue[], cells: boolean) => unknown;

/** The general path: the import's notation (fieldValue), then the write path's check. */
function general(field: CompiledField): Convert {
  return (raw, cells) => {
    let value: unknown;
    try {
      value = fieldValue(field, raw, cells);
    } catch (error) {
      if (error instanceof ValueError) throw new FieldError(`/${field.name}`, error.message);
      throw error;
    }
    const checked = checkFieldValue(field, value);
    if (!checked.ok) throw new FieldError(checked.errors[0]!.path, checked.errors[0]!.message);
    return checked.value;
  };
}

/**
 * True when `cell` may be a missing-value marker (`NA`, `-`, …: 4 characters or fewer, none
 * starting with a digit) or has spaces around it.
 */
function unusual(cell: string): boolean {
  const first = cell.charCodeAt(0);
  return (cell.length <= 4 && !(first >= 48 && first <= 57)) || first <= 32 || cell.charCodeAt(cell.length - 1) <= 32;
}

/** The notations of true and false values.ts reads, as written (any other case goes the general way). */
const BOOLEANS = new Map<SourceValue | SourceValue[], boolean>([
  ...['t', 'true', '1', 'yes', 'y', 'on', 'TRUE', 'True'].map((text) => [text, true] as const),
  ...['f', 'false', '0', 'no', 'n', 'off', 'FALSE', 'False'].map((text) => [text, false] as const),
]);

function plainCell(raw: SourceValue | SourceValue[], cells: boolean): raw is string {
  return typeof raw === 'string' && !(unusual(raw) && (cells ? isMissingCell(raw) : false)) && raw.trim() === raw && raw !== '';
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function daysIn(year: number, month: number): number {
  return month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS[month - 1]!;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * `2024-02-03T10:00:00Z` when it is a valid date-time of this plain form (at most milliseconds,
 * an explicit zone or none, then UTC), else undefined. The text is kept: the database reads
 * it as the same instant the general path's ISO form names, and no Date is made per cell.
 */
function plainDateTime(text: string): string | undefined {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  const zone = m[8];
  if (zone === undefined) return `${text}Z`;
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return undefined;
  return text;
}

function plainDate(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** The converter of a value-bound field: a fast path for the usual cells, else the general one. */
export function converter(field: CompiledField): Convert {
  const slow = general(field);
  if (field.many || field.relation) return slow;
  const allowed = field.enum ? new Set(field.enum) : undefined;
  switch (field.to) {
    case 'p_TEXT':
      return (raw, cells) => (typeof raw === 'string' && !(cells && unusual(raw) && isMissingCell(raw)) && (!allowed || allowed.has(raw)) ? raw : slow(raw, cells));
    case 'p_NUMBER':
      if (allowed) return slow;
      return (raw, cells) => {
        if (!plainCell(raw, cells)) return slow(raw, cells);
        const number = Number(raw);
        return Number.isFinite(number) ? number : slow(raw, cells);
      };
    case 'p_DATE_TIME':
      if (allowed) return slow;
      return (raw, cells) => (plainCell(raw, cells) ? (plainDateTime(raw) ?? slow(raw, cells)) : slow(raw, cells));
    case 'p_BOOLEAN':
      if (allowed) return slow;
      return (raw, cells) => BOOLEANS.get(raw) ?? slow(raw, cells);
    case 'p_DATE':
      if (allowed) return slow;
      return (raw, cells) => (plainCell(raw, cells) && plainDate(raw) ? raw : slow(raw, cells));
    default:
      return slow;
  }
}

/** Where one column of the model's table gets its value in rows of a layout. */
export interface Slot {
  field: CompiledField;
  /** The value's place in the row, or -1 when rows of the layout do not set it. */
  index: number;
  /** A key reference: the source table whose row the value names. */
  target?: string;
  convert?: Convert;
  /** A file field: a value that is no https URL (binary data) is left out. */
  file?: boolean;
}

export interface Shape {
  /** One per column of `tableColumns(model)`, in that order. */
  slots: Slot[];
  /** Many-to-many fields the rows set by ids (stored in join tables). */
  links: Slot[];
  /** The place of the plan's key column, or -1. */
  keyIndex: number;
  /** The place of a column of record ids, or -1. */
  idIndex: number;
}

/** The columns an import writes (after `id`): every stored field of the model, in the model's order. */
export function tableColumns(model: CompiledModel): CompiledField[] {
  return model.fields.filter((field) => field.column !== null);
}

function isFileType(field: CompiledField): boolean {
  return field.to === 'p_FILE' || field.to === 'p_IMAGE' || field.to === 'p_VIDEO';
}

/** The shape of rows whose values come in `columns` order. */
export function compileShape(plan: TablePlan, model: CompiledModel, columns: string[], converters: Map<CompiledField, Convert>): Shape {
  const bound = new Map<CompiledField, { index: number; binding: Binding }>();
  columns.forEach((column, index) => {
    const binding = plan.bindings.get(column.toLowerCase());
    if (binding && !bound.has(binding.field)) bound.set(binding.field, { index, binding });
  });
  const convert = (field: CompiledField) => {
    let found = converters.get(field);
    if (!found) converters.set(field, (found = converter(field)));
    return found;
  };
  const slotOf = (field: CompiledField): Slot => {
    const source = bound.get(field);
    if (!source) return { field, index: -1 };
    if (source.binding.kind === 'ref') return { field, index: source.index, target: source.binding.target };
    return { field, index: source.index, convert: convert(field), ...(isFileType(field) ? { file: true } : {}) };
  };
  const links = model.fields.filter((field) => field.column === null && field.computed === undefined && bound.has(field)).map(slotOf);
  return {
    slots: tableColumns(model).map(slotOf),
    links,
    keyIndex: plan.keyColumn ? columns.findIndex((c) => c.toLowerCase() === plan.keyColumn) : -1,
    idIndex: plan.idColumn ? columns.indexOf(plan.idColumn) : -1,
  };
}

/**
 * What a field the row does not set takes, as a create does: its literal default (checked once),
 * its expression default (evaluated per row), else null, or "is required".
 */
export class Absent {
  private readonly literal = new Map<CompiledField, { value: unknown } | { error: FieldError }>();

  constructor(private readonly expressionDefault: (field: CompiledField) => unknown) {}

  value(field: CompiledField): unknown {
    if (field.defaultValue !== undefined) {
      let known = this.literal.get(field);
      if (!known) {
        const checked = checkFieldValue(field, structuredClone(field.defaultValue));
        known = checked.ok ? { value: checked.value } : { error: new FieldError(checked.errors[0]!.path, checked.errors[0]!.message) };
        this.literal.set(field, known);
      }
      if ('error' in known) throw known.error;
      return known.value;
    }
    const value = field.defaultExpression !== undefined ? this.expressionDefault(field) : undefined;
    if (value === undefined || value === null) {
      if (field.required) throw new FieldError(`/${field.name}`, 'is required');
      return null;
    }
    const checked = checkFieldValue(field, value);
    if (!checked.ok) throw new FieldError(checked.errors[0]!.path, checked.errors[0]!.message);
    return checked.value;
  }
}
