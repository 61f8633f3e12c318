// Secret values never leave a run (docs/security.md): every string value of a run's data (its input,
// the steps' outputs, its result, answer and error message) has each secret value of its
// application replaced by `[redacted]`, wherever in the string it appears. Redaction works on
// values, never on serialised text nor on member names; the record's own members (ids, status,
// effect names, times) are not data and are left as they are. A secret reaches data only whole
// or concatenated into a string (expressions may not derive anything from it: placement.ts), so
// replacing it where it appears in a value is enough. Credential headers are already
// dropped or redacted by name (runtime/runs/stored-run.ts).
export const REDACTED = '[redacted]';

/** `text` with every occurrence of each value replaced; `values` longest first (a value may contain another). */
export function redactText(text: string, values: readonly string[]): string {
  let out = text;
  // Again while one is found: a replacement next to the rest of the text may spell a value anew
  // (a value inside the marker itself cannot be removed; none is ever that short in practice).
  for (let pass = 0; pass < 8 && values.some((value) => out.includes(value) && !REDACTED.includes(value)); pass++) {
    for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
  }
  return out;
}

/**
 * A copy of `value` (JSON-like) with each secret value replaced in every string it holds. Only
 * values are touched: member names are the shape of the value (a run's `steps`, a record's
 * field names), never data a secret could be in, and rewriting them would break the shape.
 */
export function redactValues<T>(value: T, values: readonly string[]): T {
  if (values.length === 0) return value;
  return walk(value, values) as T;
}

function walk(value: unknown, values: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, values);
  if (Array.isArray(value)) return value.map((item) => walk(item, values));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, walk(inner, values)]));
  }
  return value;
}
