/**
 * Shape validation of a definition: a schema violation is a 400 listing every
 * error with the JSON pointer of the offending member.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';
import { Problem, type ProblemDetail } from '../errors.ts';
import { AppDefinitionSchema, type AppDefinition } from './schema.ts';
import { isSealed } from './versioning/sealed.ts';

const compiled = TypeCompiler.Compile(AppDefinitionSchema);

/** Returns the value typed as a definition, or throws `Problem(400)` listing every shape error. */
export function validateShape(value: unknown): AppDefinition {
  if (fitsQuickly(value) || compiled.Check(value)) return value as AppDefinition;
  throw new Problem(400, 'The definition is not well-formed.', shapeErrors(value));
}

/**
 * The definition's members checked one by one, each list element on its own (issue 28), with
 * what is known to fit: a sealed value (definition/versioning/sealed.ts, deeply frozen) that fitted
 * its member's schema once always does, so an edit that shares its unchanged models with the
 * previous definition checks only what it changed. The same answer as the whole check when it
 * says yes (a schema this cannot take apart is checked whole); a no is the whole check's to
 * explain.
 */
interface MemberCheck {
  key: string;
  required: boolean;
  check: (value: unknown) => boolean;
  /** A list whose elements are checked one by one. */
  list?: { maxItems: number; item: (value: unknown) => boolean };
  /** Sealed values (the member's, or its list's elements) known to fit. */
  fitting: WeakSet<object>;
}

const MEMBERS: MemberCheck[] | null = memberChecks(AppDefinitionSchema);

function memberChecks(schema: TSchema): MemberCheck[] | null {
  if (Object.keys(schema).some((k) => !['type', 'required', 'properties'].includes(k)) || schema.type !== 'object') return null;
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(schema.properties as Record<string, TSchema>).map(([key, member]) => {
    const simpleList = member.type === 'array' && Object.keys(member).every((k) => ['type', 'items', 'maxItems'].includes(k));
    const list = simpleList ? { maxItems: (member.maxItems as number | undefined) ?? Infinity, item: checker(member.items as TSchema) } : undefined;
    return { key, required: required.has(key), check: checker(member), list, fitting: new WeakSet<object>() };
  });
}

function checker(schema: TSchema): (value: unknown) => boolean {
  const compiledMember = TypeCompiler.Compile(schema);
  return (value) => compiledMember.Check(value);
}

function fitsQuickly(value: unknown): boolean {
  if (!MEMBERS || typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  for (const member of MEMBERS) {
    const v = record[member.key];
    if (v === undefined) {
      // Missing and optional fits; anything subtler is the whole check's.
      if (member.required || member.key in record) return false;
      continue;
    }
    if (!fitsMember(member, v)) return false;
  }
  return true;
}

function fitsMember(member: MemberCheck, value: unknown): boolean {
  // Only sealed values are ever added.
  const known = (v: unknown) => typeof v === 'object' && v !== null && member.fitting.has(v);
  const remember = (v: unknown) => {
    if (isSealed(v)) member.fitting.add(v as object);
  };
  if (known(value)) return true;
  if (member.list) {
    if (!Array.isArray(value) || value.length > member.list.maxItems) return false;
    for (const item of value) {
      if (known(item)) continue;
      if (!member.list.item(item)) return false;
      remember(item);
    }
    return true;
  }
  if (!member.check(value)) return false;
  remember(value);
  return true;
}

/** Every shape error of `value` (empty when it is well-formed). Paths are JSON pointers. */
export function shapeErrors(value: unknown): ProblemDetail[] {
  if (compiled.Check(value)) return [];
  return dedupe(flatten([...compiled.Errors(value)]));
}

/** Unions: report the errors of the variant the value most likely meant. */
function flatten(errors: ValueError[]): ProblemDetail[] {
  const out: ProblemDetail[] = [];
  for (const error of errors) {
    if (error.type !== ValueErrorType.Union) {
      out.push({ path: error.path, message: messageOf(error) });
      continue;
    }
    const best = bestVariant(error);
    if (best) out.push(...flatten(best));
    else out.push({ path: error.path, message: `Expected ${describeUnion(error.schema)}` });
  }
  return out;
}

/** Errors saying the value is of another kind than the variant (not merely a bad value of that kind). */
const KIND_ERRORS: ReadonlySet<ValueErrorType> = new Set([
  ValueErrorType.String,
  ValueErrorType.Number,
  ValueErrorType.Integer,
  ValueErrorType.Boolean,
  ValueErrorType.Null,
  ValueErrorType.Object,
  ValueErrorType.Array,
  ValueErrorType.Literal,
  ValueErrorType.Union,
]);

/**
 * The variant with the fewest errors among those whose own node is of the
 * right kind (an object for an object variant, ...). `undefined` when the value matches no
 * variant's node type at all (e.g. a string where number|null is expected).
 */
function bestVariant(error: ValueError): ValueError[] | undefined {
  let best: ValueError[] | undefined;
  for (const iterator of error.errors as ValueErrorIterator[]) {
    const list = [...iterator];
    if (list.some((e) => e.path === error.path && KIND_ERRORS.has(e.type))) continue;
    if (!best || weight(list) < weight(best)) best = list;
  }
  return best;
}

/** A mismatched literal (a discriminator such as `type: 'http'`) weighs more than other errors. */
function weight(list: ValueError[]): number {
  return list.reduce((sum, e) => sum + (e.type === ValueErrorType.Literal ? 100 : 1), 0);
}

function describeUnion(schema: TSchema): string {
  const variants = (schema.anyOf ?? []) as TSchema[];
  const names = variants.map((v) => (v.const !== undefined ? JSON.stringify(v.const) : String(v.type ?? 'value')));
  return names.length > 0 ? names.join(' or ') : 'a different value';
}

function messageOf(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectRequiredProperty) return 'Required member is missing';
  const custom = (error.schema as { errorMessage?: unknown }).errorMessage;
  if (error.type === ValueErrorType.StringPattern && typeof custom === 'string') return custom;
  return error.message;
}

/** One entry per path; "missing" wins over the type error TypeBox also reports for it. */
function dedupe(details: ProblemDetail[]): ProblemDetail[] {
  const byPath = new Map<string, string[]>();
  for (const { path, message } of details) {
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPath.set(path, messages);
  }
  return [...byPath].map(([path, messages]) => {
    const missing = messages.find((m) => m === 'Required member is missing');
    return { path, message: missing ?? messages.join('; ') };
  });
}
