import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const SIGNED_URL_MAX_SECONDS = 604_800;
export const SIGNED_URL_DEFAULT_SECONDS = 900;

/**
 * Signed download URLs (DESIGN §12): HMAC-SHA256 over the file id, its sha256 and the expiry,
 * with a key derived from the master key. The sha256 is in the signature so replacing the
 * file's bytes invalidates every URL given out for the old ones.
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'appbuilder storage signed urls v1', 32));
  }

  sign(fileId: string, sha256: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${fileId}\n${sha256}\n${expires}`).digest('base64url');
  }

  verify(fileId: string, sha256: string, expires: number, signature: string): boolean {
    const expected = Buffer.from(this.sign(fileId, sha256, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
