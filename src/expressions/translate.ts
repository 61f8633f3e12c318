// Static half of partial evaluation: turns a compiled rule/filter into a template where every
// maximal sub-expression that does not depend on the record (only on auth, operation, now, env)
// is a separately compiled "param" program, and every record-dependent part is within the
// SQL-translatable subset of residual.ts. Anything else is refused with a message (at save time
// through `checkTranslatable`).
import type { ASTNode } from '@marcbachmann/cel-js';
import { compile, compileInEnvironment, type CompiledExpression } from './compile.ts';
import { evaluateRaw } from './evaluate.ts';
import type { CompareOp, ResidualValue } from './residual.ts';
import { REQUEST_KNOWN_VARIABLES } from './scopes.ts';
import { toPlain } from './serialize.ts';
import type { ExpressionContext } from './types.ts';
import { childGroups, freeVariables } from './walk.ts';

export type TemplateOperand =
  | { kind: 'field'; name: string }
  | { kind: 'value'; value: ResidualValue }
  | { kind: 'failed'; message: string; code?: string }
  /** Evaluated per request with the known variables. */
  | { kind: 'param'; program: CompiledExpression }
  | { kind: 'size'; target: TemplateOperand };

export type Template =
  | { kind: 'and' | 'or'; items: Template[] }
  | { kind: 'not'; item: Template }
  | { kind: 'compare'; op: CompareOp; left: TemplateOperand; right: TemplateOperand }
  | { kind: 'in'; item: TemplateOperand; list: TemplateOperand }
  | { kind: 'call'; name: 'contains' | 'startsWith' | 'endsWith'; target: TemplateOperand; arg: TemplateOperand }
  /** A record-free boolean: folds to a constant. */
  | { kind: 'test'; operand: TemplateOperand };

export class UntranslatableError extends Error {
  override name = 'UntranslatableError';
}

const COMPARE_OPS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);
const STRING_TESTS: ReadonlySet<string> = new Set(['contains', 'startsWith', 'endsWith']);
const plans = new WeakMap<CompiledExpression, Template | UntranslatableError>();

/** The template of a compiled rule or filter (memoised); throws UntranslatableError. */
export function planOf(compiled: CompiledExpression): Template {
  let plan = plans.get(compiled);
  if (plan === undefined) {
    try {
      plan = new Builder(compiled).bool(compiled.ast);
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      plan = error;
    }
    plans.set(compiled, plan);
  }
  if (plan instanceof UntranslatableError) throw plan;
  return plan;
}

/** Whether a rule/filter can become SQL: `{ok: true}` or `{ok: false, message}`. */
export function checkTranslatable(source: string, ctx: ExpressionContext): { ok: true } | { ok: false; message: string } {
  const result = compile(source, ctx);
  if (!result.ok) return result;
  if (result.compiled.environment.spec.result !== 'bool') {
    return { ok: false, message: `Only boolean scopes (rule, filter) can be translated, not '${ctx.scope}'` };
  }
  try {
    planOf(result.compiled);
    return { ok: true };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

class Builder {
  readonly #compiled: CompiledExpression;
  readonly #known: ReadonlySet<string>;

  constructor(compiled: CompiledExpression) {
    this.#compiled = compiled;
    const scopeVars = Object.keys(compiled.environment.spec.variables);
    // `cel` is the library's constant namespace (cel.bind).
    this.#known = new Set(['cel', ...scopeVars.filter((v) => REQUEST_KNOWN_VARIABLES.has(v))]);
  }

  bool(node: ASTNode): Template {
    const free = freeVariables(node);
    if ([...free].every((v) => this.#known.has(v))) return { kind: 'test', operand: this.#closed(node, free) };
    switch (node.op) {
      case '&&':
      case '||':
        return { kind: node.op === '&&' ? 'and' : 'or', items: [this.bool(node.args[0]), this.bool(node.args[1])] };
      case '!_':
        return { kind: 'not', item: this.bool(node.args) };
      case '?:': {
        // c ? a : b  ==  (c && a) || (!c && b), for boolean branches.
        const [c, a, b] = node.args;
        const cond = this.bool(c);
        return {
          kind: 'or',
          items: [
            { kind: 'and', items: [cond, this.bool(a)] },
            { kind: 'and', items: [{ kind: 'not', item: cond }, this.bool(b)] },
          ],
        };
      }
      case 'in':
        return { kind: 'in', item: this.operand(node.args[0]), list: this.operand(node.args[1]) };
      case 'rcall': {
        const [name, receiver, args] = node.args;
        if (STRING_TESTS.has(name) && args.length === 1) {
          const call = name as 'contains' | 'startsWith' | 'endsWith';
          return { kind: 'call', name: call, target: this.operand(receiver), arg: this.operand(args[0]) };
        }
        break;
      }
      case '.':
        // A boolean field on its own: `record.done`.
        if (isRecordField(node)) {
          return { kind: 'compare', op: '==', left: { kind: 'field', name: node.args[1] }, right: { kind: 'value', value: true } };
        }
        break;
      default:
        if (COMPARE_OPS.has(node.op)) {
          const [l, r] = node.args as [ASTNode, ASTNode];
          return { kind: 'compare', op: node.op as CompareOp, left: this.operand(l), right: this.operand(r) };
        }
    }
    throw this.#refuse(node);
  }

  operand(node: ASTNode): TemplateOperand {
    const free = freeVariables(node);
    if ([...free].every((v) => this.#known.has(v))) return this.#closed(node, free);
    if (isRecordField(node)) return { kind: 'field', name: node.args[1] };
    if (node.op === 'call' && node.args[0] === 'size' && node.args[1].length === 1) {
      return { kind: 'size', target: this.#field(node.args[1][0]) };
    }
    if (node.op === 'rcall' && node.args[0] === 'size' && node.args[2].length === 0) {
      return { kind: 'size', target: this.#field(node.args[1]) };
    }
    throw this.#refuse(node);
  }

  #field(node: ASTNode): TemplateOperand {
    if (isRecordField(node)) return { kind: 'field', name: node.args[1] };
    throw this.#refuse(node);
  }

  /** A record-free sub-expression: a constant now, or a program evaluated per request. */
  #closed(node: ASTNode, free: ReadonlySet<string>): TemplateOperand {
    const text = nodeText(node);
    const sub = compileInEnvironment(text, this.#compiled.environment, true);
    if (!sub.ok || sub.compiled.ast.op !== node.op) {
      throw new UntranslatableError(`Cannot isolate '${text}' (at position ${node.start})`);
    }
    const usesVariables = [...free].some((v) => v !== 'cel');
    if (usesVariables) return { kind: 'param', program: sub.compiled };
    const result = evaluateRaw(sub.compiled, {});
    return result.ok ? { kind: 'value', value: toPlain(result.value) as ResidualValue } : { kind: 'failed', message: result.message, code: result.code };
  }

  #refuse(node: ASTNode): UntranslatableError {
    return new UntranslatableError(
      `Cannot translate '${nodeText(node)}' (at position ${node.start}) to SQL: record-dependent parts may only be ` +
        'comparisons (==, !=, <, <=, >, >=), in, contains/startsWith/endsWith, size() and &&, ||, ! over record.<field>',
    );
  }
}

function isRecordField(node: ASTNode): node is Extract<ASTNode, { op: '.' }> {
  return node.op === '.' && node.args[0].op === 'id' && node.args[0].args === 'record';
}

/**
 * The source text of a node. Node ranges exclude parentheses around their outermost children
 * (`(a) && (b)` spans `a) && (b`), so children's ranges are widened over enclosing parentheses.
 * (The library's `serialize` is not used: it drops needed parentheses, e.g. `x - (y - z)`.)
 */
export function nodeText(node: ASTNode): string {
  const [start, end] = extent(node);
  return node.input.slice(start, end);
}

function extent(node: ASTNode): [number, number] {
  let start = node.start;
  let end = node.end;
  for (const group of childGroups(node)) {
    for (const child of group.nodes) {
      const [s, e] = widened(child);
      start = Math.min(start, s);
      end = Math.max(end, e);
    }
  }
  return [start, end];
}

function widened(node: ASTNode): [number, number] {
  const src = node.input;
  let [start, end] = extent(node);
  for (;;) {
    let i = start - 1;
    while (i >= 0 && /\s/.test(src[i])) i--;
    let j = end;
    while (j < src.length && /\s/.test(src[j])) j++;
    if (src[i] !== '(' || src[j] !== ')') return [start, end];
    start = i;
    end = j + 1;
  }
}
