// Envelope encryption (DESIGN §11): AES-256-GCM with a fresh 96-bit nonce and additional
// authenticated data naming the row a ciphertext belongs to, so a ciphertext copied into
// another row (another owner, name or version) fails to open instead of decrypting there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** `v2.nonce.tag.body`, base64url (v1, in tools/secrets.ts, had no additional data). */
const FORMAT = 'v2';

export class SealError extends Error {
  override name = 'SealError';
}

export function seal(plaintext: Buffer | string, key: Buffer, aad: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext), cipher.final()]);
  return [FORMAT, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The plaintext bytes; throws SealError when the key, the additional data or the bytes do not match. */
export function open(sealed: string, key: Buffer, aad: string): Buffer {
  const [format, nonce, tag, body] = sealed.split('.');
  if (format !== FORMAT || !nonce || !tag || body === undefined) throw new SealError('Unknown sealed-value format.');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
  } catch {
    throw new SealError('The sealed value does not open with this key for this row.');
  }
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${FORMAT}.`);
}

/** Additional data of a data key wrapped by the master key. */
export const dataKeyAad = (ownerId: string): string => `data-key:${ownerId}`;

/** Additional data of a variable or secret value: `{ownerId}:{name}:{version}` (DESIGN §11). */
export const valueAad = (ownerId: string, name: string, version: number): string => `${ownerId}:${name}:${version}`;

/** Additional data of an application's end-user token-signing key. */
export const signingKeyAad = (applicationId: string): string => `${applicationId}:app-signing-key`;
