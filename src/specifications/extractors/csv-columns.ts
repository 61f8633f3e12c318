/**
 * What a CSV column holds, inferred over every row (DESIGN §13): each column keeps a few
 * counters and at most ENUM_MAX_DISTINCT + 1 distinct values, so memory stays flat however
 * many rows the file has.
 */
import type { PrimitiveType } from '../../definition/schema.ts';

/** "Few distinct values": at most this many, each seen on average ENUM_MIN_REPEAT times. */
export const ENUM_MAX_DISTINCT = 20;
export const ENUM_MIN_REPEAT = 5;

const BOOLEAN_WORDS = new Set(['true', 'false', 'yes', 'no', 'y', 'n', 't', 'f']);
/**
 * What spreadsheets, R and databases write for "no value": a missing value like an empty cell
 * (the column becomes optional), never text that turns a numeric column into text or an enum value.
 */
export const MISSING_VALUES = new Set(['NA', 'N/A', 'n/a', 'na', '#N/A', 'null', 'NULL', 'Null', 'None', 'NaN', '-', '--', '\\N']);
/** A number as a spreadsheet writes it; a leading zero (`007`, a code) keeps it text. */
const NUMBER = /^[+-]?(?:0|[1-9]\d*|0?\.\d+|[1-9]\d*\.\d*|0\.\d*)(?:[eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
/** Digits with the punctuation phone numbers are written with; bare digits are numbers. */
const PHONE_SHAPE = /^\+?[\d\s().-]{7,}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Kind = 'boolean' | 'number' | 'date' | 'dateTime' | 'url' | 'phone' | 'email';
const KINDS: Kind[] = ['boolean', 'number', 'date', 'dateTime', 'url', 'phone', 'email'];

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // A real calendar day: 2023-02-30 does not round-trip.
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function isUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return Boolean(new URL(value).hostname);
  } catch {
    return false;
  }
}

/**
 * Full phone validation (libphonenumber's metadata) costs ~50 µs a value: it runs on the
 * first PHONE_VALIDATED values of a column; every later value must still have a phone
 * number's shape, checked by a regular expression in well under a microsecond.
 */
export const PHONE_VALIDATED = 1000;

function hasPhoneShape(value: string): boolean {
  return PHONE_SHAPE.test(value) && !/^\d+$/.test(value);
}

/** Whether a value is a valid phone number (libphonenumber's metadata). */
export type PhoneCheck = (value: string) => boolean;

// Imported on first use: libphonenumber's metadata is ~2 MB of V8 heap, needed only while a
// CSV attachment is read (issue 28).
let phoneCheck: Promise<PhoneCheck> | undefined;
export function loadPhoneCheck(): Promise<PhoneCheck> {
  phoneCheck ??= import('libphonenumber-js').then(({ isValidPhoneNumber }) => (value: string) =>
    // Without a leading + the number is read as a North American one (the common default of
    // spreadsheets exported without country codes).
    isValidPhoneNumber(value) || isValidPhoneNumber(value, 'US'));
  return phoneCheck;
}

const TESTS: Record<Kind, (value: string) => boolean> = {
  boolean: (v) => BOOLEAN_WORDS.has(v.toLowerCase()),
  number: (v) => NUMBER.test(v),
  date: isDate,
  dateTime: (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  url: isUrl,
  phone: hasPhoneShape,
  email: (v) => EMAIL.test(v),
};

const TYPE_OF: Record<Kind, PrimitiveType> = {
  boolean: 'p_BOOLEAN',
  number: 'p_NUMBER',
  date: 'p_DATE',
  dateTime: 'p_DATE_TIME',
  url: 'p_LINK',
  phone: 'p_PHONE_NUMBER',
  // An email address is text with a format; there is no email primitive.
  email: 'p_TEXT',
};

export interface ColumnSummary {
  type: PrimitiveType;
  required: boolean;
  enum?: string[];
  filled: number;
  empty: number;
}

/** Counters for one column; `add` is called once per row. `isValidPhone` is `loadPhoneCheck()`'s. */
export class ColumnStats {
  filled = 0;
  empty = 0;
  private readonly candidates = new Set<Kind>(KINDS);
  /** Each distinct value and how often it was seen, while there are few. */
  private readonly distinct = new Map<string, number>();
  private tooMany = false;
  private phonesValidated = 0;

  constructor(private readonly isValidPhone: PhoneCheck) {}

  add(raw: string | undefined): void {
    const value = (raw ?? '').trim();
    if (value === '' || MISSING_VALUES.has(value)) {
      this.empty += 1;
      return;
    }
    this.filled += 1;
    for (const kind of this.candidates) {
      if (!TESTS[kind](value)) this.candidates.delete(kind);
    }
    if (this.candidates.has('phone') && this.phonesValidated < PHONE_VALIDATED) {
      this.phonesValidated += 1;
      if (!this.isValidPhone(value)) this.candidates.delete('phone');
    }
    if (!this.tooMany) {
      this.distinct.set(value, (this.distinct.get(value) ?? 0) + 1);
      if (this.distinct.size > ENUM_MAX_DISTINCT) {
        this.tooMany = true;
        this.distinct.clear();
      }
    }
  }

  summary(): ColumnSummary {
    const kind = this.filled > 0 ? KINDS.find((k) => this.candidates.has(k)) : undefined;
    const type = kind ? TYPE_OF[kind] : 'p_TEXT';
    const summary: ColumnSummary = {
      type,
      required: this.filled > 0 && this.empty === 0,
      filled: this.filled,
      empty: this.empty,
    };
    const textual = kind === undefined || kind === 'email';
    // An enum needs repeated values: few distinct ones, each seen at least twice (a value seen
    // once is as likely a free-text answer as a category)
    const few = !this.tooMany && this.distinct.size >= 2 && this.filled >= this.distinct.size * ENUM_MIN_REPEAT;
    const repeated = [...this.distinct.values()].every((count) => count >= 2);
    if (textual && this.filled > 0 && few && repeated) {
      summary.enum = [...this.distinct.keys()].sort();
    }
    return summary;
  }
}
