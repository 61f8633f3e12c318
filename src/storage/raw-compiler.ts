// The query compiler of both drivers: Kysely's PostgreSQL compiler with a short path for the
// statements generated apps run on every request. Those are written with the `sql` tag, a tree of
// raw fragments and bound values only, and compiling one is a walk that joins the fragments and
// numbers the values `$1, $2, …`, exactly what Kysely's compiler makes of these two node kinds.
// Kysely's general visitor (every node kind, freezing what it builds) was a measurable share of an
// action's CPU time (bench/actions). A statement holding any other node (a query builder, an
// identifier node, an inlined literal) is compiled by Kysely as before.
import { PostgresQueryCompiler, type CompiledQuery, type QueryId, type RootOperationNode } from 'kysely';

type Node = { readonly kind: string } & Readonly<Record<string, unknown>>;

interface Compiled {
  text: string;
  parameters: unknown[];
}

/** Appends `node` to `out`; false when it holds a node this walk does not compile. */
function append(node: Node, out: Compiled): boolean {
  if (node.kind === 'ValueNode') {
    if (node.immediate === true) return false;
    out.parameters.push(node.value);
    out.text += `$${out.parameters.length}`;
    return true;
  }
  if (node.kind !== 'RawNode') return false;
  const fragments = node.sqlFragments as readonly string[];
  const parameters = node.parameters as readonly Node[];
  for (let i = 0; i < fragments.length; i++) {
    out.text += fragments[i];
    if (i < parameters.length && !append(parameters[i], out)) return false;
  }
  return true;
}

export class RawFirstQueryCompiler extends PostgresQueryCompiler {
  override compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
    if (node.kind === 'RawNode') {
      const out: Compiled = { text: '', parameters: [] };
      if (append(node as unknown as Node, out)) return { query: node, queryId, sql: out.text, parameters: out.parameters };
    }
    return super.compileQuery(node, queryId);
  }
}
