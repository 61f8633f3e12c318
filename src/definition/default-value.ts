/**
 * A field's `defaultValue` (DESIGN §4): a literal, except an object `{"expression": "<CEL>"}`,
 * evaluated when a record is created with `auth` and `now` bound. A literal that must be such an
 * object is written `{"literal": …}`. Every reader of `defaultValue` goes through here.
 */

export type FieldDefault =
  | { kind: 'literal'; value: unknown }
  /** `source` is not checked here: a non-string is a consistency error at save. */
  | { kind: 'expression'; source: unknown };

function soleMember(value: unknown, name: string): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === name;
}

/** The default a field declares, or undefined when it declares none. */
export function fieldDefault(defaultValue: unknown): FieldDefault | undefined {
  if (defaultValue === undefined) return undefined;
  if (soleMember(defaultValue, 'expression')) return { kind: 'expression', source: (defaultValue as { expression: unknown }).expression };
  if (soleMember(defaultValue, 'literal')) return { kind: 'literal', value: (defaultValue as { literal: unknown }).literal };
  return { kind: 'literal', value: defaultValue };
}

/** The literal default value (unwrapped from `{"literal": …}`), or undefined for none or an expression. */
export function literalDefault(defaultValue: unknown): unknown {
  const declared = fieldDefault(defaultValue);
  return declared?.kind === 'literal' ? declared.value : undefined;
}

/** The CEL source of an expression default, or undefined. */
export function defaultExpression(defaultValue: unknown): string | undefined {
  const declared = fieldDefault(defaultValue);
  return declared?.kind === 'expression' && typeof declared.source === 'string' ? declared.source : undefined;
}

/** How the API documentation describes an expression default: `auth.id` is "the caller". */
export function describeDefaultExpression(source: string): string {
  return source.replace(/\s+/g, '') === 'auth.id' ? 'defaults to the caller (auth.id)' : `defaults to ${source}`;
}
