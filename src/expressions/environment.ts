// Builds the typed CEL environments: one base environment per definition (model types and
// operators), cloned per scope and model with that scope's variables. Building an environment
// is the expensive part of the library, so both levels are cached.
import { createHash } from 'node:crypto';
import { Environment } from '@marcbachmann/cel-js';
import { LruCache } from './cache.ts';
import { MAX_LITERAL_ELEMENTS, MAX_PARSE_DEPTH } from './limits.ts';
import { buildModelInfo, celFields, isNullValue, ModelValue, type ModelInfo } from './model-types.ts';
import { SCOPES, type ScopeSpec } from './scopes.ts';
import type { ExpressionContext, ExpressionDefinition, ExpressionModel, Scope } from './types.ts';

/** Types of one definition, shared by all its scope environments. */
export interface DefinitionTypes {
  key: string;
  models: ReadonlyMap<string, ModelInfo>;
  /** Type of `auth`: the user model, or a type with only `id` when the app has no user model. */
  auth: ModelInfo;
  request: ModelInfo;
  base: Environment;
}

export interface ScopeEnvironment {
  /** Cache key: definition key, scope and model. */
  key: string;
  scope: Scope;
  spec: ScopeSpec;
  env: Environment;
  /** The type of `record` in rule/filter/computed scopes. */
  model: ModelInfo | null;
  types: DefinitionTypes;
}

/** A setup error (unknown model, missing model id): the caller's bug, not the builder's. */
export class ExpressionSetupError extends Error {
  override name = 'ExpressionSetupError';
}

const ENV_OPTIONS = {
  // Effects build records as maps of mixed value types (DESIGN §5).
  homogeneousAggregateLiterals: false,
  limits: { maxDepth: MAX_PARSE_DEPTH, maxListElements: MAX_LITERAL_ELEMENTS, maxMapEntries: MAX_LITERAL_ELEMENTS },
};

const definitionKeys = new WeakMap<ExpressionDefinition, string>();
const definitionCache = new LruCache<string, DefinitionTypes>(64);
/**
 * Scope environments: one per scope and model of a definition, so an application of M models
 * needs ~2M of them at once; the cache grows to the largest definition seen (a fixed 512 made
 * every validation past 512 models rebuild all of them) up to a ceiling that bounds its memory.
 */
const SCOPE_CACHE_CEILING = 2048;
const scopeCache = new LruCache<string, ScopeEnvironment>(512, SCOPE_CACHE_CEILING);

/** The key environments and programs of this definition are cached under. */
export function definitionKey(definition: ExpressionDefinition): string {
  if (definition.versionKey) return `v:${definition.versionKey}`;
  let key = definitionKeys.get(definition);
  if (key === undefined) {
    const shape = {
      userModelId: definition.userModelId,
      models: definition.models.map((m) => [m.id, m.name, m.fields.map((f) => [f.name, f.to, f.max])]),
    };
    key = `h:${createHash('sha256').update(JSON.stringify(shape)).digest('base64url')}`;
    definitionKeys.set(definition, key);
  }
  return key;
}

export function getDefinitionTypes(definition: ExpressionDefinition): DefinitionTypes {
  const key = definitionKey(definition);
  return definitionCache.getOrCreate(key, () => {
    scopeCache.reserve(2 * definition.models.length + 64);
    return buildDefinitionTypes(key, definition.models, definition.userModelId);
  });
}

/** The environment for a scope (and model, where the scope has `record`). */
export function getScopeEnvironment(ctx: ExpressionContext): ScopeEnvironment {
  const spec = SCOPES[ctx.scope];
  if (!spec) throw new ExpressionSetupError(`Unknown expression scope: ${String(ctx.scope)}`);
  const types = getDefinitionTypes(ctx.definition);
  let model: ModelInfo | null = null;
  if (spec.needsModel) {
    if (!ctx.modelId) throw new ExpressionSetupError(`Scope '${ctx.scope}' needs a model id`);
    model = types.models.get(ctx.modelId) ?? null;
    if (!model) throw new ExpressionSetupError(`Unknown model id: ${ctx.modelId}`);
  }
  const key = `${types.key}|${ctx.scope}|${model?.id ?? ''}`;
  return scopeCache.getOrCreate(key, () => ({
    key,
    scope: ctx.scope,
    spec,
    env: buildScopeEnvironment(types, spec, model),
    model,
    types,
  }));
}

function buildDefinitionTypes(key: string, models: readonly ExpressionModel[], userModelId: string | null): DefinitionTypes {
  const modelIds = new Set(models.map((m) => m.id));
  const taken = new Set<string>();
  const infos = new Map<string, ModelInfo>();
  for (const model of models) if (!infos.has(model.id)) infos.set(model.id, buildModelInfo(model, modelIds, taken));

  const userModel = userModelId ? infos.get(userModelId) : undefined;
  const auth = userModel ?? buildModelInfo({ id: '$auth', name: 'Auth', fields: [] }, modelIds, taken);
  const request = buildRequestInfo(taken);

  const base = new Environment(ENV_OPTIONS);
  const registered = [...infos.values(), ...(userModel ? [] : [auth]), request];
  for (const info of registered) {
    // `convert` lets plain objects through where a value was not prepared by inputs.ts.
    base.registerType(info.typeName, {
      ctor: info.ctor,
      fields: celFields(info),
      convert: (value: unknown) => Object.assign(new info.ctor(), value),
    });
    // Model values may be null (`auth != null`); the library has no nullable message types.
    base.registerOperator(`${info.typeName} == null`, (a: unknown) => isNullValue(a));
  }
  registerMixedArithmetic(base);
  return { key, models: infos, auth, request, base };
}

function buildRequestInfo(taken: Set<string>): ModelInfo {
  const info = buildModelInfo({ id: '$request', name: 'Request', fields: [] }, new Set(), taken);
  const fields = new Map([
    ['method', { name: 'method', celType: 'string', kind: 'string' as const, list: false }],
    ['path', { name: 'path', celType: 'string', kind: 'string' as const, list: false }],
    ['params', { name: 'params', celType: 'map<string, dyn>', kind: 'map' as const, list: false }],
    ['query', { name: 'query', celType: 'map<string, dyn>', kind: 'map' as const, list: false }],
    ['headers', { name: 'headers', celType: 'map<string, dyn>', kind: 'map' as const, list: false }],
    ['body', { name: 'body', celType: 'dyn', kind: 'map' as const, list: false }],
  ]);
  return { ...info, fields };
}

/**
 * JS numbers are CEL doubles while literals like `2` are ints (DESIGN §5): without these,
 * `record.price * 2` and `record.price == 1` do not type-check. Comparisons (<, >, ...) between
 * int and double are built in.
 */
function registerMixedArithmetic(env: Environment): void {
  const num = (v: unknown): number => Number(v as number | bigint);
  const ops: Record<string, (a: number, b: number) => number> = {
    '+': (a, b) => a + b,
    '-': (a, b) => a - b,
    '*': (a, b) => a * b,
    '/': (a, b) => a / b,
  };
  for (const [op, fn] of Object.entries(ops)) {
    env.registerOperator(`double ${op} int: double`, (a: unknown, b: unknown) => fn(num(a), num(b)));
    env.registerOperator(`int ${op} double: double`, (a: unknown, b: unknown) => fn(num(a), num(b)));
  }
  // Also registers `int == double` and both `!=`.
  env.registerOperator('double == int', (a: unknown, b: unknown) => num(a) === num(b));
}

function buildScopeEnvironment(types: DefinitionTypes, spec: ScopeSpec, model: ModelInfo | null): Environment {
  const env = types.base.clone();
  for (const [name, kind] of Object.entries(spec.variables)) {
    switch (kind) {
      case 'record':
        env.registerVariable(name, (model as ModelInfo).typeName);
        break;
      case 'auth':
        env.registerVariable(name, types.auth.typeName);
        break;
      case 'request':
        env.registerVariable(name, types.request.typeName);
        break;
      case 'string':
        env.registerVariable(name, 'string');
        break;
      case 'timestamp':
        env.registerVariable(name, 'google.protobuf.Timestamp');
        break;
      case 'env':
      case 'secrets':
        // Variables and secrets are strings (DESIGN §11): `env.PORT + 1` is refused at save.
        env.registerVariable(name, 'map<string, string>');
        break;
      case 'dyn':
        env.registerVariable(name, 'dyn');
        break;
    }
  }
  return env;
}

export { ModelValue };
