// The JSON Schema of a computed field's value, from the type the CEL checker inferred for its
// expression (compile() gives it as the checker's label: `string`, `list<dyn<string>>`,
// `map<string, int>`, `google.protobuf.Timestamp`…). Values are as read answers them
// (expressions/serialize.ts: timestamps as ISO text, durations as "1.5s", bytes as base64), and
// always nullable: a null operand or an evaluation error gives null.
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { compiledComputed } from '../data/expressions.ts';

type JsonSchema = Record<string, unknown>;

const SCALARS: Readonly<Record<string, JsonSchema>> = {
  bool: { type: 'boolean' },
  int: { type: 'integer' },
  uint: { type: 'integer', minimum: 0 },
  double: { type: 'number' },
  string: { type: 'string' },
  bytes: { type: 'string', contentEncoding: 'base64' },
  null: { type: 'null' },
  null_type: { type: 'null' },
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  'google.protobuf.Duration': { type: 'string', description: 'A duration in seconds, e.g. `1.5s`.' },
};

/** `a<b, c<d>>` → `['a', ['b', 'c<d>']]`: the label's name and its top-level type arguments. */
function split(label: string): [string, string[]] {
  const open = label.indexOf('<');
  if (open < 0 || !label.endsWith('>')) return [label.trim(), []];
  const inner = label.slice(open + 1, -1);
  const args: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '<') depth++;
    else if (inner[i] === '>') depth--;
    else if (inner[i] === ',' && depth === 0) {
      args.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  args.push(inner.slice(start).trim());
  return [label.slice(0, open).trim(), args];
}

/** The schema of a value of the CEL type `label`; `{}` (any JSON) for `dyn` and what has no JSON form of its own. */
export function schemaOfCelType(label: string, depth = 0): JsonSchema {
  if (depth > 16) return {};
  const [name, args] = split(label);
  if (name === 'dyn' || name === 'optional') return args.length === 1 ? schemaOfCelType(args[0], depth + 1) : {};
  if (name === 'list') return { type: 'array', items: args.length === 1 ? schemaOfCelType(args[0], depth + 1) : {} };
  if (name === 'map') return { type: 'object', additionalProperties: args.length === 2 ? schemaOfCelType(args[1], depth + 1) : {} };
  return { ...(SCALARS[name] ?? {}) };
}

/** A computed field's read schema: its expression's type or null, read-only. */
export function computedSchema(app: CompiledApp, model: CompiledModel, field: CompiledField): JsonSchema {
  const compiled = compiledComputed(app, model, field);
  const type = compiled ? schemaOfCelType(compiled.type) : {};
  const typed = Object.keys(type).length === 0 || type.type === 'null' ? type : { anyOf: [type, { type: 'null' }] };
  return { ...typed, readOnly: true };
}
