// The query compiler of both drivers: Kysely's PostgreSQL compiler with a short path for the
// statements generated apps run on every request. Those are written with the `sql` tag, a tree of
// raw fragments and bound values only, and compiling one is a walk that joins the fragments and
// numbers the values `$1, $2, …`, exactly what Kysely's compiler makes of these two node kinds.
// Kysely's general visitor (every node kind, freezing what it builds) was a measurable share of an
// action's CPU time (bench/actions). A statement holding any other node (a query builder, an
// identifier node, an inlined literal) is compiled by Kysely as before.
//
// Pieces of SQL built once and used in many statements (an access condition, a record's JSON) can
// be marked with `reusedSql`: the walk then keeps their text between values and reuses it.
import { PostgresQueryCompiler, type CompiledQuery, type QueryId, type RawBuilder, type RootOperationNode } from 'kysely';

type Node = { readonly kind: string } & Readonly<Record<string, unknown>>;

/** SQL as the text between values: `pieces.length === values.length + 1`. */
interface Flat {
  pieces: string[];
  values: unknown[];
}

/** Marked nodes → their flat form once walked (null: not compilable here). */
const reused = new WeakMap<object, Flat | null | undefined>();

/** Marks `builder` as used in many statements (see the top of this file); returns it. */
export function reusedSql<T>(builder: RawBuilder<T>): RawBuilder<T> {
  const node = builder.toOperationNode();
  if (!reused.has(node)) reused.set(node, undefined);
  return builder;
}

/** Appends `node` to `out` (whose last piece is open); false when it holds a node this walk does not compile. */
function append(node: Node, out: Flat): boolean {
  if (node.kind === 'ValueNode') {
    if (node.immediate === true) return false;
    out.values.push(node.value);
    out.pieces.push('');
    return true;
  }
  if (node.kind !== 'RawNode') return false;
  if (reused.has(node)) {
    const flat = flatOf(node);
    if (!flat) return false;
    out.pieces[out.pieces.length - 1] += flat.pieces[0];
    for (let i = 0; i < flat.values.length; i++) {
      out.values.push(flat.values[i]);
      out.pieces.push(flat.pieces[i + 1]);
    }
    return true;
  }
  const fragments = node.sqlFragments as readonly string[];
  const parameters = node.parameters as readonly Node[];
  for (let i = 0; i < fragments.length; i++) {
    out.pieces[out.pieces.length - 1] += fragments[i];
    if (i < parameters.length && !append(parameters[i], out)) return false;
  }
  return true;
}

function flatOf(node: Node): Flat | null {
  let flat = reused.get(node);
  if (flat === undefined) {
    const out: Flat = { pieces: [''], values: [] };
    // Walked as a new node: a marked node never contains itself.
    reused.delete(node);
    flat = append(node, out) ? out : null;
    reused.set(node, flat);
  }
  return flat;
}

export class RawFirstQueryCompiler extends PostgresQueryCompiler {
  override compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
    if (node.kind === 'RawNode') {
      const out: Flat = { pieces: [''], values: [] };
      if (append(node as unknown as Node, out)) {
        let text = out.pieces[0];
        for (let i = 0; i < out.values.length; i++) text += `$${i + 1}${out.pieces[i + 1]}`;
        return { query: node, queryId, sql: text, parameters: out.values };
      }
    }
    return super.compileQuery(node, queryId);
  }
}
