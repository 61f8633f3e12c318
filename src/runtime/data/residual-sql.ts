// Residual trees (what partial evaluation leaves of a rule or filter) to SQL conditions.
//
// Three-valued logic: a CEL evaluation error on a row (e.g. `record.deadline < now` with no
// deadline) behaves like SQL NULL under &&, || and !, so each atom is written for the truth value
// it must have: `truth(r, true)` is TRUE exactly when r is true, `truth(r, false)` exactly when r
// is false (NULL or FALSE otherwise). Negation swaps them instead of wrapping `not (...)`, which
// keeps the common case a plain, indexable `"t"."f_user" = cast($1 as uuid)`.
import { sql, type RawBuilder } from 'kysely';
import type { CompareOp, Residual, ResidualOperand, ResidualValue } from '../../expressions/index.ts';
import { isUuid } from '../../tools/ids.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { fieldSql, param, type FieldSql, type SqlType, type Within } from './columns.ts';
import { computedSql } from './computed-sql.ts';

/** A boolean condition with constants folded; `sql` is an atom or a combination. */
export type Cond = { kind: 'const'; value: boolean } | { kind: 'and' | 'or'; items: Cond[] } | { kind: 'sql'; sql: RawBuilder<unknown> };

export const TRUE: Cond = { kind: 'const', value: true };
export const FALSE: Cond = { kind: 'const', value: false };

export class UntranslatableError extends Error {
  override name = 'UntranslatableError';
}

/** Which related records of `target` a condition may see: every one, none, or those where a condition holds. */
export type RelatedScope = 'all' | 'none' | Within;

/** The row a condition is about. `known` feeds computed fields referenced by a condition. */
export interface RowScope {
  app: CompiledApp;
  model: CompiledModel;
  alias: string;
  known: { now: Date; env: Record<string, string> };
  /**
   * List filters: the related records the caller may read, so that `size(record.rel)` and
   * `x in record.rel` count and test only those. Absent for access rules, which see every record.
   */
  related?: (target: CompiledModel) => RelatedScope;
}

export function junction(kind: 'and' | 'or', items: Cond[]): Cond {
  const absorbing = kind === 'or';
  const out: Cond[] = [];
  for (const item of items) {
    if (item.kind === 'const') {
      if (item.value === absorbing) return item;
      continue;
    }
    if (item.kind === kind) out.push(...item.items);
    else out.push(item);
  }
  if (out.length === 0) return absorbing ? FALSE : TRUE;
  return out.length === 1 ? out[0] : { kind, items: out };
}

export function condSql(cond: Cond): RawBuilder<unknown> {
  switch (cond.kind) {
    case 'const':
      return cond.value ? sql`true` : sql`false`;
    case 'sql':
      return cond.sql;
    case 'and':
    case 'or': {
      const parts = cond.items.map((item) => (item.kind === 'sql' ? item.sql : sql`(${condSql(item)})`));
      return sql.join(parts, sql.raw(cond.kind === 'and' ? ' and ' : ' or '));
    }
  }
}

/** SQL that is TRUE exactly when the residual evaluates to `want` on the row. */
export function truth(r: Residual, want: boolean, scope: RowScope): Cond {
  switch (r.kind) {
    case 'const':
      return r.value === want ? TRUE : FALSE;
    case 'and':
    case 'or': {
      // a && b is true when both are true, false when either is false (and dually for ||).
      const conjunctive = (r.kind === 'and') === want;
      return junction(conjunctive ? 'and' : 'or', r.items.map((item) => truth(item, want, scope)));
    }
    case 'not':
      return truth(r.item, !want, scope);
    case 'compare':
      return compare(r.op, r.left, r.right, want, scope);
    case 'in':
      return membership(r.item, r.list, want, scope);
    case 'call':
      return stringTest(r.name, r.target, r.args[0], want, scope);
  }
}

type Operand = { kind: 'value'; value: ResidualValue } | { kind: 'sql'; field: FieldSql & { kind: 'scalar' | 'array' | 'relation' } } | { kind: 'size'; sql: RawBuilder<unknown> };

function operand(o: ResidualOperand, scope: RowScope): Operand {
  if (o.kind === 'value') return o;
  if (o.kind === 'call') {
    const target = operand(o.target, scope);
    if (target.kind !== 'sql') throw new UntranslatableError('size() applies to a field');
    const f = target.field;
    if (f.kind === 'relation') {
      const related = scope.related?.(f.target) ?? 'all';
      if (related === 'none') return { kind: 'value', value: 0 }; // none the caller may read
      return { kind: 'size', sql: related === 'all' ? f.count() : f.count(related) };
    }
    if (f.kind === 'array') return { kind: 'size', sql: sql`coalesce(cardinality(${f.sql}), 0)` };
    if (f.type === 'text') return { kind: 'size', sql: sql`char_length(${f.sql})` };
    throw new UntranslatableError('size() applies to text and list fields');
  }
  const f = fieldSql(scope.app, scope.model, o.name, scope.alias);
  if (f.kind === 'unknown') throw new UntranslatableError(`Unknown field '${o.name}'`);
  if (f.kind === 'computed') {
    const translated = computedSql(scope.app, scope.model, f.field, scope.alias, scope.known);
    if (!translated) throw new UntranslatableError(`The computed field '${o.name}' cannot be used in a condition`);
    return { kind: 'sql', field: { kind: 'scalar', sql: translated.sql, type: translated.type, notNull: false, sortable: false } };
  }
  if (f.kind === 'scalar' && f.type === 'jsonb') throw new UntranslatableError(`The field '${o.name}' holds an object and cannot be compared`);
  return { kind: 'sql', field: f };
}

const FLIP: Readonly<Record<CompareOp, CompareOp>> = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const NEGATE: Readonly<Record<CompareOp, CompareOp>> = { '==': '!=', '!=': '==', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };

/** Whether a JS value fits a column of `type` (else CEL compares unequal / errors). */
function fits(value: ResidualValue, type: SqlType): boolean {
  switch (type) {
    case 'float8':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'timestamptz':
      return value instanceof Date || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
    case 'uuid':
      return typeof value === 'string' && isUuid(value);
    case 'jsonb':
      return false;
    default:
      return typeof value === 'string';
  }
}

function jsCompare(op: CompareOp, a: ResidualValue, b: ResidualValue): boolean | null {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (op === '==' || op === '!=') return (JSON.stringify(x) === JSON.stringify(y)) === (op === '==');
  if (x === null || y === null || typeof x !== typeof y || typeof x === 'object') return null;
  const lt = (x as number | string) < (y as number | string);
  const gt = (x as number | string) > (y as number | string);
  return { '<': lt, '<=': !gt, '>': gt, '>=': !lt }[op];
}

function compare(op0: CompareOp, l: ResidualOperand, r: ResidualOperand, want: boolean, scope: RowScope): Cond {
  let left = operand(l, scope);
  let right = operand(r, scope);
  let op = op0;
  if (left.kind === 'value' && right.kind === 'value') {
    const result = jsCompare(op, left.value, right.value);
    return result === want ? TRUE : FALSE;
  }
  if (left.kind === 'value') {
    [left, right] = [right, left];
    op = FLIP[op];
  }
  if (!want) op = NEGATE[op];
  // Now: `left op right` must be TRUE; `left` is a field or size().
  if (left.kind === 'size') {
    if (right.kind === 'value') {
      if (typeof right.value !== 'number') return (op === '!=') === want ? TRUE : FALSE;
      return { kind: 'sql', sql: sql`${left.sql} ${sql.raw(sqlOp(op))} ${param(right.value, 'float8')}` };
    }
    throw new UntranslatableError('size() is compared with a number');
  }
  if (left.kind !== 'sql' || left.field.kind !== 'scalar') throw new UntranslatableError('Only single-valued fields are compared');
  const f = left.field;
  if (right.kind === 'sql' || right.kind === 'size') {
    const other = right.kind === 'size' ? right.sql : right.field.kind === 'scalar' ? right.field.sql : null;
    if (!other) throw new UntranslatableError('Only single-valued fields are compared');
    if (op === '==') return { kind: 'sql', sql: sql`${f.sql} is not distinct from ${other}` };
    if (op === '!=') return { kind: 'sql', sql: sql`${f.sql} is distinct from ${other}` };
    return { kind: 'sql', sql: sql`${f.sql} ${sql.raw(sqlOp(op))} ${other}` };
  }
  const value = right.value;
  if (value === null) {
    if (op === '==') return { kind: 'sql', sql: sql`${f.sql} is null` };
    if (op === '!=') return { kind: 'sql', sql: sql`${f.sql} is not null` };
    return FALSE; // ordering against null is an error: neither true nor false
  }
  if (!fits(value, f.type)) {
    if (f.type === 'uuid' && typeof value === 'string' && op !== '==' && op !== '!=') {
      return { kind: 'sql', sql: sql`${f.sql}::text ${sql.raw(sqlOp(op))} ${param(value, 'text')}` };
    }
    // A value of another type (or an impossible id) never equals the field (nor does null).
    return op === '!=' ? TRUE : FALSE;
  }
  const bound = param(value, f.type);
  if (op === '!=' && !f.notNull) return { kind: 'sql', sql: sql`${f.sql} is distinct from ${bound}` };
  return { kind: 'sql', sql: sql`${f.sql} ${sql.raw(sqlOp(op))} ${bound}` };
}

function sqlOp(op: CompareOp): string {
  return op === '==' ? '=' : op === '!=' ? '<>' : op;
}

function membership(i: ResidualOperand, l: ResidualOperand, want: boolean, scope: RowScope): Cond {
  const item = operand(i, scope);
  const list = operand(l, scope);
  if (list.kind === 'value') {
    const values = Array.isArray(list.value) ? list.value : [];
    if (item.kind === 'value') {
      const found = values.some((v) => jsCompare('==', v, item.value) === true);
      return found === want ? TRUE : FALSE;
    }
    if (item.kind !== 'sql' || item.field.kind !== 'scalar') throw new UntranslatableError('Only single-valued fields are tested with in');
    const f = item.field;
    const matching = values.filter((v) => v !== null && fits(v, f.type));
    const hasNull = values.includes(null);
    const listParam = param(matching.map((v) => (v instanceof Date ? v.toISOString() : v)), `${f.type}[]`);
    if (want) {
      const parts: Cond[] = matching.length > 0 ? [{ kind: 'sql', sql: sql`${f.sql} = any(${listParam})` }] : [];
      if (hasNull) parts.push({ kind: 'sql', sql: sql`${f.sql} is null` });
      return junction('or', parts);
    }
    const parts: Cond[] = [];
    if (matching.length > 0) parts.push({ kind: 'sql', sql: sql`${f.sql} <> all(${listParam})` });
    if (hasNull || f.notNull) return junction('and', [...parts, ...(hasNull ? [{ kind: 'sql', sql: sql`${f.sql} is not null` } as Cond] : [])]);
    return junction('or', [{ kind: 'sql', sql: sql`${f.sql} is null` }, junction('and', parts)]);
  }
  if (list.kind !== 'sql' || item.kind !== 'value') throw new UntranslatableError('in tests a field against values, or a value against a list field');
  const f = list.field;
  if (f.kind === 'relation') {
    const related = scope.related?.(f.target) ?? 'all';
    if (typeof item.value !== 'string' || !isUuid(item.value) || related === 'none') return want ? FALSE : TRUE;
    const exists = related === 'all' ? f.exists(param(item.value, 'uuid')) : f.exists(param(item.value, 'uuid'), related);
    return { kind: 'sql', sql: want ? exists : sql`not ${exists}` };
  }
  if (f.kind === 'array') {
    if (item.value === null || !fits(item.value, f.type)) return want ? FALSE : TRUE;
    const test = sql`${param(item.value, f.type)} = any(${f.sql})`;
    return { kind: 'sql', sql: want ? test : sql`not coalesce(${test}, false)` };
  }
  throw new UntranslatableError('in needs a list field');
}

/** `like` pattern matching `text` literally. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function stringTest(name: 'contains' | 'startsWith' | 'endsWith', t: ResidualOperand, a: ResidualOperand, want: boolean, scope: RowScope): Cond {
  const target = operand(t, scope);
  const arg = operand(a, scope);
  const text = (o: Operand): RawBuilder<unknown> | null => {
    if (o.kind === 'value') return typeof o.value === 'string' ? param(o.value, 'text') : null;
    return o.kind === 'sql' && o.field.kind === 'scalar' && o.field.type === 'text' ? o.field.sql : null;
  };
  if (target.kind === 'value' && arg.kind === 'value') {
    const [s, x] = [target.value, arg.value];
    if (typeof s !== 'string' || typeof x !== 'string') return FALSE;
    const result = name === 'contains' ? s.includes(x) : name === 'startsWith' ? s.startsWith(x) : s.endsWith(x);
    return result === want ? TRUE : FALSE;
  }
  const s = text(target);
  const x = text(arg);
  if (!s || !x) throw new UntranslatableError(`${name}() applies to text`);
  let test: RawBuilder<unknown>;
  if (target.kind === 'sql' && arg.kind === 'value') {
    // A literal argument: a `like` pattern (a prefix can use a text_pattern_ops index).
    const literal = likeLiteral(arg.value as string);
    const pattern = name === 'contains' ? `%${literal}%` : name === 'startsWith' ? `${literal}%` : `%${literal}`;
    return { kind: 'sql', sql: sql`${s} ${sql.raw(want ? 'like' : 'not like')} ${param(pattern, 'text')}` };
  }
  if (name === 'contains') test = sql`strpos(${s}, ${x}) > 0`;
  else if (name === 'startsWith') test = sql`starts_with(${s}, ${x})`;
  else test = sql`right(${s}, char_length(${x})) = ${x}`;
  return { kind: 'sql', sql: want ? test : sql`not (${test})` };
}
