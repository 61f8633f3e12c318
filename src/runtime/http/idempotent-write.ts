// `Idempotency-Key` on the generated apps' writes (DESIGN §8, storage/idempotency.ts): a
// create, update, delete or batch sent with a key answers its first result to every retry from
// the same caller for 24 h. Sign-up, login and the other `/auth` routes are not keyed: their
// answers carry tokens, which are never stored.
import type { Db } from '../../storage/db.ts';
import { idempotencyKeyOf, once, type StoredAnswer } from '../../storage/idempotency.ts';
import type { Caller } from '../caller.ts';
import type { AppResponse } from './types.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Who sent a keyed request: keys of different callers never meet. */
function callerKey(caller: Caller, address: string): string {
  switch (caller.kind) {
    case 'user':
      return `user:${String(caller.user.id)}`;
    case 'admin':
      return caller.actor ? `${caller.actor.type}:${caller.actor.id}` : 'admin';
    case 'system':
      return 'system';
    default:
      return `address:${address}`;
  }
}

/** The answer as stored: none for a file or a stream (such an answer frees its key). */
function storable(response: AppResponse): StoredAnswer | null {
  if (response.file || response.stream) return null;
  const headers = { ...(response.headers ?? {}) };
  let body: string | null = null;
  if (response.json !== undefined) body = response.json;
  else if (typeof response.body === 'string' && headers['content-type']) body = response.body;
  else if (response.body !== undefined) body = JSON.stringify(response.body);
  // A stored body without a content type is JSON; a plain text keeps its own.
  return { status: response.status, body, headers };
}

function replayed(answer: StoredAnswer): AppResponse {
  const { headers } = answer;
  const serviceHeaders = { 'idempotent-replayed': 'true' };
  const builderHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'idempotent-replayed'));
  if (answer.body === null) return { status: answer.status, headers: builderHeaders, serviceHeaders };
  if (builderHeaders['content-type']) return { status: answer.status, body: answer.body, headers: builderHeaders, serviceHeaders };
  return { status: answer.status, json: answer.body, headers: builderHeaders, serviceHeaders };
}

export interface KeyedAppRequest {
  applicationId: string;
  method: string;
  /** The path with its version, `/api/v1.0.0/toDos`. */
  path: string;
  template: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  caller: Caller;
  address: string;
}

/** Runs `handle` once per `Idempotency-Key` when the request is a keyed write; else simply runs it. */
export async function idempotentWrite(db: Db | undefined, request: KeyedAppRequest, handle: () => Promise<AppResponse>): Promise<AppResponse> {
  if (!db || !WRITES.has(request.method) || request.template.startsWith('/auth')) return handle();
  const key = idempotencyKeyOf(request.headers);
  if (key === null) return handle();
  let response: AppResponse | undefined;
  const answer = await once(
    db,
    { scope: `app:${request.applicationId}`, caller: callerKey(request.caller, request.address), key, method: request.method, path: request.path, body: request.body },
    async () => {
      response = await handle();
      return storable(response);
    },
  );
  return response ?? replayed(answer!);
}
