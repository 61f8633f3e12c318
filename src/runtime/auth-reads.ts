// What of the signed-in end user (`auth`) an app's expressions can read, found once per compiled
// app, so that authenticating a request loads only that: always the id, a field only when some
// expression of the definition names it (`auth.email`, `record.id in auth.todos`), the whole
// record when one uses `auth` as a value (returns it, passes it on, compares it with anything but
// null). List filters arrive with the request: a filter that reads a member the request did not
// load gets the whole record, loaded then (authForFilter).
import { collectExpressions } from '../definition/consistency/expression-sites.ts';
import { compile, variableUse, type VariableUse } from '../expressions/index.ts';
import type { Executor } from '../storage/db.ts';
import type { CompiledApp, CompiledField, CompiledModel } from './compiled-app.ts';
import { compileFor, expressionDefinition } from './data/expressions.ts';
import { readPlainRecord, type PlainRecord } from './writes/plain-record.ts';

/** Per compiled app: the user model's fields `auth` needs; null for the whole record. */
const neededFields = new WeakMap<CompiledApp, readonly CompiledField[] | null>();
/** Users loaded with some fields left out (by loadAuth). */
const partial = new WeakSet<object>();

function isPlain(field: CompiledField | undefined): field is CompiledField {
  return field !== undefined && field.computed === undefined;
}

/** How the expressions of the app's definition (every site of collectExpressions) read `auth`. */
export function authUse(app: CompiledApp): VariableUse {
  const use: VariableUse = { members: new Set(), whole: false };
  const definition = expressionDefinition(app);
  for (const site of collectExpressions(app.definition)) {
    const result = compile(site.source, { definition, scope: site.scope, modelId: site.model?.id ?? null });
    // A published definition compiles; one that does not is taken to read everything.
    const one = result.ok ? variableUse(result.compiled.ast, 'auth') : { members: new Set<string>(), whole: true };
    if (one.whole) return { members: use.members, whole: true };
    for (const name of one.members) use.members.add(name);
  }
  return use;
}

/** The user model's fields to load for `auth` (besides the id); null for every field. */
export function authFields(app: CompiledApp): readonly CompiledField[] | null {
  const known = neededFields.get(app);
  if (known !== undefined) return known;
  const model = app.userModel;
  let fields: readonly CompiledField[] | null = null;
  if (model) {
    const use = authUse(app);
    const plain = model.fields.filter((field) => isPlain(field));
    // A write-only field (an API key) is never in `auth`: an action could answer it.
    const readable = plain.filter((field) => !field.writeOnly);
    const read = use.whole ? readable : readable.filter((field) => use.members.has(field.name));
    if (read.length < plain.length) fields = read;
  }
  neededFields.set(app, fields);
  return fields;
}

/** The signed-in end user `id` as `auth` (only what the app's expressions read); undefined when they are gone. */
export async function loadAuth(executor: Executor, app: CompiledApp, id: string): Promise<PlainRecord | undefined> {
  const model = app.userModel;
  if (!model) return undefined;
  const fields = authFields(app);
  const user = await readPlainRecord(executor, app, model, id, fields ?? undefined);
  if (user && fields) partial.add(user);
  return user;
}

/**
 * `auth` with every member a request-time list filter reads: the whole record, loaded now, when the
 * filter reads a field that loadAuth left out or uses `auth` as a value; `auth` itself otherwise.
 */
export async function authForFilter(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  auth: Record<string, unknown> | null,
  filter: string | undefined,
): Promise<Record<string, unknown> | null> {
  const userModel = app.userModel;
  if (!auth || !partial.has(auth) || !userModel || filter === undefined || filter.trim() === '') return auth;
  const compiled = compileFor(app, model, 'filter', filter);
  // filterCondition reports a filter that does not compile.
  if (!compiled.ok) return auth;
  const use = variableUse(compiled.compiled.ast, 'auth');
  const missing = use.whole || [...use.members].some((name) => !Object.hasOwn(auth, name) && isPlain(userModel.fieldsByName.get(name)));
  if (!missing) return auth;
  const readable = userModel.fields.filter((field) => isPlain(field) && !field.writeOnly);
  return (await readPlainRecord(executor, app, userModel, String(auth.id), readable.length < userModel.fields.filter(isPlain).length ? readable : undefined)) ?? auth;
}
