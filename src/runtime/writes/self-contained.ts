// Whether SQL expressions on the row `t` read only that row's columns and bound values. A write
// merged with its read-back into one statement (runtime/writes/records.ts) gives `t` from the
// write's RETURNING, but any subquery in the same statement sees the tables as they were before
// it (PostgreSQL's one snapshot per statement): a rule or record with a subquery keeps the
// separate read-back statement.
import type { RawBuilder } from 'kysely';

type Node = { kind: string } & Record<string, unknown>;

/** Quoted identifiers and string literals, which may spell `select` without being one. */
const QUOTED = /"(?:[^"]|"")*"|'(?:[^']|'')*'/g;
const SUBQUERY = /\bselect\b/i;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).kind === 'string';
}

/**
 * Per fragment list: whether it spells a subquery. The lists of `sql` template literals are one
 * object per call site, so this is asked once per site, not once per statement.
 */
const fragmentAnswers = new WeakMap<readonly string[], boolean>();

function fragmentsHaveSubquery(fragments: readonly string[]): boolean {
  let answer = fragmentAnswers.get(fragments);
  if (answer === undefined) {
    answer = fragments.some((fragment) => SUBQUERY.test(fragment.replace(QUOTED, '')));
    fragmentAnswers.set(fragments, answer);
  }
  return answer;
}

function nodeSelfContained(node: Node): boolean {
  if (node.kind === 'ValueNode' || node.kind === 'ValueListNode' || node.kind === 'PrimitiveValueListNode') return true;
  if (node.kind === 'RawNode') {
    if (fragmentsHaveSubquery(node.sqlFragments as readonly string[])) return false;
    return (node.parameters as readonly Node[]).every(nodeSelfContained);
  }
  // Any other node (a Kysely query builder embedded in the expression) may read tables.
  return false;
}

const cache = new WeakMap<RawBuilder<unknown>, boolean>();

/** True when none of `expressions` holds a subquery (each answer kept per expression object). */
export function selfContained(...expressions: ReadonlyArray<RawBuilder<unknown> | undefined>): boolean {
  return expressions.every((expression) => {
    if (!expression) return true;
    let answer = cache.get(expression);
    if (answer === undefined) {
      const node: unknown = expression.toOperationNode();
      answer = isNode(node) && nodeSelfContained(node);
      cache.set(expression, answer);
    }
    return answer;
  });
}
