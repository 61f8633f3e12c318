// The residual of partial evaluation (DESIGN §5): what is left of an access rule or list filter
// once everything the request knows (auth, operation, now, env) has been folded to values.
// Only this small, SQL-translatable subset can remain; a later compiler turns it into a
// parameterised WHERE clause (`field` → column, `value` → bound parameter).

/** A value folded from the request: JSON-like, plus Date for timestamps (bind as timestamptz). */
export type ResidualValue = null | boolean | number | string | Date | ResidualValue[] | { [key: string]: ResidualValue };

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** Something compared: `record.<name>`, a folded value, or `size(record.<name>)`. */
export type ResidualOperand =
  | { kind: 'field'; name: string }
  | { kind: 'value'; value: ResidualValue }
  | { kind: 'call'; name: 'size'; target: ResidualOperand; args: [] };

/** A boolean condition on the record. */
export type Residual =
  /** Decided without looking at the record: all rows (true) or none (false). */
  | { kind: 'const'; value: boolean }
  /** All items (and) / at least one item (or); always two or more items after simplification. */
  | { kind: 'and' | 'or'; items: Residual[] }
  | { kind: 'not'; item: Residual }
  /** `left op right`; a `value` of null means IS NULL / IS NOT NULL for == / !=. */
  | { kind: 'compare'; op: CompareOp; left: ResidualOperand; right: ResidualOperand }
  /** `item in list`: a field in a list of values, or a value in a list-valued (to-many) field. */
  | { kind: 'in'; item: ResidualOperand; list: ResidualOperand }
  /** String tests: `target.contains(args[0])` etc. */
  | { kind: 'call'; name: 'contains' | 'startsWith' | 'endsWith'; target: ResidualOperand; args: [ResidualOperand] };

/** Internal: a sub-expression whose evaluation failed (e.g. `auth.id` with auth null). */
export interface FoldError {
  kind: 'error';
  message: string;
}

export type Folded = Residual | FoldError;

export const TRUE: Residual = Object.freeze({ kind: 'const', value: true });
export const FALSE: Residual = Object.freeze({ kind: 'const', value: false });

/**
 * CEL's `&&`/`||` absorb errors when the other side decides (`false && error` is false). Where an
 * error reaches an `and`/`or` (or the top) it is replaced by `errorAs`: false for allow rules and
 * filters (an error means "does not match"), true for deny rules (an error means deny).
 */
export function settle(item: Folded, errorAs: boolean): Residual {
  return item.kind === 'error' ? (errorAs ? TRUE : FALSE) : item;
}

export function makeAnd(items: readonly Folded[], errorAs: boolean): Residual {
  return makeJunction('and', items, errorAs);
}

export function makeOr(items: readonly Folded[], errorAs: boolean): Residual {
  return makeJunction('or', items, errorAs);
}

function makeJunction(kind: 'and' | 'or', items: readonly Folded[], errorAs: boolean): Residual {
  const absorbing = kind === 'or'; // true absorbs `or`, false absorbs `and`
  const out: Residual[] = [];
  for (const raw of items) {
    const item = settle(raw, errorAs);
    if (item.kind === 'const') {
      if (item.value === absorbing) return item;
      continue; // the neutral constant
    }
    if (item.kind === kind) out.push(...item.items);
    else out.push(item);
  }
  if (out.length === 0) return absorbing ? FALSE : TRUE;
  if (out.length === 1) return out[0];
  return { kind, items: out };
}

export function makeNot(item: Folded): Folded {
  if (item.kind === 'error') return item;
  if (item.kind === 'const') return item.value ? FALSE : TRUE;
  if (item.kind === 'not') return item.item;
  return { kind: 'not', item };
}
