// Where a secret may be read (docs/security.md): reading `secrets.NAME` is a privilege of the effects
// that send it somewhere, not a value an editor may compute with. An editor (who may neither read
// nor write secrets) could otherwise recover one from anything derived from it, `split('')`,
// `size()`, comparisons, indexing, that redaction cannot recognise. So a secret may appear only
// whole, or joined to other strings with `+`, possibly inside a list or as a map's value, in the
// bindParams of an effect that sends it out (http.request's url, headers and body), and nowhere
// else. Decided on the parsed expression (the one expression engine's tree), never on its text.
import { compile, freeVariables, walk, type ASTNode, type ExpressionDefinition } from '../expressions/index.ts';
import type { ProblemDetail } from '../errors.ts';
import type { ActionEffect } from '../definition/schema.ts';

/** The effects whose params may carry a secret, and those params. */
export const SECRET_PARAMS: Readonly<Record<string, readonly string[]>> = {
  'http.request': ['url', 'headers', 'body'],
};

/** The rule, as problems state it. */
export const SECRET_RULE =
  'secrets.NAME may appear only as a whole value, or joined to strings with +, in the url, headers or body bindParams of http.request; ' +
  'no function, method, comparison, condition or index may apply to it';

/** Where a secret's value may flow up to the expression's result: whole into these, and nothing else. */
function carries(parent: ASTNode, child: ASTNode): boolean {
  switch (parent.op) {
    case '+':
    case 'list':
      return true;
    case 'map':
      // As a value, never as a key (a key becomes a member name).
      return parent.args.some(([, value]) => value === child);
    default:
      return false;
  }
}

/** Why `ast`, bound to `param` of the effect `effect`, reads a secret in a way the rule refuses; null when it does not. */
export function secretPlacementTrouble(ast: ASTNode, effect: string, param: string): string | null {
  const parents = new Map<ASTNode, ASTNode | null>();
  const reads: ASTNode[] = [];
  walk(ast, (node, info) => {
    parents.set(node, info.parent);
    if (node.op === 'id' && node.args === 'secrets' && !info.bound.has('secrets')) reads.push(node);
  });
  if (reads.length === 0) return null;
  if (!SECRET_PARAMS[effect]?.includes(param)) {
    return `reads a secret in bindParams.${param} of ${effect}: ${SECRET_RULE}`;
  }
  for (const read of reads) {
    const access = parents.get(read) ?? null;
    const named =
      access !== null &&
      ((access.op === '.' && access.args[0] === read) ||
        (access.op === '[]' && access.args[0] === read && access.args[1].op === 'value' && typeof access.args[1].args === 'string'));
    if (!named) return `uses secrets other than as secrets.NAME: ${SECRET_RULE}`;
    for (let child: ASTNode = access, parent = parents.get(access) ?? null; parent !== null; child = parent, parent = parents.get(parent) ?? null) {
      if (!carries(parent, child)) return `derives a value from a secret: ${SECRET_RULE}`;
    }
  }
  return null;
}

/** Verdicts per parsed tree and effect param: the runtime asks on every run. */
const verdicts = new WeakMap<ASTNode, Map<string, string | null>>();

/** secretPlacementTrouble, remembered per tree (a tree reading no secret is answered at once). */
export function cachedSecretPlacementTrouble(ast: ASTNode, effect: string, param: string): string | null {
  let known = verdicts.get(ast);
  if (!known) {
    known = new Map();
    verdicts.set(ast, known);
    if (!freeVariables(ast).has('secrets')) known.set('*', null);
  }
  if (known.has('*')) return null;
  const key = `${effect}\u0000${param}`;
  let verdict = known.get(key);
  if (verdict === undefined) {
    verdict = secretPlacementTrouble(ast, effect, param);
    known.set(key, verdict);
  }
  return verdict;
}

/** The problems of an action's effects' bindParams under the rule, at their pointers (`/actions/{i}/effects/{j}/bindParams/{name}`). */
export function secretPlacementProblems(definition: ExpressionDefinition, effects: readonly ActionEffect[], actionPointer: string): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  effects.forEach((effect, j) => {
    for (const [name, source] of Object.entries(effect.bindParams ?? {})) {
      const compiled = compile(source, { definition, scope: 'effect' });
      if (!compiled.ok) continue;
      const trouble = cachedSecretPlacementTrouble(compiled.compiled.ast, effect.effect, name);
      if (trouble) problems.push({ path: `${actionPointer}/effects/${j}/bindParams/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: `Invalid effect expression: ${trouble}` });
    }
  });
  return problems;
}
