/**
 * A text document's bytes as text, whatever encoding its author saved it in: the encoding a
 * byte-order mark names; else UTF-8 when the bytes are valid UTF-8; else the encoding a
 * declaration near the top names (`SET NAMES latin1`, `SET client_encoding = 'LATIN1'`,
 * `encoding="iso-8859-1"`, `charset=windows-1252`); else Windows-1252 (a superset of Latin-1's
 * printable characters, what spreadsheets on Windows write), with a warning naming the line
 * and column of the first byte that is not UTF-8. A document is never refused for its bytes.
 * Node's own TextDecoder does the decoding and `buffer.isUtf8` the check: no library.
 */
import { isUtf8 } from 'node:buffer';

export interface DecodedText {
  text: string;
  /** The WHATWG name of the encoding read: `utf-8`, `windows-1252`, `utf-16le`, `utf-16be`. */
  encoding: string;
  /** Set when the bytes were not what the document said or UTF-8: where, and how it was read. */
  warning?: { locator: string; message: string };
}

/** Encodings a declaration may name, as TextDecoder labels; anything else is left to UTF-8 and the fallback. */
const DECLARED: Record<string, string> = {
  latin1: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  iso_8859_1: 'windows-1252',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  win1252: 'windows-1252',
  'iso-8859-15': 'iso-8859-15',
  latin9: 'iso-8859-15',
};

const DECLARATION =
  /(?:\bset\s+names\s+['"]?|\bclient_encoding\s*=\s*['"]|\bencoding\s*=\s*['"]|\bcharset\s*=\s*['"]?)([\w-]+)/i;

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= n) return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** 1-based line and column (in characters of the line, read as Windows-1252) of `offset`. */
function position(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Decodes a text document (see the module's comment). */
export function decodeDocumentText(bytes: Uint8Array): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decodeUtf8(bytes.subarray(3), 3);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  // Valid UTF-8 is UTF-8 whatever a declaration says: Latin-1 text with accents is almost never valid UTF-8.
  if (isUtf8(bytes)) return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8' };
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 4096));
  const declared = DECLARED[DECLARATION.exec(head)?.[1]?.toLowerCase() ?? ''];
  if (declared) return { text: new TextDecoder(declared).decode(bytes), encoding: declared };
  return decodeUtf8(bytes, 0);
}

/** Whether the bytes need decodeDocumentText: not UTF-8, or UTF-16 by their byte-order mark. */
export function needsDecoding(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || !isUtf8(bytes);
}

function decodeUtf8(bytes: Uint8Array, skipped: number): DecodedText {
  if (isUtf8(bytes)) return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8' };
  const bad = firstInvalidUtf8(bytes);
  const { line, column } = position(bytes, bad);
  const byte = bytes[bad].toString(16).toUpperCase().padStart(2, '0');
  return {
    text: new TextDecoder('windows-1252').decode(bytes),
    encoding: 'windows-1252',
    warning: {
      locator: `line ${line}, column ${column}`,
      message: `the document is not valid UTF-8 (first at line ${line}, column ${column}: byte 0x${byte}${skipped ? ' after a UTF-8 byte-order mark' : ''}): read as Windows-1252 (Latin-1)`,
    },
  };
}
