/**
 * Rows written in SQL, read without a database: the data lines of PostgreSQL's `COPY … FROM
 * stdin` (text format: tab-separated, `\N` for null, backslash escapes) and the tuples of
 * `INSERT INTO t [(columns)] VALUES (…), (…)` in PostgreSQL's and MySQL's quoting (`'it''s'`,
 * MySQL's and `E'…'` backslash escapes, `"ident"` and `` `ident` ``, `N'…'`, `0x…`, `::type` casts).
 */

import { evaluateExpression, UnsupportedExpression } from './sql-expressions.ts';

/** A value as the source wrote it: text, a number literal (kept as written), a boolean, or null. */
export type SourceValue = string | number | boolean | null;

const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

function unescapeCopy(field: string): string {
  return field.replace(/\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|([\s\S]))/g, (_all, octal: string | undefined, hex: string | undefined, char: string | undefined) => {
    if (octal) return String.fromCharCode(parseInt(octal, 8));
    if (hex) return String.fromCharCode(parseInt(hex, 16));
    return COPY_ESCAPES[char!] ?? char!;
  });
}

/** One data line of `COPY … FROM stdin` (text format) as its values. */
export function copyFields(line: string): Array<string | null> {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  return text.split('\t').map((field) => (field === '\\N' ? null : field.includes('\\') ? unescapeCopy(field) : field));
}

/** `COPY public.film (film_id, title) FROM stdin;` → its table and columns. */
export function copyHeader(statement: string): { table: string; columns: string[] | null } | undefined {
  const match = /^\s*copy\s+((?:"(?:[^"]|"")+"|[\w$]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[\w$]+))*)\s*(?:\(([^)]*)\))?\s*from\s+stdin/i.exec(stripComments(statement));
  if (!match) return undefined;
  return { table: lastIdentifier(match[1]!), columns: match[2] === undefined ? null : match[2].split(',').map((c) => unquoteIdentifier(c.trim())) };
}

function stripComments(text: string): string {
  return text.replace(/^(?:\s*(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/))*/, '');
}

function unquoteIdentifier(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"')) return raw.slice(1, -1).replace(/""/g, '"');
  if (raw.startsWith('`') && raw.endsWith('`')) return raw.slice(1, -1).replace(/``/g, '`');
  if (raw.startsWith('[') && raw.endsWith(']')) return raw.slice(1, -1);
  return raw;
}

/** `public."Film"` → `Film`: the table's own name (schemas are not part of a model's name). */
function lastIdentifier(qualified: string): string {
  const parts = qualified.match(/"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[^.\s]+/g) ?? [qualified];
  return unquoteIdentifier(parts[parts.length - 1]!);
}

export interface InsertRows {
  table: string;
  columns: string[] | null;
  rows: SourceValue[][];
}

export class SqlValueError extends Error {
  override name = 'SqlValueError';
}

/** A cursor over one INSERT statement. */
class Scanner {
  at = 0;
  /** The moment NOW() stands for in this statement's values. */
  readonly now = new Date();
  constructor(
    readonly text: string,
    readonly backslashEscapes: boolean,
  ) {}

  skipSpace(): void {
    const { text } = this;
    for (;;) {
      while (this.at < text.length && /\s/.test(text[this.at]!)) this.at++;
      if (text.startsWith('--', this.at) || (text[this.at] === '#' && this.backslashEscapes)) {
        const end = text.indexOf('\n', this.at);
        this.at = end < 0 ? text.length : end + 1;
      } else if (text.startsWith('/*', this.at)) {
        const end = text.indexOf('*/', this.at + 2);
        this.at = end < 0 ? text.length : end + 2;
      } else return;
    }
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.at] ?? '';
  }

  expect(char: string): void {
    if (this.peek() !== char) throw new SqlValueError(`expected "${char}" at character ${this.at + 1}`);
    this.at++;
  }

  word(): string {
    this.skipSpace();
    const match = /^[A-Za-z_][\w$]*/.exec(this.text.slice(this.at, this.at + 64));
    if (!match) return '';
    this.at += match[0].length;
    return match[0];
  }

  identifier(): string {
    this.skipSpace();
    const rest = this.text.slice(this.at);
    const match = /^(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[\w$]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[\w$]+))*/.exec(rest);
    if (!match) throw new SqlValueError(`expected a name at character ${this.at + 1}`);
    this.at += match[0].length;
    return lastIdentifier(match[0]);
  }

  /** A quoted string starting at the cursor (its opening quote `quote`). */
  quoted(quote: string, escapes: boolean): string {
    const { text } = this;
    let out = '';
    let i = this.at + 1;
    for (;;) {
      const next = text.indexOf(quote, i);
      const slash = escapes ? text.indexOf('\\', i) : -1;
      if (next < 0) throw new SqlValueError('a string is not closed');
      if (slash >= 0 && slash < next) {
        out += text.slice(i, slash);
        const char = text[slash + 1] ?? '';
        out += { n: '\n', r: '\r', t: '\t', b: '\b', '0': '\0', Z: '\x1a' }[char] ?? char;
        i = slash + 2;
        continue;
      }
      out += text.slice(i, next);
      if (text[next + 1] === quote) {
        out += quote;
        i = next + 2;
        continue;
      }
      this.at = next + 1;
      return out;
    }
  }

  /** Skips `::type` casts (`'2022-01-01'::date`, `::timestamp without time zone`). */
  skipCasts(): void {
    for (;;) {
      this.skipSpace();
      if (!this.text.startsWith('::', this.at)) return;
      this.at += 2;
      const match = /^\s*(?:"[^"]+"|[\w.]+)(?:\s*\([^)]*\))?(?:\s+(?:without|with)\s+time\s+zone|\s+varying|\s+precision)?(?:\s*\[\])*/i.exec(this.text.slice(this.at));
      if (match) this.at += match[0].length;
    }
  }

  value(): SourceValue | undefined {
    const char = this.peek();
    const { text } = this;
    let value: SourceValue | undefined;
    if (char === "'") value = this.quoted("'", this.backslashEscapes);
    else if (char === '"' && this.backslashEscapes) value = this.quoted('"', true);
    else if (char === '0' && /^0x[0-9a-f]+/i.test(text.slice(this.at, this.at + 3))) {
      // MySQL's hexadecimal literal (0x89504E47…, a BLOB in a dump): kept as X'…' is
      const match = /^0x([0-9a-f]+)/i.exec(text.slice(this.at))!;
      this.at += match[0].length;
      value = `\\x${match[1]}`;
    } else if (/[-+.\d]/.test(char)) {
      const match = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(text.slice(this.at, this.at + 400));
      if (!match) throw new SqlValueError(`unreadable number at character ${this.at + 1}`);
      this.at += match[0].length;
      value = match[0];
    } else {
      const start = this.at;
      const word = this.word();
      const upper = word.toUpperCase();
      if ((upper === 'E' || upper === 'N' || upper === 'X' || upper === 'B' || /^_\w+$/.test(word)) && text[this.at] === "'") {
        value = this.quoted("'", upper === 'E' || this.backslashEscapes);
        if (upper === 'X') value = `\\x${value}`;
      } else if (upper === 'NULL') value = null;
      else if (upper === 'TRUE') value = true;
      else if (upper === 'FALSE') value = false;
      else if (upper === 'DEFAULT') value = undefined;
      else {
        // a computed value (NOW(), RAND(), CAST(…)): evaluated as the database loading the dump would
        try {
          const evaluated = evaluateExpression(text, start, this.now);
          this.at = evaluated.end;
          value = typeof evaluated.value === 'number' ? String(evaluated.value) : evaluated.value;
        } catch (error) {
          if (!(error instanceof UnsupportedExpression)) throw error;
          throw new SqlValueError(`${word || text.slice(start, start + 20)} is not a literal value (only literals and simple NOW()/RAND()/INTERVAL expressions are read)`);
        }
      }
    }
    this.skipCasts();
    return value;
  }
}

/**
 * The rows of one `INSERT` statement, or undefined when the statement is no INSERT. A value that
 * is not a literal (a function call) fails the statement with a SqlValueError.
 */
export function insertRows(statement: string, backslashEscapes: boolean): InsertRows | undefined {
  const scanner = new Scanner(statement, backslashEscapes);
  if (scanner.word().toUpperCase() !== 'INSERT') return undefined;
  let word = scanner.word().toUpperCase();
  while (word === 'IGNORE' || word === 'LOW_PRIORITY' || word === 'DELAYED' || word === 'HIGH_PRIORITY') word = scanner.word().toUpperCase();
  if (word !== 'INTO') return undefined;
  const table = scanner.identifier();
  let columns: string[] | null = null;
  if (scanner.peek() === '(') {
    scanner.expect('(');
    columns = [];
    for (;;) {
      columns.push(scanner.identifier());
      if (scanner.peek() === ',') scanner.expect(',');
      else break;
    }
    scanner.expect(')');
  }
  const keyword = scanner.word().toUpperCase();
  if (keyword !== 'VALUES' && keyword !== 'VALUE') throw new SqlValueError(`only INSERT … VALUES is read (found ${keyword || 'nothing'} after the table)`);
  const rows: SourceValue[][] = [];
  for (;;) {
    scanner.expect('(');
    const row: SourceValue[] = [];
    for (;;) {
      const value = scanner.value();
      // DEFAULT: the column's default, as if the column were not named (kept as null here)
      row.push(value === undefined ? null : value);
      if (scanner.peek() === ',') scanner.expect(',');
      else break;
    }
    scanner.expect(')');
    rows.push(row);
    if (scanner.peek() === ',') scanner.expect(',');
    else break;
  }
  return { table, columns, rows };
}
