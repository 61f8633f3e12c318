// A walker over the library's syntax tree (`ASTNode` of @marcbachmann/cel-js), plus the small
// queries other modules need: which record fields an expression reads, which functions it calls,
// which variables are free. It follows the tree as written (macros are not expanded).
import type { ASTNode } from '@marcbachmann/cel-js';
import { COMPREHENSION_MACROS } from './limits.ts';

export type { ASTNode };

export interface WalkInfo {
  parent: ASTNode | null;
  /** 0 for the root. */
  depth: number;
  /** How many comprehension macros (all, exists, map, ...) enclose this node. */
  macroDepth: number;
  /** Names bound by enclosing macros (iteration variables, cel.bind), which shadow globals. */
  bound: ReadonlySet<string>;
}

/** Return `false` to skip the children of a node. */
export type Visitor = (node: ASTNode, info: WalkInfo) => void | false;

const NO_BINDINGS: ReadonlySet<string> = new Set();

interface ChildGroup {
  nodes: ASTNode[];
  /** Variable bound for these children, if any. */
  binds?: string;
  /** True when the children are the body of an iterating macro. */
  iterates?: boolean;
}

/** Children of a node, grouped so that macro bodies carry the variable they bind. */
export function childGroups(node: ASTNode): ChildGroup[] {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [{ nodes: [node.args[0]] }];
    case '!_':
    case '-_':
      return [{ nodes: [node.args] }];
    case 'call':
      return [{ nodes: node.args[1] }];
    case 'rcall': {
      const [name, receiver, args] = node.args;
      const first = args[0];
      if (COMPREHENSION_MACROS.has(name) && args.length >= 2 && first?.op === 'id') {
        return [{ nodes: [receiver] }, { nodes: [first] }, { nodes: args.slice(1), binds: first.args, iterates: true }];
      }
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && args.length === 3 && first?.op === 'id') {
        return [{ nodes: [receiver, first, args[1]] }, { nodes: [args[2]], binds: first.args }];
      }
      return [{ nodes: [receiver, ...args] }];
    }
    case 'list':
      return [{ nodes: node.args }];
    case 'map':
      return [{ nodes: node.args.flat() }];
    default:
      // binary operators, '&&', '||', '?:', '[]', '[?]'
      return [{ nodes: node.args as ASTNode[] }];
  }
}

/** Depth-first, pre-order walk. */
export function walk(ast: ASTNode, visitor: Visitor): void {
  const visit = (node: ASTNode, info: WalkInfo): void => {
    if (visitor(node, info) === false) return;
    for (const group of childGroups(node)) {
      let bound = info.bound;
      if (group.binds !== undefined) {
        const next = new Set(bound);
        next.add(group.binds);
        bound = next;
      }
      const macroDepth = info.macroDepth + (group.iterates ? 1 : 0);
      for (const child of group.nodes) visit(child, { parent: node, depth: info.depth + 1, macroDepth, bound });
    }
  };
  visit(ast, { parent: null, depth: 0, macroDepth: 0, bound: NO_BINDINGS });
}

/** Names of `record.<field>` references (record not shadowed by a macro variable), in order of appearance. */
export function recordFieldReferences(ast: ASTNode): string[] {
  const names = new Set<string>();
  walk(ast, (node, info) => {
    if ((node.op === '.' || node.op === '.?') && isGlobal(node.args[0], 'record', info)) names.add(node.args[1]);
  });
  return [...names];
}

/** How an expression reads one global variable whose value is a map (a record). */
export interface VariableUse {
  /** Members named: `v.name`, `v.?name`, `v['name']`, `has(v.name)`. */
  members: Set<string>;
  /** Used some other way: passed, returned, compared, indexed by a computed key. */
  whole: boolean;
}

function isNullLiteral(node: ASTNode): boolean {
  return node.op === 'value' && node.args === null;
}

/**
 * Which members of the global `name` (not shadowed by a macro variable) an expression reads.
 * `name == null` / `name != null` read no member.
 */
export function variableUse(ast: ASTNode, name: string): VariableUse {
  const use: VariableUse = { members: new Set(), whole: false };
  walk(ast, (node, info) => {
    if (!isGlobal(node, name, info) || isBinderPosition(node, info)) return;
    const parent = info.parent;
    if ((parent?.op === '.' || parent?.op === '.?') && parent.args[0] === node) {
      use.members.add(parent.args[1]);
      return;
    }
    if ((parent?.op === '[]' || parent?.op === '[?]') && parent.args[0] === node) {
      const key = parent.args[1];
      if (key.op === 'value' && typeof key.args === 'string') {
        use.members.add(key.args);
        return;
      }
    }
    if ((parent?.op === '==' || parent?.op === '!=') && parent.args.some(isNullLiteral)) return;
    use.whole = true;
  });
  return use;
}

/** Names of the functions and macros called (`size`, `contains`, `exists`, ...). */
export function functionNames(ast: ASTNode): string[] {
  const names = new Set<string>();
  walk(ast, (node) => {
    if (node.op === 'call' || node.op === 'rcall') names.add(node.args[0]);
  });
  return [...names];
}

/** Global variables the expression reads (macro variables excluded). */
export function freeVariables(ast: ASTNode): Set<string> {
  const names = new Set<string>();
  walk(ast, (node, info) => {
    if (node.op === 'id' && !info.bound.has(node.args) && !isBinderPosition(node, info)) names.add(node.args);
  });
  return names;
}

/** Largest depth and macro nesting of a tree. */
export function measure(ast: ASTNode): { depth: number; macroDepth: number } {
  let depth = 0;
  let macroDepth = 0;
  walk(ast, (_node, info) => {
    depth = Math.max(depth, info.depth);
    macroDepth = Math.max(macroDepth, info.macroDepth);
  });
  return { depth, macroDepth };
}

function isGlobal(node: ASTNode, name: string, info: WalkInfo): boolean {
  return node.op === 'id' && node.args === name && !info.bound.has(name);
}

/** The `x` in `list.exists(x, ...)` / `cel.bind(x, ...)` names a variable; it does not read one. */
function isBinderPosition(node: ASTNode, info: WalkInfo): boolean {
  const parent = info.parent;
  if (parent?.op !== 'rcall') return false;
  const [name, , args] = parent.args;
  return args[0] === node && (COMPREHENSION_MACROS.has(name) || name === 'bind');
}
