/** JSON pointers (RFC 6901) naming members of the definition. */

/** `pointer('models', 0, 'fields', 2, 'to')` → `/models/0/fields/2/to`. */
export function pointer(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
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
