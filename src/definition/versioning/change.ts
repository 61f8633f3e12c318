/** One difference between two definitions, with what it does to the generated API. */
export type Bump = 'patch' | 'minor' | 'major';
export type ChangeKind = 'added' | 'removed' | 'changed';

export interface Change {
  kind: ChangeKind;
  /** JSON pointer into the newer definition (into the older one for `removed`). */
  path: string;
  summary: string;
}

/** A change with its effect on the API: `major` breaks clients, `minor` only grows it, `patch` leaves it alike. */
export interface RatedChange extends Change {
  bump: Bump;
}

const ORDER: Record<Bump, number> = { patch: 0, minor: 1, major: 2 };

export function maxBump(bumps: Iterable<Bump>): Bump {
  let result: Bump = 'patch';
  for (const bump of bumps) if (ORDER[bump] > ORDER[result]) result = bump;
  return result;
}

/** Structural equality of JSON values, member order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** `urn:svc:action:complete-todo` → `complete-todo`. */
export function bare(id: string): string {
  return id.replace(/^urn:svc:[^:]+:/, '');
}

/** Items of two lists matched by key: `[before, after, indexBefore, indexAfter]`, removals first. */
export function matchBy<T>(a: T[], b: T[], key: (item: T) => string) {
  const inB = new Map(b.map((item, i) => [key(item), i]));
  const inA = new Map(a.map((item, i) => [key(item), i]));
  return {
    removed: a.flatMap((item, i) => (inB.has(key(item)) ? [] : [{ item, index: i }])),
    added: b.flatMap((item, i) => (inA.has(key(item)) ? [] : [{ item, index: i }])),
    kept: a.flatMap((before, i) => {
      const j = inB.get(key(before));
      return j === undefined ? [] : [{ before, after: b[j], indexBefore: i, index: j }];
    }),
  };
}

/** Removals first, then additions and changes in the order of the newer list (`index`); stable. */
export function ordered(removed: RatedChange[], rest: { index: number; change: RatedChange }[]): RatedChange[] {
  return [...removed, ...[...rest].sort((x, y) => x.index - y.index).map((r) => r.change)];
}
