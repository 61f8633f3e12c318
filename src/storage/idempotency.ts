// `Idempotency-Key` (DESIGN §8): a write sent with a key is answered once; a retry with the
// same key, from the same caller, within 24 h gets the first answer again (status, body and
// headers) and changes nothing more. The key is taken (a row with no status) before the write
// runs, in its own statement, so two copies of one request racing never both run: the second
// is told the first is still running (409). The answer is stored once the write has answered;
// a write that failed (a thrown problem, or a 5xx) changed nothing and frees its key, so a
// retry runs again.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { Problem } from '../errors.ts';
import type { Db } from './db.ts';

/** How long a key answers its first result. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** What a key stores of the first answer. */
export interface StoredAnswer {
  status: number;
  /** The body as sent (JSON text or plain text); null for none. */
  body: string | null;
  headers: Record<string, string>;
}

/** One keyed request: where the key belongs, who sent it, the key, and what was asked. */
export interface KeyedRequest {
  /** What the key belongs to, e.g. `app:<applicationId>` or `publish:<applicationId>`. */
  scope: string;
  /** Who sent it: an end user, an API client or builder, or an anonymous address. */
  caller: string;
  key: string;
  /** The request's method, path and body: the same key with another request is refused. */
  method: string;
  path: string;
  body: unknown;
}

const HEADER = 'Idempotency-Key';
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` of a request, if any; 400 naming the header when it is not 1–255 visible ASCII characters. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | null {
  const value = headers['idempotency-key'];
  if (value === undefined) return null;
  const key = Array.isArray(value) ? value[0] : value;
  if (Array.isArray(value) && value.length > 1) {
    throw new Problem(400, `Send one ${HEADER} header, not ${value.length}.`, [{ path: `headers/${HEADER}`, message: 'given more than once' }]);
  }
  if (!KEY.test(key)) {
    throw new Problem(400, `${HEADER} must be 1 to 255 visible ASCII characters (a UUID, for example).`, [{ path: `headers/${HEADER}`, message: 'not 1 to 255 visible ASCII characters' }]);
  }
  return key;
}

function fingerprintOf(request: KeyedRequest): string {
  const body = request.body === undefined ? '' : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  return createHash('sha256').update(`${request.method} ${request.path}\n${body}`).digest('base64url');
}

/**
 * Runs `write` once per key: the first request with a key runs it and stores its answer; a
 * retry answers the stored one. `write` answering null (an answer not to keep: a file, a stream)
 * or a 5xx, or throwing, frees the key.
 */
export async function once(db: Db, request: KeyedRequest, write: () => Promise<StoredAnswer | null>): Promise<StoredAnswer | null> {
  const fingerprint = fingerprintOf(request);
  const { scope, caller, key } = request;
  // Taken when new, or when the key's first answer has expired (24 h).
  const taken = await sql<{ taken: number }>`
    insert into appbuilder.idempotency_keys (scope, caller, key, fingerprint) values (${scope}, ${caller}, ${key}, ${fingerprint})
    on conflict (scope, caller, key) do update
      set fingerprint = excluded.fingerprint, status = null, body = null, headers = '{}', created_at = now()
      where idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})
    returning 1 as taken`.execute(db.kysely);
  if (taken.rows.length === 0) return replay(db, request, fingerprint);
  let answer: StoredAnswer | null;
  try {
    answer = await write();
  } catch (error) {
    await release(db, request);
    throw error;
  }
  if (answer === null || answer.status >= 500) {
    await release(db, request);
    return answer;
  }
  await sql`
    update appbuilder.idempotency_keys set status = ${answer.status}, body = ${answer.body}, headers = ${JSON.stringify(answer.headers)}::jsonb
    where scope = ${scope} and caller = ${caller} and key = ${key}`.execute(db.kysely);
  return answer;
}

async function release(db: Db, { scope, caller, key }: KeyedRequest): Promise<void> {
  await sql`delete from appbuilder.idempotency_keys where scope = ${scope} and caller = ${caller} and key = ${key} and status is null`.execute(db.kysely);
}

async function replay(db: Db, request: KeyedRequest, fingerprint: string): Promise<StoredAnswer> {
  const { scope, caller, key } = request;
  const found = await sql<{ fingerprint: string; status: number | null; body: string | null; headers: Record<string, string>; age: number }>`
    select fingerprint, status, body, headers, extract(epoch from now() - created_at)::float8 as age
    from appbuilder.idempotency_keys where scope = ${scope} and caller = ${caller} and key = ${key}`.execute(db.kysely);
  const row = found.rows[0];
  // Freed between the two statements (the first request failed): the client may retry at once.
  if (!row) {
    throw new Problem(409, `The first request with this ${HEADER} failed just now and changed nothing; send it again.`, [{ path: `headers/${HEADER}`, message: 'first request failed' }]);
  }
  if (row.fingerprint !== fingerprint) {
    throw new Problem(
      422,
      `This ${HEADER} was used within the last ${IDEMPOTENCY_TTL_HOURS} h for another request (another method, path or body); a key names one request.`,
      [{ path: `headers/${HEADER}`, message: 'already used for another request' }],
    );
  }
  if (row.status === null) {
    const problem = new Problem(
      409,
      row.age < 60
        ? `The first request with this ${HEADER} is still running; retry in a moment.`
        : `The first request with this ${HEADER} started ${Math.round(row.age)} s ago and never answered (its process may have stopped): whether it changed anything is unknown. Read the data, then send any further write with a new key.`,
      [{ path: `headers/${HEADER}`, message: 'first request has not answered' }],
    );
    problem.headers['retry-after'] = '1';
    throw problem;
  }
  return { status: row.status, body: row.body, headers: { ...row.headers, 'idempotent-replayed': 'true' } };
}

/** Forgets keys older than 24 h (the worker's retention pass). */
export async function pruneIdempotencyKeys(db: Db): Promise<number> {
  const result = await sql`delete from appbuilder.idempotency_keys where created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`.execute(db.kysely);
  return Number(result.numAffectedRows ?? 0);
}
