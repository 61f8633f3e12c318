import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, type ProblemDetail } from '../errors.ts';

/**
 * The one JSON body parser of the service (management API and generated apps). Besides syntax it
 * refuses, with 400 and the JSON pointer of the value, what no handler and no database can take:
 * NUL characters and unpaired surrogates (PostgreSQL text and jsonb hold neither), `__proto__`
 * members and `constructor.prototype` (as secure-json-parse did), and nesting deeper than
 * MAX_DEPTH (recursive walks further on would overflow the stack).
 */

export const MAX_DEPTH = 64;

/** application/json and every `application/…+json`. */
export const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json(?:\s*;.*)?$/i;

const pointerPart = (key: string | number): string => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

function textTrouble(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which text cannot hold';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) return 'contains an unpaired UTF-16 surrogate, which is not valid Unicode';
  return null;
}

/** Recursion is bounded by MAX_DEPTH; `path` is the way down, turned into a pointer only on refusal. */
function check(value: unknown, depth: number, path: (string | number)[]): string | null {
  if (typeof value === 'string') return textTrouble(value);
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return `nests deeper than ${MAX_DEPTH} levels`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null || (typeof item !== 'object' && typeof item !== 'string')) continue;
      path.push(i);
      const trouble = check(item, depth + 1, path);
      if (trouble) return trouble;
      path.pop();
    }
    return null;
  }
  for (const key in value) {
    path.push(key);
    const keyTrouble = textTrouble(key);
    if (keyTrouble) return `is a member name that ${keyTrouble}`;
    if (key === '__proto__') return 'is a prototype member name, which is refused';
    const member = (value as Record<string, unknown>)[key];
    if (key === 'constructor' && typeof member === 'object' && member !== null && Object.hasOwn(member, 'prototype')) {
      return 'is a constructor with a prototype member, which is refused';
    }
    const trouble = check(member, depth + 1, path);
    if (trouble) return trouble;
    path.pop();
  }
  return null;
}

/** The first value of `body` the service refuses, with its JSON pointer, or null. */
export function hostileValue(body: unknown): ProblemDetail | null {
  const path: (string | number)[] = [];
  const trouble = check(body, 0, path);
  if (!trouble) return null;
  return { path: path.length === 0 ? '/' : path.map((part) => `/${pointerPart(part)}`).join(''), message: trouble };
}

/**
 * Where `text` stops being JSON: the offset of the first character no JSON text can have there
 * (the length when it ends too early). Run only after JSON.parse failed; iterative.
 */
export function syntaxErrorOffset(text: string): number {
  const n = text.length;
  const containers: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return ++i > 0;
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return (i += 2), false;
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else return (i += 1), false;
      } else i++;
    }
    return false;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const scalar = (): boolean => {
    const c = text[i];
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return (i = NUMBER.lastIndex), true;
    for (const literal of ['true', 'false', 'null']) if (text.startsWith(literal, i)) return (i += literal.length), true;
    return false;
  };
  let state: 'value' | 'key' | 'after' = 'value';
  for (;;) {
    ws();
    if (state === 'value') {
      const c = text[i];
      if (c === '[' || c === '{') {
        containers.push(c);
        i++;
        ws();
        if (text[i] === (c === '[' ? ']' : '}')) {
          containers.pop();
          i++;
          state = 'after';
        } else state = c === '[' ? 'value' : 'key';
      } else if (scalar()) state = 'after';
      else return i;
    } else if (state === 'key') {
      if (text[i] !== '"' || !string()) return i;
      ws();
      if (text[i] !== ':') return i;
      i++;
      state = 'value';
    } else {
      const top = containers.at(-1);
      if (top === undefined) return i < n ? i : -1;
      if (text[i] === ',') {
        i++;
        state = top === '{' ? 'key' : 'value';
      } else if (text[i] === (top === '[' ? ']' : '}')) {
        containers.pop();
        i++;
      } else return i;
    }
  }
}

/** The 400 for a body that is not JSON, naming line, column and offset. */
export function syntaxProblem(text: string) {
  const offset = Math.max(0, syntaxErrorOffset(text));
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const what = offset >= text.length ? 'the body ends too early' : `unexpected ${JSON.stringify(text[offset])}`;
  return badRequest(`The body is not valid JSON: ${what} at line ${line}, column ${column} (position ${offset}).`, [
    { path: '/', message: `is not valid JSON at position ${offset}` },
  ]);
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw badRequest('The body is empty although content-type says JSON: send a JSON value, or no content-type.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw syntaxProblem(text);
  }
  const hostile = hostileValue(body);
  if (hostile) throw badRequest('The body holds a value the service refuses.', [hostile]);
  return body;
}

/** Replaces every body parser of `app` by the JSON one: any other content type is answered 415. */
export function useJsonBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string' }, (_request: FastifyRequest, text: string | Buffer, done) => {
    try {
      done(null, parseJsonBody(text.toString()));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
