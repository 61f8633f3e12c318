// Static and runtime limits (DESIGN §5: no regex, bounded macro nesting and list sizes, a step
// budget per evaluation). Exported so callers can show them in docs and errors.

/** Maximum source length in UTF-8 bytes. */
export const MAX_SOURCE_BYTES = 4096;
/** Parser nesting limit (parentheses, calls, selections, list/map literals). */
export const MAX_PARSE_DEPTH = 32;
/**
 * Depth of the syntax tree. Long `a && b && ...` chains are flat for the parser but deep as a
 * tree; the library checks and evaluates recursively, so this keeps the JS stack safe.
 */
export const MAX_TREE_DEPTH = 100;
/** Comprehension macros (all, exists, exists_one, map, filter) nested inside each other. */
export const MAX_MACRO_NESTING = 3;
/** Elements of a list literal / entries of a map literal in the source. */
export const MAX_LITERAL_ELEMENTS = 256;

/** Default evaluation budget: every evaluated syntax node costs one step. */
export const DEFAULT_STEP_BUDGET = 100_000;
/** Default wall-time budget per evaluation (checked every few hundred steps). */
export const DEFAULT_TIME_BUDGET_MS = 250;
/** Largest string an expression may build (concatenation, functions). */
export const MAX_RESULT_STRING_LENGTH = 100_000;
/** Largest list an expression may build (concatenation, map/filter). */
export const MAX_RESULT_LIST_LENGTH = 10_000;

/** Functions refused at compile time, with the reason shown to the builder. */
export const FORBIDDEN_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['matches', 'matches() is not allowed: regular expressions can take exponential time (use contains, startsWith or endsWith)'],
]);

/** Macros that iterate (they count towards MAX_MACRO_NESTING). */
export const COMPREHENSION_MACROS: ReadonlySet<string> = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
