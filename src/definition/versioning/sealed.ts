/**
 * Sealed definitions (issue 28): a definition kept between requests (the per-process cache of
 * services/applications/definition-cache.ts) is deeply frozen, so the edits that share its
 * unchanged models, actions, ... with the next definition (structural sharing) can never change
 * it by mistake: a write throws instead.
 *
 * Sealing also makes a definition look exactly as it does when read back from the store (a
 * `jsonb` value parsed by the driver): JSON values only (what JSON.stringify would drop or turn
 * into null is dropped or null), and each object's members in `jsonb`'s order (shorter keys
 * first, then byte order). A definition is the same object graph whether this process edited it
 * or read it back, so whatever reads it in member order (problems listed in that order, answers)
 * behaves the same in every process.
 *
 * Only the parts not sealed yet are copied: sealing the result of an edit costs what the edit
 * changed.
 */

const sealedNodes = new WeakSet<object>();

/** Whether `value` is a sealed object (deeply frozen, JSON-normalised). */
export function isSealed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && sealedNodes.has(value);
}

/** A sealed copy of the JSON value `value`: its sealed parts are shared, the rest copied in `jsonb` member order and frozen. */
export function seal<T>(value: T): T {
  return sealValue(value) as T;
}

/**
 * Seals, in place, a value fresh from `JSON.parse` of `jsonb` text (members already in `jsonb`'s
 * order, JSON values only): nothing is copied. The value must not be shared with anything else.
 */
export function sealParsed<T>(value: T): T {
  freezeParsed(value);
  return value;
}

function freezeParsed(value: unknown): void {
  if (typeof value !== 'object' || value === null || sealedNodes.has(value)) return;
  if (Array.isArray(value)) for (const item of value) freezeParsed(item);
  else for (const key in value) freezeParsed((value as Record<string, unknown>)[key]);
  Object.freeze(value);
  sealedNodes.add(value);
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function sealValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // -0 → 0, as JSON has it
  if (typeof value !== 'object' || value === null) return value;
  if (sealedNodes.has(value)) return value;
  // Dates and other objects with toJSON: their JSON, as the store would keep it.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return sealValue(JSON.parse(JSON.stringify(value)));
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    out = value.map((item) => (isOmitted(item) ? null : sealValue(item)));
  } else {
    const source = value as Record<string, unknown>;
    const record: Record<string, unknown> = {};
    for (const key of jsonbKeyOrder(Object.keys(source).filter((k) => !isOmitted(source[k])))) record[key] = sealValue(source[key]);
    out = record;
  }
  Object.freeze(out);
  sealedNodes.add(out);
  return out;
}

/** `jsonb`'s member order: by length in UTF-8 bytes, then by bytes. */
export function jsonbKeyOrder(keys: string[]): string[] {
  if (keys.every(isAscii)) return keys.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const bytes = new Map(keys.map((k) => [k, Buffer.from(k, 'utf8')]));
  return keys.sort((a, b) => {
    const [x, y] = [bytes.get(a)!, bytes.get(b)!];
    return x.length - y.length || Buffer.compare(x, y);
  });
}

const ASCII = /^[\x00-\x7f]*$/;
function isAscii(key: string): boolean {
  return ASCII.test(key);
}
