// Compressed answers (issue 43): a JSON answer of the generated API above COMPRESS_MIN_BYTES goes
// out as br or gzip when the request's Accept-Encoding takes one (q-values honoured by
// @fastify/accept-negotiator; br preferred when both are equally welcome). Below that size it goes
// as it is: under one TCP segment (~1,400 bytes) compression saves no round trip and costs some
// 0.1 ms of CPU (docs/read-path.md has the measurements). The settings are the fast ones (brotli
// quality 4, gzip level 1): a list of 20 to-dos (13 KB) shrinks 10× at a fraction of the
// request's CPU, where the defaults (brotli 11, gzip 6) would cost several times more for a few
// per cent. An answer whose handler set its own encoding or entity tag is left alone.
import negotiate from '@fastify/accept-negotiator';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Answers shorter than this (in bytes) are never compressed. */
export const COMPRESS_MIN_BYTES = 1400;

const ENCODINGS = ['br', 'gzip'];

export interface Compressed {
  encoding: string;
  body: Buffer;
}

/** `text` compressed for a request that sent `acceptEncoding`; null when it is not to be. */
export function compressFor(text: string, acceptEncoding: string | string[] | undefined): Compressed | null {
  if (typeof acceptEncoding !== 'string' || text.length < COMPRESS_MIN_BYTES) return null;
  const encoding = negotiate(acceptEncoding, ENCODINGS);
  if (encoding === null) return null;
  const raw = Buffer.from(text);
  if (raw.length < COMPRESS_MIN_BYTES) return null;
  const body =
    encoding === 'br'
      ? brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
      : gzipSync(raw, { level: 1 });
  return { encoding, body };
}

/** `vary` with `accept-encoding` added (once). */
export function varyOnEncoding(vary: unknown): string {
  const current = Array.isArray(vary) ? vary.join(', ') : typeof vary === 'string' ? vary : '';
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(current)) return current;
  return current === '' ? 'accept-encoding' : `${current}, accept-encoding`;
}
