// A small LRU map: Map keeps insertion order, so re-inserting on read makes the first key the
// least recently used one. Its size can grow with what it serves (`reserve`: sized to the
// largest application seen, issue 28) up to a ceiling fixed at construction, so it never grows
// without bound.

export class LruCache<K, V> {
  readonly #map = new Map<K, V>();
  #maxEntries: number;
  readonly ceiling: number;

  constructor(maxEntries: number, ceiling = maxEntries) {
    if (!(maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.#maxEntries = maxEntries;
    this.ceiling = Math.max(maxEntries, ceiling);
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  /** Makes room for at least `entries` (never past the ceiling, never shrinking). */
  reserve(entries: number): void {
    this.#maxEntries = Math.max(this.#maxEntries, Math.min(this.ceiling, Math.ceil(entries)));
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#maxEntries) {
      const oldest = this.#map.keys().next().value as K;
      this.#map.delete(oldest);
    }
  }

  getOrCreate(key: K, create: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = create();
    this.set(key, value);
    return value;
  }

  delete(key: K): void {
    this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }
}
