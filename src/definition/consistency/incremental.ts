/**
 * Incremental expression checking (issue 28): an edit re-checks only the expressions whose
 * inputs it changed.
 *
 * What an expression's verdict depends on is known: its source and scope, the CEL type of
 * `record` (its model: field names, types, whether a `to` names a model, the type name), the
 * type of `auth` (the user model) and, for a default, its field. Each site is checked against a
 * reduced definition holding just those models (and field-less stand-ins for the models their
 * relationships name, so a relationship is typed as an id exactly as in the whole definition);
 * the reduced definition's content key, with the scope and source, keys the verdict in a memo
 * kept with the application. Renaming a field of one model thus re-checks that model's
 * expressions (and, for the user model, every expression reading `auth`), and nothing else.
 *
 * Where the reduced definition could type differently from the whole one, the site is checked
 * against the whole definition, as the full validation does: when the CEL type names of the
 * models are not the plain ones (two names sanitising alike, a model named `Request`, ...), or
 * when the source may name a type itself (it mentions `app`). The verdicts are the same as
 * `createExpressionChecker` gives; the property test in test/definition/incremental* holds
 * both side by side on random edits.
 */
import { definitionKey, typeNameFor, type ExpressionModel } from '../../expressions/index.ts';
import type { AppDefinition, Model } from '../schema.ts';
import { createExpressionChecker } from './expression-checker.ts';
import type { ExpressionSite } from './expression-sites.ts';
import type { ExpressionChecker, ExpressionVerdict } from './expressions.ts';

interface Verdicts {
  check?: ExpressionVerdict;
  translatable?: ExpressionVerdict;
  budget?: ExpressionVerdict;
  variables?: ReadonlySet<string> | undefined;
  hasVariables?: boolean;
}

/**
 * The verdicts of one application's expressions, kept between its edits. After each validation
 * it holds only the entries that validation used, so its size follows the application's
 * expressions and never grows beyond them.
 */
export class ExpressionMemo {
  #entries = new Map<string, Verdicts>();
  #used = new Map<string, Verdicts>();
  /** Checks run (memo misses) in the last validation: what the edit re-checked. */
  misses = 0;
  hits = 0;

  get size(): number {
    return this.#entries.size;
  }

  /** Starts a validation: counts from zero, and remembers what it uses. */
  begin(): void {
    this.#used = new Map();
    this.misses = 0;
    this.hits = 0;
  }

  /** Ends a validation: keeps only what it used. */
  end(): void {
    this.#entries = this.#used;
  }

  entry(key: string): Verdicts {
    let entry = this.#used.get(key) ?? this.#entries.get(key);
    if (!entry) entry = {};
    this.#used.set(key, entry);
    return entry;
  }
}

/** Stand-in model names cannot clash with a model's own type name: we check that they do not. */
const STUB_PREFIX = 'Zz_ref_';

/** Scopes whose expressions see `record`. */
const RECORD_SCOPES = new Set(['rule', 'filter', 'computed']);

/** The type names the whole definition gives its models, `Auth` and `Request` (environment.ts's order). */
function fullTypeNames(def: AppDefinition): { names: Map<string, string>; plain: boolean } {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  let plain = true;
  const name = (of: string) => {
    const before = taken.size;
    const typeName = typeNameFor(of, taken);
    if (taken.size === before || !isPlain(of, typeName)) plain = false;
    return typeName;
  };
  for (const model of def.models) if (!names.has(model.id)) names.set(model.id, name(model.name));
  if (!def.models.some((m) => m.id === def.userModelId)) name('Auth');
  name('Request');
  return { names, plain };
}

/** The name typeNameFor gives when nothing clashes. */
function isPlain(name: string, typeName: string): boolean {
  const clean = name.replace(/[^A-Za-z0-9_]/g, '_') || 'Model';
  return typeName === `app.${/^[0-9]/.test(clean) ? `M${clean}` : clean}`;
}

/** A checker answering from `memo`, checking what it lacks against reduced definitions. */
export function createIncrementalChecker(def: AppDefinition, memo: ExpressionMemo): ExpressionChecker {
  const byId = new Map<string, { model: Model; index: number }>();
  def.models.forEach((model, index) => {
    if (!byId.has(model.id)) byId.set(model.id, { model, index });
  });
  const { plain } = fullTypeNames(def);
  let whole: { checker: ExpressionChecker; key: string } | undefined;
  const wholeChecker = () => (whole ??= { checker: createExpressionChecker(def), key: `whole:${definitionKey({ models: def.models, userModelId: def.userModelId })}` });

  // What typing sees of a model: its id, name, and each field's name, `to`, `max` and whether `to` names a model.
  const signatures = new Map<string, string>();
  const signature = (modelId: string): string => {
    let sig = signatures.get(modelId);
    if (sig === undefined) {
      const model = byId.get(modelId)?.model;
      sig = model
        ? `${model.id}\u0001${model.name}\u0001${model.fields.map((f) => `${f.name}\u0002${f.to}\u0002${f.max}\u0002${byId.has(f.to) ? 1 : 0}`).join('\u0003')}`
        : '';
      signatures.set(modelId, sig);
    }
    return sig;
  };

  // One reduced checker per record model (or none), built when a site of it is not in the memo.
  const reduced = new Map<string, ExpressionChecker | null>();
  const reducedFor = (modelId: string | null) => {
    const at = modelId ?? '';
    if (!reduced.has(at)) reduced.set(at, plain ? buildReduced(def, byId, modelId) : null);
    return reduced.get(at)!;
  };

  const resolve = (site: ExpressionSite): { key: string; checker: () => ExpressionChecker } => {
    const modelId = RECORD_SCOPES.has(site.scope) ? (site.model?.id ?? null) : null;
    const usable = plain && !/\bapp\b/.test(site.source) && byId.has(def.userModelId) && (modelId === null || byId.has(modelId));
    if (!usable) {
      const w = wholeChecker();
      // The record's model is part of the key: the same source reads another model's fields.
      return { key: `${site.scope}\u0000${w.key}\u0000${site.model?.id ?? ''}\u0000${site.source}`, checker: () => w.checker };
    }
    const types = `${signature(def.userModelId)}\u0004${modelId === null ? '' : signature(modelId)}`;
    return {
      key: `${site.scope}\u0000${types}\u0000${site.source}`,
      checker: () => reducedFor(modelId) ?? wholeChecker().checker,
    };
  };

  const memoised = <K extends 'check' | 'translatable' | 'budget'>(kind: K) => (site: ExpressionSite): ExpressionVerdict => {
    const { key, checker } = resolve(site);
    const entry = memo.entry(key);
    const known = entry[kind];
    if (known) {
      memo.hits++;
      return known;
    }
    memo.misses++;
    const method = checker()[kind];
    const verdict = method ? safely(() => method(site)) : { ok: true as const };
    entry[kind] = verdict;
    return verdict;
  };

  return {
    check: memoised('check'),
    translatable: memoised('translatable'),
    budget: memoised('budget'),
    variables: (site) => {
      const { key, checker } = resolve(site);
      const entry = memo.entry(key);
      if (!entry.hasVariables) {
        entry.variables = checker().variables?.(site);
        entry.hasVariables = true;
      }
      return entry.variables;
    },
  };
}

/** The same "a throwing checker is a verdict" rule as checkExpressions. */
function safely(run: () => ExpressionVerdict): ExpressionVerdict {
  try {
    return run();
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The definition an expression of `modelId`'s scope (or of a model-free scope) is typed
 * against: the user model and the record's model in their order, then a field-less stand-in
 * for each model their fields point to. Null when its type names would differ from the whole
 * definition's (then the whole one is used).
 */
function buildReduced(def: AppDefinition, byId: Map<string, { model: Model; index: number }>, modelId: string | null): ExpressionChecker | null {
  const wanted = [byId.get(def.userModelId), modelId === null ? undefined : byId.get(modelId)]
    .filter((m): m is { model: Model; index: number } => m !== undefined)
    .sort((a, b) => a.index - b.index);
  const models: ExpressionModel[] = [...new Set(wanted.map((w) => w.model))];
  const ids = new Set(models.map((m) => m.id));
  const stubs = new Set<string>();
  for (const model of models) {
    for (const field of model.fields) if (byId.has(field.to) && !ids.has(field.to)) stubs.add(field.to);
  }
  let k = 0;
  const all: ExpressionModel[] = [...models, ...[...stubs].map((id) => ({ id, name: `${STUB_PREFIX}${k++}`, fields: [] }))];
  // The reduced type names must be the whole definition's for the models that matter.
  const taken = new Set<string>();
  for (const model of all) {
    const typeName = typeNameFor(model.name, taken);
    if (!model.name.startsWith(STUB_PREFIX) && !isPlain(model.name, typeName)) return null;
  }
  return createExpressionChecker({ ...def, models: all } as unknown as AppDefinition);
}
