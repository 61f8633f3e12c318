// Converts CEL results to JSON-safe values: BigInt → number, Timestamp (Date) → ISO string,
// Map → object, Set → array, model values → plain objects (a null stand-in → null),
// bytes → base64, durations → "1.5s", NaN/Infinity → null.
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Optional } from '@marcbachmann/cel-js';
import { isNullValue, ModelValue } from './model-types.ts';
import type { JsonValue } from './types.ts';

const MAX_DEPTH = 64;

export function toJson(value: unknown): JsonValue {
  return convert(value, 0, false) as JsonValue;
}

/** Like toJson but keeps Dates (for residual values that become SQL parameters). */
export function toPlain(value: unknown): unknown {
  return convert(value, 0, true);
}

function convert(value: unknown, depth: number, keepDates: boolean): unknown {
  if (depth > MAX_DEPTH) throw new RangeError('Result is nested too deeply');
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return Number(value);
    case 'undefined':
      return null;
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null) return null;
  if (value instanceof Date) return keepDates ? value : value.toISOString();
  if (value instanceof UnsignedInt) return Number(value.valueOf());
  if (value instanceof Duration) return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Optional) return value.hasValue() ? convert(value.value(), depth + 1, keepDates) : null;
  if (Array.isArray(value) || value instanceof Set) return [...value].map((v) => convert(v, depth + 1, keepDates));
  if (value instanceof ModelValue && isNullValue(value)) return null;
  const out: Record<string, unknown> = {};
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  for (const [k, v] of entries) {
    if (v === undefined) continue;
    const key = String(k);
    const converted = convert(v, depth + 1, keepDates);
    // A `__proto__` key (JSON input may carry one) stays data: assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: converted, enumerable: true, writable: true, configurable: true });
    else out[key] = converted;
  }
  // CEL `type(x)` values are objects too; they print as their name.
  if (entries.length === 0 && typeof (value as { toString?: unknown }).toString === 'function' && value.constructor?.name === 'Type') {
    return String(value);
  }
  return out;
}
