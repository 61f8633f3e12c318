// Compiling = parse + static limits + type check + instrumentation, cached per
// (definition key, scope, model, source). User mistakes come back as {ok: false, message}.
import type { ASTNode, ParseResult } from '@marcbachmann/cel-js';
import { instrument } from './budget.ts';
import { LruCache } from './cache.ts';
import { getScopeEnvironment, type ScopeEnvironment } from './environment.ts';
import { FORBIDDEN_FUNCTIONS, MAX_MACRO_NESTING, MAX_PARSE_DEPTH, MAX_SOURCE_BYTES, MAX_TREE_DEPTH } from './limits.ts';
import { measure, walk } from './walk.ts';
import type { CheckResult, ExpressionContext, Scope } from './types.ts';

/** A compiled, type-checked program; evaluate it with `evaluate`. Immutable and shareable. */
export interface CompiledExpression {
  readonly source: string;
  readonly scope: Scope;
  /** The model of `record`, for rule/filter/computed. */
  readonly modelId: string | null;
  /** The CEL type the checker inferred, e.g. `bool`, `dyn<string>`, `map<string, dyn>`. */
  readonly type: string;
  /** The library's syntax tree (walk it with `walk`). Do not mutate. */
  readonly ast: ASTNode;
  /** Internal: the environment it was checked in and the library program. */
  readonly environment: ScopeEnvironment;
  readonly program: ParseResult;
  /** True when the scope's result type was not enforced (sub-expressions). */
  readonly anyResult: boolean;
}

export type CompileResult =
  | { ok: true; type: string; compiled: CompiledExpression }
  | { ok: false; message: string; position?: number };

const DEFAULT_PROGRAM_CACHE_SIZE = 5000;
let programCache = new LruCache<string, CompileResult>(DEFAULT_PROGRAM_CACHE_SIZE);

/**
 * compile()'s answers per definition object, scope, model and source, in front of the program
 * cache: a runtime compiles the same few expressions on every request with the same definition
 * object, and this skips building (and hashing) the program cache's key each time.
 */
const MAX_ANSWERS_PER_SITE = 1000;
let bySite = new WeakMap<object, Map<Scope, Map<string, Map<string, CompileResult>>>>();

function siteAnswers(ctx: ExpressionContext): Map<string, CompileResult> {
  let byScope = bySite.get(ctx.definition);
  if (!byScope) bySite.set(ctx.definition, (byScope = new Map()));
  let byModel = byScope.get(ctx.scope);
  if (!byModel) byScope.set(ctx.scope, (byModel = new Map()));
  const modelId = ctx.modelId ?? '';
  let bySource = byModel.get(modelId);
  if (!bySource) byModel.set(modelId, (bySource = new Map()));
  return bySource;
}

/** Resizes (and empties) the compiled-program cache. */
export function configureProgramCache(maxEntries: number): void {
  programCache = new LruCache(maxEntries);
  bySite = new WeakMap();
}

export function clearProgramCache(): void {
  programCache.clear();
  bySite = new WeakMap();
}

export function programCacheSize(): number {
  return programCache.size;
}

/** Compiles `source` for a scope. Never throws for a bad expression or an unknown model id. */
export function compile(source: string, ctx: ExpressionContext): CompileResult {
  if (typeof source !== 'string') return { ok: false, message: 'Expression must be a string' };
  const answers = siteAnswers(ctx);
  let answer = answers.get(source);
  if (!answer) {
    // Sources from requests (list filters) are unbounded: start over rather than grow.
    if (answers.size >= MAX_ANSWERS_PER_SITE) answers.clear();
    answers.set(source, (answer = compileUnmemoized(source, ctx)));
  }
  return answer;
}

function compileUnmemoized(source: string, ctx: ExpressionContext): CompileResult {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) {
    return { ok: false, message: `Expression is too long (${bytes} bytes; at most ${MAX_SOURCE_BYTES})` };
  }
  if (source.trim() === '') return { ok: false, message: 'Expression is empty' };
  let se: ScopeEnvironment;
  try {
    se = getScopeEnvironment(ctx);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  return compileInEnvironment(source, se);
}

/**
 * Compiles in an already resolved environment. `anyResult` skips the scope's result-type check
 * (translate.ts compiles record-free sub-expressions of rules, e.g. `auth.id`).
 */
export function compileInEnvironment(source: string, se: ScopeEnvironment, anyResult = false): CompileResult {
  const key = `${se.key}|${anyResult ? 'any' : 'scope'}|${source}`;
  return programCache.getOrCreate(key, () => compileUncached(source, se, anyResult));
}

/** Type-checks `source` for a scope: `{ok: true, type}` or `{ok: false, message}`. */
export function checkExpression(source: string, ctx: ExpressionContext): CheckResult {
  const result = compile(source, ctx);
  if (!result.ok) return result;
  return { ok: true, type: result.type };
}

function compileUncached(source: string, se: ScopeEnvironment, anyResult: boolean): CompileResult {
  let program: ParseResult;
  try {
    program = se.env.parse(source);
  } catch (error) {
    return libraryError(error);
  }
  const refused = staticLimits(program.ast);
  if (refused) return refused;

  const checked = program.check();
  if (!checked.valid) return libraryError(checked.error);
  const type = checked.type ?? 'dyn';
  if (!anyResult && se.spec.result === 'bool' && !isBoolType(type)) {
    return { ok: false, message: `Expression must return a boolean in scope '${se.scope}', but returns ${type}` };
  }
  instrument(program.ast);
  const compiled: CompiledExpression = Object.freeze({
    source,
    scope: se.scope,
    modelId: se.model?.id ?? null,
    type,
    ast: program.ast,
    environment: se,
    program,
    anyResult,
  });
  return { ok: true, type, compiled };
}

export function isBoolType(type: string): boolean {
  return type === 'bool' || type === 'dyn' || type === 'dyn<bool>';
}

/** Tree depth, macro nesting and refused functions; checked before type checking. */
function staticLimits(ast: ASTNode): CompileResult | null {
  const { depth, macroDepth } = measure(ast);
  if (depth > MAX_TREE_DEPTH) {
    return { ok: false, message: `Expression is nested too deeply (tree depth ${depth}; at most ${MAX_TREE_DEPTH})` };
  }
  if (macroDepth > MAX_MACRO_NESTING) {
    return {
      ok: false,
      message: `Too many nested macros (all/exists/exists_one/map/filter): ${macroDepth} levels; at most ${MAX_MACRO_NESTING}`,
    };
  }
  let refused: CompileResult | null = null;
  walk(ast, (node) => {
    if (refused || (node.op !== 'call' && node.op !== 'rcall')) return;
    const reason = FORBIDDEN_FUNCTIONS.get(node.args[0]);
    if (reason) refused = { ok: false, message: `${reason} (at position ${node.start})`, position: node.start };
  });
  return refused;
}

interface LibraryErrorShape {
  code?: string;
  summary?: string;
  message?: string;
  range?: { start: number };
}

/** One-line message from a library ParseError/TypeError, with a friendlier text for limits. */
function libraryError(error: unknown): CompileResult {
  const e = (error ?? {}) as LibraryErrorShape;
  const position = e.range?.start;
  let text = e.summary ?? String(e.message ?? error).split('\n')[0];
  if (e.code === 'limit_exceeded') {
    if (text.includes('maxDepth')) text = `Expression is nested too deeply (more than ${MAX_PARSE_DEPTH} levels)`;
    else if (text.includes('maxListElements') || text.includes('maxMapEntries')) text = `Literal has too many elements (${text})`;
  }
  const where = position === undefined ? '' : ` (at position ${position})`;
  return { ok: false, message: `${text}${where}`, ...(position === undefined ? {} : { position }) };
}
