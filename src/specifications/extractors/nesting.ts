/**
 * The bounds of a JSON or YAML document, checked around its parse (limits.ts). `yaml` takes
 * seconds on a few MiB of deeply nested collections (`[[[[…` a million deep: 14 s, then a stack
 * overflow) and ~35 µs and ~1 KB of heap per node (a flat list of two million numbers: 74 s,
 * 1.8 GB), so a YAML document's length, nodes and nesting are measured first, on the tokens of
 * the library's own lexer (linear, ~100 ms a MiB); a parsed value's nesting is measured without
 * recursion, before the extractors walk it recursively.
 */
import { DOCUMENT_LIMITS, formatCount, pastLimit } from '../limits.ts';
import { ExtractionError } from './types.ts';

type Yaml = typeof import('yaml');

/** Refuses a YAML text longer or more deeply nested than the limits, without parsing it. */
export function checkYamlBounds(text: string, yaml: Yaml): void {
  if (text.length > DOCUMENT_LIMITS.yamlChars) {
    throw pastLimit(
      `the YAML document is ${formatCount(text.length)} characters long (send a longer one as JSON)`,
      DOCUMENT_LIMITS.yamlChars,
      'characters of YAML',
    );
  }
  const shape = yamlShape(text, yaml);
  if (shape.depth > DOCUMENT_LIMITS.nestingDepth) throw tooDeep('the YAML document');
  if (shape.nodes > DOCUMENT_LIMITS.yamlNodes) {
    throw new ExtractionError(`the YAML document holds more values than the limit of ${formatCount(DOCUMENT_LIMITS.yamlNodes)} (send it as JSON)`);
  }
}

function tooDeep(whose: string): ExtractionError {
  return new ExtractionError(`${whose} nests collections deeper than the limit of ${formatCount(DOCUMENT_LIMITS.nestingDepth)} levels`);
}

/** Lexer tokens that mark what follows and stand for no text of the source. */
const MARKERS = new Set(['doc-mode', 'flow-error-end', 'scalar']);

/** Tokens that begin a node: a scalar (plain, quoted, block) or a flow collection; block collections have at least one. */
const NODES = new Set(['scalar', 'single-quoted-scalar', 'double-quoted-scalar', 'flow-seq-start', 'flow-map-start', 'alias']);

/**
 * How many nodes a YAML text holds and how deep its collections nest, counting until either
 * passes its limit: flow collections
 * (`[`, `{`) by their brackets; block collections by indentation, a level for the column of
 * each line's first node and of each node after a `- ` or `? ` indicator (a level at or right
 * of a line's first column closes). A scalar's source is one token, so the text of a block
 * scalar never counts.
 */
function yamlShape(text: string, yaml: Yaml): { depth: number; nodes: number } {
  const blocks: number[] = [];
  let nodes = 0;
  let flow = 0;
  let column = 0;
  let lineStart = true;
  let afterIndicator = false;
  let scalarSource = false;
  let blockScalar = false;
  let deepest = 0;
  for (const token of new yaml.Lexer().lex(text)) {
    const type: string | null = scalarSource ? 'scalar-source' : yaml.CST.tokenType(token);
    scalarSource = type === 'scalar';
    if (type !== null && NODES.has(type) && ++nodes > DOCUMENT_LIMITS.yamlNodes) break;
    if (type !== null && MARKERS.has(type)) continue;
    const at = column;
    const newline = token.lastIndexOf('\n');
    column = newline === -1 ? column + token.length : token.length - newline - 1;
    if (type === 'newline') {
      lineStart = true;
      afterIndicator = false;
      continue;
    }
    if (type === 'space' || type === 'comment') continue;
    if (type === 'block-scalar-header') blockScalar = true;
    if (type === 'scalar-source' && blockScalar) {
      blockScalar = false;
      lineStart = true;
      continue;
    }
    if (type === 'doc-start' || type === 'doc-end') {
      blocks.length = 0;
      flow = 0;
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flow = Math.max(0, flow - 1);
    } else {
      const opens = type === 'flow-seq-start' || type === 'flow-map-start';
      if (flow === 0 && (lineStart || afterIndicator)) {
        if (lineStart) while (blocks.length > 0 && blocks[blocks.length - 1]! >= at) blocks.pop();
        blocks.push(at);
      }
      if (flow === 0) afterIndicator = type === 'seq-item-ind' || type === 'explicit-key-ind';
      if (opens) flow += 1;
    }
    lineStart = false;
    deepest = Math.max(deepest, blocks.length + flow);
    if (deepest > DOCUMENT_LIMITS.nestingDepth) break;
  }
  return { depth: deepest, nodes };
}

/** Refuses a parsed value nested deeper than the limit (walked with a stack, never recursion). */
export function checkNesting(value: unknown): void {
  const limit = DOCUMENT_LIMITS.nestingDepth;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) throw tooDeep('the document');
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
