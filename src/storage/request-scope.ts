// A request never outlives its caller (DESIGN §6). Each HTTP request runs inside a scope
// (AsyncLocalStorage) that the storage layer sees without every call passing it down: when the
// client goes away before the answer is sent, the statements the request is running on `pg` are
// cancelled by PostgreSQL's cancel request for their backend (prepared.ts), and a statement the
// request would start afterwards is refused at once. The connections involved are closed rather
// than returned to the pool, so a cancel that arrives late can never hit another request's
// statement. PGlite runs statements on this thread and has no cancel: there the scope only
// refuses statements started after the client left.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Something running a statement for the request that can be cancelled. */
export interface Cancellable {
  cancel(): void;
}

export class RequestScope {
  /** The client went away before the answer was sent. */
  closed = false;
  /** Statements running now, on `pg` connections. */
  readonly running = new Set<Cancellable>();

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const statement of this.running) statement.cancel();
    this.running.clear();
  }
}

const scopes = new AsyncLocalStorage<RequestScope>();

/** The scope of the request this code runs for, if any (jobs and startup run outside any). */
export function currentScope(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * Runs `fn` outside any request: for work a request starts that must not end with it
 * (background passes, buffered writes), since what `fn` starts inherits its scope otherwise.
 */
export function outsideRequests<T>(fn: () => T): T {
  return scopes.exit(fn);
}

/** Runs `fn` in `scope` (tests and callers outside Fastify). */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The error a statement gets when its request's client has gone away. */
export class ClientGoneError extends Error {
  readonly code = '57014';
  constructor() {
    super('The client went away; the statement was not run.');
    this.name = 'ClientGoneError';
  }
}

/**
 * Every request of `app` runs its handler in a scope that closes when the connection closes
 * before the answer was written (the client aborted or timed out). A `preHandler` hook: the
 * handler (and every hook after it) runs inside `done`, after the body has been read.
 */
export function registerRequestScopes(app: FastifyInstance): void {
  app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const scope = new RequestScope();
    if (request.raw.socket?.destroyed) scope.close();
    // The response, not the reply: a listener lives as long as the response, and a stream's
    // (realtime) should not keep Fastify's request and reply with it.
    const raw = reply.raw;
    raw.once('close', () => {
      if (!raw.writableFinished) scope.close();
    });
    scopes.run(scope, done);
  });
}
