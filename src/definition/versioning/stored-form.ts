/**
 * How a version's definition is stored (DESIGN §8, issue 28): content-addressed blobs shared
 * between the versions of an application, and a small manifest per version.
 *
 * - Every element of a top-level array (a model, an action, a trigger, a requirement, ...) is a
 *   blob; the array becomes `{"$chunks": [hash, ...]}`, each chunk a blob listing up to
 *   CHUNK_SIZE element hashes in order. A one-field edit then stores the edited model, one chunk
 *   and the manifest: what it changed, not the whole definition.
 * - Every other top-level object (domainModel, appDraft, ...) is one blob: `{"$blob": hash}`.
 * - Scalars stay in the manifest. Since every top-level object or array is replaced, a marker
 *   can never be mistaken for a member's own value.
 * A blob's hash is the SHA-256 of its canonical JSON (RFC 8785), so equal content is stored once,
 * and reading a version back (`version_scode` in migration 017, or `rebuild` here) gives the
 * saved definition exactly, after canonical JSON.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { isSealed } from './sealed.ts';

export const CHUNK_SIZE = 64;

export interface Blob {
  hash: string;
  body: unknown;
  /** The body's canonical JSON, when it was computed for the hash (then the body need not be serialised again). */
  json?: string;
}

export type ManifestValue = { $chunks: string[] } | { $blob: string } | string | number | boolean | null;
export type Manifest = Record<string, ManifestValue>;

export interface StoredForm {
  manifest: Manifest;
  /** Every blob the manifest needs (elements and chunks), each hash once. */
  blobs: Blob[];
  /** The size of the definition: the JSON bytes of its blobs (elements and single blobs, not chunks), about its JSON size. */
  bytes: number;
}

/**
 * The hash and JSON size of sealed values (sealed.ts: deeply frozen, so both hold for their
 * lifetime): a definition that shares its unchanged models with the previous one hashes only
 * what changed. Weak: an entry goes with its value.
 */
const known = new WeakMap<object, { hash: string; bytes: number }>();

/** Records the hash and size of a sealed value read back from the store (its blob's hash). */
export function rememberHash(value: unknown, hash: string, bytes: number): void {
  if (isSealed(value)) known.set(value as object, { hash, bytes });
}

/** The canonical JSON (RFC 8785) of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('Not a JSON value');
  return text;
}

/** 128 bits of SHA-256 in base64url: collisions are out of reach, and manifests stay short. */
export function hashOf(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** Splits a definition into its manifest and blobs. */
export function toStoredForm(definition: Record<string, unknown>): StoredForm {
  const blobs = new Map<string, Blob>();
  let bytes = 0;
  // `chunk`: a list of element hashes, not counted in the size.
  const add = (body: unknown, chunk = false): string => {
    const remembered = typeof body === 'object' && body !== null ? known.get(body) : undefined;
    if (remembered) {
      if (!chunk) bytes += remembered.bytes;
      if (!blobs.has(remembered.hash)) blobs.set(remembered.hash, { hash: remembered.hash, body });
      return remembered.hash;
    }
    // A chunk (a list of hashes, base64url strings): its canonical JSON is JSON.stringify's.
    const json = chunk ? JSON.stringify(body) : canonicalJson(body);
    const hash = hashOf(json);
    if (!chunk) bytes += json.length;
    if (isSealed(body)) known.set(body as object, { hash, bytes: json.length });
    if (!blobs.has(hash)) blobs.set(hash, { hash, body, json });
    return hash;
  };
  const manifest: Manifest = {};
  for (const [key, value] of Object.entries(definition)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      const hashes = value.map((item) => add(item));
      const chunks: string[] = [];
      for (let i = 0; i < hashes.length; i += CHUNK_SIZE) chunks.push(add(hashes.slice(i, i + CHUNK_SIZE), true));
      manifest[key] = { $chunks: chunks };
    } else if (typeof value === 'object' && value !== null) {
      manifest[key] = { $blob: add(value) };
    } else {
      manifest[key] = value as string | number | boolean | null;
    }
  }
  return { manifest, blobs: [...blobs.values()], bytes };
}

/** Every blob hash a manifest names directly (chunks and single blobs, not the chunks' elements). */
export function manifestHashes(manifest: Manifest): string[] {
  const out: string[] = [];
  for (const value of Object.values(manifest)) {
    if (typeof value !== 'object' || value === null) continue;
    if ('$chunks' in value) out.push(...value.$chunks);
    else out.push(value.$blob);
  }
  return out;
}

/** The definition a manifest stands for, given a lookup of blob bodies (throws on a missing blob). */
export function rebuild(manifest: Manifest, blob: (hash: string) => unknown): Record<string, unknown> {
  const need = (hash: string): unknown => {
    const body = blob(hash);
    if (body === undefined) throw new Error(`Version blob ${hash} is missing`);
    return body;
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (typeof value !== 'object' || value === null) out[key] = value;
    else if ('$chunks' in value) out[key] = value.$chunks.flatMap((chunk) => (need(chunk) as string[]).map(need));
    else out[key] = need(value.$blob);
  }
  return out;
}
