// Turns plain JS inputs into the values the typed environment expects: records and `auth` become
// model instances with every declared field present (null when missing), ISO date-time strings
// of timestamp fields become Dates, expanded relationships become ids, BigInts become numbers.
import { isNullValue, ModelValue, nullInstance, type FieldInfo, type ModelInfo } from './model-types.ts';
import type { ScopeEnvironment } from './environment.ts';

const nullInstances = new WeakMap<ModelInfo, ModelValue>();
/** `auth` and `request` converted once per object: a run evaluates many expressions over the same ones, never changing them. */
const converted = new WeakMap<ModelInfo, WeakMap<object, ModelValue>>();

/** The variables of the scope, converted; missing ones get neutral defaults. */
export function prepareVariables(se: ScopeEnvironment, vars: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(se.spec.variables)) {
    const value = vars[name];
    switch (kind) {
      case 'record':
        out[name] = toModelValue(se.model as ModelInfo, value);
        break;
      case 'auth':
        out[name] = isNullValue(value) ? nullOf(se.types.auth) : convertOnce(se.types.auth, value);
        break;
      case 'request':
        out[name] = convertOnce(se.types.request, value ?? {});
        break;
      case 'string':
        out[name] = typeof value === 'string' ? value : '';
        break;
      case 'timestamp':
        out[name] = toDate(value) ?? new Date();
        break;
      case 'env':
      case 'secrets':
        out[name] = value !== null && typeof value === 'object' ? value : {};
        break;
      case 'dyn':
        // The library treats `undefined` as "unknown variable"; a missing dyn variable is null.
        out[name] = value === undefined ? null : value;
        break;
    }
  }
  return out;
}

function nullOf(info: ModelInfo): ModelValue {
  let value = nullInstances.get(info);
  if (!value) {
    value = nullInstance(info);
    nullInstances.set(info, value);
  }
  return value;
}

function convertOnce(info: ModelInfo, value: unknown): ModelValue {
  if (value === null || typeof value !== 'object') return toModelValue(info, value);
  let byValue = converted.get(info);
  if (!byValue) converted.set(info, (byValue = new WeakMap()));
  let model = byValue.get(value);
  if (!model) byValue.set(value, (model = toModelValue(info, value)));
  return model;
}

export function toModelValue(info: ModelInfo, value: unknown): ModelValue {
  if (value instanceof info.ctor) return value;
  const source = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const out = new info.ctor();
  for (const field of info.fields.values()) out[field.name] = convertField(field, source[field.name]);
  return out;
}

function convertField(field: FieldInfo, raw: unknown): unknown {
  if (field.list) {
    if (!Array.isArray(raw)) return [];
    return raw.map((item) => convertScalar(field, item));
  }
  return convertScalar(field, raw);
}

function convertScalar(field: FieldInfo, raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  switch (field.kind) {
    case 'timestamp':
      return toDate(raw) ?? raw;
    case 'number':
      return typeof raw === 'bigint' ? Number(raw) : raw;
    case 'id':
      // An expanded relationship ({id, ...}) is read as its id, like in the stored row.
      if (typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string') return (raw as { id: string }).id;
      return raw;
    case 'map':
      return raw;
    default:
      return raw;
  }
}

/** A Date from a Date or an ISO-8601 string; null when neither. */
export function toDate(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  return null;
}
