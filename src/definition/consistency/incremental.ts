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
import { isRelationship } from '../relationships.ts';
import { MODEL_ID_PREFIX, type AppDefinition, type Model } from '../schema.ts';
import { isSealed } from '../versioning/sealed.ts';
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
  /** Model signatures (what typing sees of a model, long strings) by a short number for the keys. */
  #signatures = new Map<string, number>();
  #usedSignatures = new Map<string, number>();
  #nextSignature = 0;
  /** Checks run (memo misses) in the last validation: what the edit re-checked. */
  misses = 0;
  hits = 0;

  get size(): number {
    return this.#entries.size;
  }

  /** Starts a validation: counts from zero, and remembers what it uses. */
  begin(): void {
    this.#used = new Map();
    this.#usedSignatures = new Map();
    this.misses = 0;
    this.hits = 0;
  }

  /** Ends a validation: keeps only what it used. */
  end(): void {
    this.#entries = this.#used;
    this.#signatures = this.#usedSignatures;
  }

  entry(key: string): Verdicts {
    let entry = this.#used.get(key) ?? this.#entries.get(key);
    if (!entry) entry = {};
    this.#used.set(key, entry);
    return entry;
  }

  /**
   * The verdicts known under `key`, kept for the next validation as if asked again (counted as
   * hits, one per verdict); undefined when none are known. For fast-accept.ts, which asks for
   * the verdicts of an unchanged model's expressions by their keys.
   */
  known(key: string): Readonly<Verdicts> | undefined {
    const entry = this.#used.get(key) ?? this.#entries.get(key);
    if (!entry) return undefined;
    this.#used.set(key, entry);
    for (const kind of VERDICT_KINDS) if (entry[kind]) this.hits++;
    return entry;
  }

  /**
   * A number standing for a signature in the keys: the same as long as the signature stays in
   * use, never one another signature had (numbers are not reused), so a key built with it names
   * the same typing as one built with the signature itself.
   */
  signatureId(signature: string): number {
    let id = this.#usedSignatures.get(signature) ?? this.#signatures.get(signature);
    if (id === undefined) id = this.#nextSignature++;
    this.#usedSignatures.set(signature, id);
    return id;
  }
}

const VERDICT_KINDS = ['check', 'translatable', 'budget'] as const;

/** A `to` naming a model, as the signature of a sealed model assumes (see sealedSignatures). */
const isModelId = (to: string) => isRelationship({ to });

/** Stand-in model names cannot clash with a model's own type name: we check that they do not. */
const STUB_PREFIX = 'Zz_ref_';

/** Scopes whose expressions see `record`. */
const RECORD_SCOPES = new Set(['rule', 'filter', 'computed']);

/**
 * Whether the whole definition gives its models, `Auth` and `Request` their plain type names
 * (environment.ts's order): typeNameFor suffixes a name only when an earlier one took it, so
 * exactly when the plain names are all different.
 */
function plainTypeNames(def: AppDefinition): boolean {
  const taken = new Set<string>();
  const seen = new Set<string>();
  const fresh = (typeName: string) => {
    if (taken.has(typeName)) return false;
    taken.add(typeName);
    return true;
  };
  let plain = true;
  for (const model of def.models) {
    if (seen.has(model.id)) continue;
    seen.add(model.id);
    if (!fresh(plainTypeName(model.name))) plain = false;
  }
  if (!seen.has(def.userModelId) && !fresh(plainTypeName('Auth'))) plain = false;
  if (!fresh(plainTypeName('Request'))) plain = false;
  return plain;
}

/** Plain type names already computed (each validation asks for every model's); bounded: emptied when full. */
const PLAIN_NAMES_MAX = 20_000;
const plainNames = new Map<string, string>();

/** The name typeNameFor gives when nothing clashes. */
function plainTypeName(name: string): string {
  let typeName = plainNames.get(name);
  if (typeName === undefined) {
    if (plainNames.size >= PLAIN_NAMES_MAX) plainNames.clear();
    const clean = name.replace(/[^A-Za-z0-9_]/g, '_') || 'Model';
    typeName = `app.${/^[0-9]/.test(clean) ? `M${clean}` : clean}`;
    plainNames.set(name, typeName);
  }
  return typeName;
}

function isPlain(name: string, typeName: string): boolean {
  return typeName === plainTypeName(name);
}

/**
 * A sealed model's signature (what typing sees of it), computed once: written as if every
 * relationship's target were a model of the definition and no other `to` were, so it holds
 * where that is so (`relationshipTargets` all models, every model id with the model prefix).
 */
const sealedSignatures = new WeakMap<Model, { text: string; relationshipTargets: string[] }>();

function signatureText(model: Model, namesModel: (to: string) => boolean): string {
  return `${model.id}\u0001${model.name}\u0001${model.fields.map((f) => `${f.name}\u0002${f.to}\u0002${f.max}\u0002${namesModel(f.to) ? 1 : 0}`).join('\u0003')}`;
}

/** What the fast acceptance (fast-accept.ts) needs of the checker beyond the verdicts. */
export interface IncrementalChecker extends ExpressionChecker {
  /** The memo key of a site's verdicts; null when the site is checked against the whole definition (its key changes with any model). */
  keyOf(site: ExpressionSite): string | null;
  /** The memo's number for the signature of a model (of the user model: `userModelId`). */
  signatureOf(modelId: string): number;
  /**
   * Whether the sites of models are checked against reduced definitions (plain type names, a
   * user model), each sealed model with its sealed signature (every model id with the prefix).
   */
  readonly reducible: boolean;
}

/** A checker answering from `memo`, checking what it lacks against reduced definitions. */
export function createIncrementalChecker(def: AppDefinition, memo: ExpressionMemo): IncrementalChecker {
  const byId = new Map<string, { model: Model; index: number }>();
  def.models.forEach((model, index) => {
    if (!byId.has(model.id)) byId.set(model.id, { model, index });
  });
  const plain = plainTypeNames(def);
  const prefixedIds = def.models.every((m) => m.id.startsWith(MODEL_ID_PREFIX));
  const namesModel = (to: string) => byId.has(to);
  let whole: { checker: ExpressionChecker; key: string } | undefined;
  const wholeChecker = () => (whole ??= { checker: createExpressionChecker(def), key: `whole:${definitionKey({ models: def.models, userModelId: def.userModelId })}` });

  // What typing sees of a model: its id, name, and each field's name, `to`, `max` and whether `to` names a model;
  // in the keys, as the memo's number for it (one short key per site instead of two long signatures).
  const signatures = new Map<string, number>();
  const signature = (modelId: string): number => {
    let id = signatures.get(modelId);
    if (id === undefined) {
      const model = byId.get(modelId)?.model;
      let text = '';
      if (model && isSealed(model) && prefixedIds) {
        let sealed = sealedSignatures.get(model);
        if (!sealed) {
          sealed = { text: signatureText(model, isModelId), relationshipTargets: model.fields.filter((f) => isModelId(f.to)).map((f) => f.to) };
          sealedSignatures.set(model, sealed);
        }
        text = sealed.relationshipTargets.every(namesModel) ? sealed.text : signatureText(model, namesModel);
      } else if (model) {
        text = signatureText(model, namesModel);
      }
      id = memo.signatureId(text);
      signatures.set(modelId, id);
    }
    return id;
  };

  // One reduced checker per record model (or none), built when a site of it is not in the memo.
  const reduced = new Map<string, ExpressionChecker | null>();
  const reducedFor = (modelId: string | null) => {
    const at = modelId ?? '';
    if (!reduced.has(at)) reduced.set(at, plain ? buildReduced(def, byId, modelId) : null);
    return reduced.get(at)!;
  };

  type Resolved = { key: string; checker: () => ExpressionChecker };
  const resolveSite = (site: ExpressionSite): Resolved => {
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
  // Each site is asked for several verdicts (check, budget, translation, variables): resolved once.
  const resolvedSites = new WeakMap<ExpressionSite, Resolved>();
  const resolve = (site: ExpressionSite): Resolved => {
    let resolved = resolvedSites.get(site);
    if (!resolved) {
      resolved = resolveSite(site);
      resolvedSites.set(site, resolved);
    }
    return resolved;
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
    keyOf: (site) => {
      const { key } = resolve(site);
      return key.startsWith(`${site.scope}\u0000whole:`) ? null : key;
    },
    signatureOf: signature,
    reducible: plain && byId.has(def.userModelId) && prefixedIds,
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
    tree: (site) => resolve(site).checker().tree?.(site),
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
