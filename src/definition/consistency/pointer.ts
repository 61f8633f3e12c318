/** JSON pointers (RFC 6901) naming members of the definition. */

/** `pointer('models', 0, 'fields', 2, 'to')` → `/models/0/fields/2/to`. */
export function pointer(...segments: (string | number)[]): string {
  let out = '';
  for (const segment of segments) out += `/${typeof segment === 'number' ? segment : escapeSegment(segment)}`;
  return out;
}

/** Validation names every member it checks: escaping only where a `~` or `/` is. */
function escapeSegment(segment: string): string {
  return segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
}

/** Indices of the entries whose key was already seen, each with the index of its first occurrence. */
export function duplicates<T>(items: readonly T[], key: (item: T) => string | undefined): { index: number; first: number }[] {
  const seen = new Map<string, number>();
  const out: { index: number; first: number }[] = [];
  items.forEach((item, index) => {
    const k = key(item);
    if (k === undefined) return;
    const first = seen.get(k);
    if (first === undefined) seen.set(k, index);
    else out.push({ index, first });
  });
  return out;
}
