import { randomBytes } from 'node:crypto';

// Random bytes are drawn from the CSPRNG in blocks (as crypto.randomUUID does): one call per
// 400 ids instead of one per id, which showed up in profiles of writes.
const RANDOM_BLOCK = 4000;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

/** A time-ordered UUID (v7): ids sort by creation, which keeps b-tree inserts local. */
export function uuidv7(now = Date.now()): string {
  if (randomOffset + 10 > randomPool.length) {
    randomPool = randomBytes(RANDOM_BLOCK);
    randomOffset = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  randomPool.copy(bytes, 6, randomOffset, randomOffset + 10);
  randomOffset += 10;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `count` UUIDv7s of one moment made at once (one random read, one hex conversion): for bulk writers such as the data import. */
export function uuidv7Batch(count: number, now = Date.now()): string[] {
  const bytes = randomBytes(16 * count);
  for (let at = 0; at < bytes.length; at += 16) {
    bytes.writeUIntBE(now, at, 6);
    bytes[at + 6] = (bytes[at + 6]! & 0x0f) | 0x70;
    bytes[at + 8] = (bytes[at + 8]! & 0x3f) | 0x80;
  }
  const hex = bytes.toString('hex');
  const ids = new Array<string>(count);
  for (let i = 0, at = 0; i < count; i++, at += 32) {
    ids[i] = `${hex.slice(at, at + 8)}-${hex.slice(at + 8, at + 12)}-${hex.slice(at + 12, at + 16)}-${hex.slice(at + 16, at + 20)}-${hex.slice(at + 20, at + 32)}`;
  }
  return ids;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A random token of `bytes` bytes in base64url, for API keys and secrets. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
