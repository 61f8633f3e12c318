// The `fields` query parameter (DESIGN §6, sparse fields): `fields=title,deadline,user.name`.
// `id` is always answered; a relationship named alone stays an id (ids for a to-many); `user.*`
// or `user.name` expands it to the related record with those members (its own relationships as
// ids). Unknown fields and fields the caller may not read are one 400 naming each of them, with
// the same words for both, so the answer does not tell a hidden field from a missing one.
import { badRequest } from '../../errors.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import type { FieldAccess } from './rule-sql.ts';

/** What is asked of one member: as it is (a value, or a relationship's id), or a relationship expanded. */
export type FieldPick = { kind: 'plain' } | { kind: 'expand'; fields: Selection | null };

/** The members a record answers, by field name; `fields: null` in an expansion means all of them. */
export type Selection = ReadonlyMap<string, FieldPick>;

/** At most this many entries, so a request cannot make the statement text grow without bound. */
const MAX_ENTRIES = 200;

function invalid(names: string[], why: (name: string) => string, detail: string) {
  return badRequest(`The fields are not valid: ${detail}.`, names.map((name) => ({ path: '/fields', message: why(name) })));
}

/**
 * Parses `fields` for `model`; undefined or empty: every member (no selection). `visibility`
 * gives a model's field readability for this caller (hidden fields cannot be asked for).
 */
export function parseFields(
  app: CompiledApp,
  model: CompiledModel,
  raw: string | undefined,
  visibility: (model: CompiledModel) => Map<string, FieldAccess>,
): Selection | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const entries = raw.split(',').map((part) => part.trim());
  if (entries.length > MAX_ENTRIES) throw invalid(['fields'], () => `at most ${MAX_ENTRIES} entries`, `${entries.length} entries, at most ${MAX_ENTRIES}`);
  const bad: string[] = [];
  const readable = (of: CompiledModel, name: string) => {
    const field = of.fieldsByName.get(name);
    if (!field || visibility(of).get(name)?.kind === 'hidden') return undefined;
    return field;
  };
  const top = new Map<string, FieldPick>();
  for (const entry of entries) {
    if (entry === '') {
      bad.push(entry);
      continue;
    }
    const [name, sub, ...deeper] = entry.split('.');
    if (name === 'id' && sub === undefined) continue;
    const field = readable(model, name);
    if (!field || deeper.length > 0 || (sub !== undefined && !field.relation)) {
      bad.push(entry);
      continue;
    }
    if (sub === undefined) {
      if (!top.has(name)) top.set(name, { kind: 'plain' });
      continue;
    }
    const target = app.modelsById.get(field.relation!.targetModelId)!;
    const current = top.get(name);
    const expanded: { kind: 'expand'; fields: Map<string, FieldPick> | null } =
      current?.kind === 'expand' ? (current as { kind: 'expand'; fields: Map<string, FieldPick> | null }) : { kind: 'expand', fields: new Map() };
    top.set(name, expanded);
    if (sub === '*') {
      expanded.fields = null;
      continue;
    }
    if (sub === 'id') continue;
    if (!readable(target, sub)) {
      bad.push(entry);
      continue;
    }
    expanded.fields?.set(sub, { kind: 'plain' });
  }
  if (bad.length > 0) {
    const names = bad.map((b) => (b === '' ? '(empty)' : b));
    const why = (name: string) => `'${name}' is not a field of ${model.name}, or of the record it names, that the caller may read`;
    throw invalid(names, why, `${names.map((n) => `'${n}'`).join(', ')}: not a field of ${model.name}, or of the record it names, that the caller may read`);
  }
  return top;
}
