/**
 * The few computed values sample dumps write in place of literals, evaluated as the database
 * loading the dump would: `NOW()`/`CURRENT_TIMESTAMP`/`CURDATE()` (the moment of the import),
 * `RAND()`, `FLOOR`/`CEIL`/`ROUND`, arithmetic, `± INTERVAL n DAY|HOUR|…` and
 * `CAST(… AS DATE|DATETIME|…)` — e.g. Sakila's `CAST(NOW() - INTERVAL FLOOR(6935 + (Rand() * 19345)) DAY as DATE)`,
 * a random date of birth per customer. Anything else is not read (the caller reports it).
 */
export class UnsupportedExpression extends Error {
  override name = 'UnsupportedExpression';
}

type Value = number | Date | string;

const UNIT_MS: Record<string, number> = { SECOND: 1000, MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000, WEEK: 604_800_000 };

class Parser {
  at = 0;
  constructor(
    readonly text: string,
    readonly now: Date,
  ) {}

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at++;
  }

  private peek(): string {
    this.space();
    return this.text[this.at] ?? '';
  }

  private take(char: string): void {
    if (this.peek() !== char) throw new UnsupportedExpression(`expected "${char}"`);
    this.at++;
  }

  private word(): string {
    this.space();
    const match = /^[A-Za-z_]\w*/.exec(this.text.slice(this.at, this.at + 64));
    if (!match) throw new UnsupportedExpression('expected a name');
    this.at += match[0].length;
    return match[0].toUpperCase();
  }

  /** Sum: terms joined by + and -, where a term may be `INTERVAL n UNIT` on a date. */
  sum(): Value {
    let left = this.product();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') return left;
      this.at++;
      const save = this.at;
      if (this.peekWord() === 'INTERVAL') {
        this.word();
        const amount = toNumber(this.product());
        const unit = this.word();
        left = shift(left, op === '+' ? amount : -amount, unit);
        continue;
      }
      this.at = save;
      const right = toNumber(this.product());
      left = op === '+' ? toNumber(left) + right : toNumber(left) - right;
    }
  }

  private peekWord(): string {
    this.space();
    return /^[A-Za-z_]\w*/.exec(this.text.slice(this.at, this.at + 64))?.[0].toUpperCase() ?? '';
  }

  private product(): Value {
    let left = this.atom();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/') return left;
      this.at++;
      const right = toNumber(this.atom());
      left = op === '*' ? toNumber(left) * right : toNumber(left) / right;
    }
  }

  private atom(): Value {
    const char = this.peek();
    if (char === '(') {
      this.at++;
      const value = this.sum();
      this.take(')');
      return value;
    }
    if (char === '-') {
      this.at++;
      return -toNumber(this.atom());
    }
    const number = /^\d+(?:\.\d+)?/.exec(this.text.slice(this.at, this.at + 64));
    if (number) {
      this.at += number[0].length;
      return Number(number[0]);
    }
    if (char === "'") {
      const end = this.text.indexOf("'", this.at + 1);
      if (end < 0) throw new UnsupportedExpression('a string is not closed');
      const text = this.text.slice(this.at + 1, end);
      this.at = end + 1;
      return text;
    }
    const name = this.word();
    if (name === 'CURRENT_TIMESTAMP' || name === 'CURRENT_DATE' || name === 'LOCALTIMESTAMP') return this.optionalCall(() => new Date(this.now));
    if (this.peek() !== '(') throw new UnsupportedExpression(`${name} is not a value`);
    this.at++;
    if (name === 'CAST') {
      const value = this.sum();
      if (this.word() !== 'AS') throw new UnsupportedExpression('expected AS');
      const type = this.word();
      while (this.peek() !== ')' && this.at < this.text.length) this.at++;
      this.take(')');
      return type === 'DATE' ? isoDate(toDate(value)) : type === 'DATETIME' || type === 'TIMESTAMP' ? toDate(value) : value;
    }
    const args: Value[] = [];
    if (this.peek() !== ')') {
      for (;;) {
        args.push(this.sum());
        if (this.peek() !== ',') break;
        this.at++;
      }
    }
    this.take(')');
    switch (name) {
      case 'NOW':
      case 'SYSDATE':
      case 'CURRENT_TIMESTAMP':
      case 'LOCALTIMESTAMP':
        return new Date(this.now);
      case 'CURDATE':
        return isoDate(this.now);
      case 'RAND':
      case 'RANDOM':
        return Math.random();
      case 'FLOOR':
        return Math.floor(toNumber(args[0]));
      case 'CEIL':
      case 'CEILING':
        return Math.ceil(toNumber(args[0]));
      case 'ROUND':
        return Math.round(toNumber(args[0]));
      default:
        throw new UnsupportedExpression(`${name}() is not evaluated`);
    }
  }

  private optionalCall(value: () => Value): Value {
    if (this.peek() === '(') {
      this.at++;
      this.take(')');
    }
    return value();
  }
}

function toNumber(value: Value | undefined): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  throw new UnsupportedExpression('expected a number');
}

function toDate(value: Value): Date {
  if (value instanceof Date) return value;
  const date = new Date(typeof value === 'string' ? value : NaN);
  if (Number.isNaN(date.getTime())) throw new UnsupportedExpression('expected a date');
  return date;
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function shift(value: Value, amount: number, unit: string): Date {
  const date = new Date(toDate(value));
  if (unit === 'MONTH' || unit === 'YEAR') date.setUTCMonth(date.getUTCMonth() + Math.trunc(amount) * (unit === 'YEAR' ? 12 : 1));
  else if (UNIT_MS[unit] !== undefined) date.setTime(date.getTime() + amount * UNIT_MS[unit]);
  else throw new UnsupportedExpression(`INTERVAL … ${unit} is not evaluated`);
  return date;
}

/**
 * Evaluates the expression at `text[start]`, ending before a `,` or `)` at its own level. Answers
 * the value (a date/time as ISO text) and where it ended; throws UnsupportedExpression otherwise.
 */
export function evaluateExpression(text: string, start: number, now: Date): { value: string | number; end: number } {
  const parser = new Parser(text, now);
  parser.at = start;
  const value = parser.sum();
  return { value: value instanceof Date ? value.toISOString() : value, end: parser.at };
}
