// How models become CEL types: one registered message type per model, whose fields are typed
// from the field's `to` and `max`. Values are instances of a class per model so the library can
// tell the types apart at run time (it looks types up by constructor).

export type ValueKind = 'string' | 'number' | 'bool' | 'timestamp' | 'map' | 'id';

export interface FieldInfo {
  name: string;
  /** The CEL type string registered for the field. */
  celType: string;
  kind: ValueKind;
  list: boolean;
}

export interface ModelInfo {
  id: string;
  name: string;
  /** Registered CEL type name, e.g. `app.ToDo`. */
  typeName: string;
  fields: ReadonlyMap<string, FieldInfo>;
  ctor: new () => ModelValue;
}

/** Base class of every model value handed to CEL; own enumerable properties are the fields. */
export class ModelValue {
  [field: string]: unknown;
}

/** Values standing for `null` where the library needs a typed value (a null `auth`). */
const nullValues = new WeakSet<object>();

export function isNullValue(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'object' && nullValues.has(value));
}

/** The typed stand-in for a missing value of a model type (`auth` for an anonymous caller). */
export function nullInstance(info: ModelInfo): ModelValue {
  const value = new info.ctor();
  nullValues.add(value);
  return value;
}

const PRIMITIVE_KINDS: Readonly<Record<string, ValueKind>> = {
  p_TEXT: 'string',
  p_LINK: 'string',
  p_IMAGE: 'string',
  p_VIDEO: 'string',
  p_FILE: 'string',
  p_PHONE_NUMBER: 'string',
  p_TIME: 'string',
  p_DATE: 'string',
  p_NUMBER: 'number',
  // Star ratings are JS numbers like every other number; as doubles `record.rating >= 3` checks
  // through the built-in double/int comparisons.
  p_STAR_RATING: 'number',
  p_BOOLEAN: 'bool',
  p_DATE_TIME: 'timestamp',
  p_ADDRESS: 'map',
  p_CURRENCY_AMOUNT: 'map',
};

const CEL_OF_KIND: Readonly<Record<ValueKind, string>> = {
  string: 'string',
  id: 'string',
  number: 'double',
  bool: 'bool',
  timestamp: 'google.protobuf.Timestamp',
  map: 'dyn',
};

export function fieldInfo(field: { name: string; to: string; max: number | null }, modelIds: ReadonlySet<string>): FieldInfo {
  const relation = modelIds.has(field.to);
  const kind: ValueKind = relation ? 'id' : (PRIMITIVE_KINDS[field.to] ?? 'map');
  const list = field.max === null || field.max > 1;
  const base = CEL_OF_KIND[kind];
  // Lists are never null (an empty relationship is []), so they keep their exact type: the
  // library loses the element type of `dyn<list<T>>` inside macros. Scalars may be null (an
  // optional field, a record being created), and `dyn<T>` keeps type checking while accepting null.
  let celType: string;
  if (list) celType = `list<${base}>`;
  else if (base === 'dyn') celType = 'dyn';
  else celType = `dyn<${base}>`;
  return { name: field.name, celType, kind, list };
}

/** Fields every stored record has, besides the model's own. */
export const SYSTEM_FIELDS: readonly FieldInfo[] = [
  { name: 'id', celType: 'dyn<string>', kind: 'id', list: false },
  { name: 'createdAt', celType: 'dyn<google.protobuf.Timestamp>', kind: 'timestamp', list: false },
  { name: 'updatedAt', celType: 'dyn<google.protobuf.Timestamp>', kind: 'timestamp', list: false },
];

/** Names that would reach object prototypes when used as property keys; never fields. */
const UNSAFE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** CEL type names must be identifiers (dots allowed); keep them readable in error messages. */
export function typeNameFor(name: string, taken: Set<string>): string {
  const clean = name.replace(/[^A-Za-z0-9_]/g, '_') || 'Model';
  let candidate = `app.${/^[0-9]/.test(clean) ? `M${clean}` : clean}`;
  for (let i = 2; taken.has(candidate); i++) candidate = `app.${clean}${i}`;
  taken.add(candidate);
  return candidate;
}

export function buildModelInfo(
  model: { id: string; name: string; fields: readonly { name: string; to: string; max: number | null }[] },
  modelIds: ReadonlySet<string>,
  taken: Set<string>,
): ModelInfo {
  const fields = new Map<string, FieldInfo>();
  for (const f of SYSTEM_FIELDS) fields.set(f.name, f);
  // A model field named like a system field is shadowed by it: `record.id` is always the row id.
  for (const f of model.fields) {
    if (!fields.has(f.name) && !UNSAFE_NAMES.has(f.name)) fields.set(f.name, fieldInfo(f, modelIds));
  }
  // One class per model: the library finds a value's CEL type through its constructor.
  const ctor = class extends ModelValue {};
  return { id: model.id, name: model.name, typeName: typeNameFor(model.name, taken), fields, ctor };
}

/** Field declarations in the shape `registerType` expects. */
export function celFields(info: ModelInfo): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, f] of info.fields) out[name] = f.celType;
  return out;
}
