// The two transports of DESIGN §17 on every served version: `GET {app api}/realtime?subscribe=…`
// (Server-Sent Events) and `GET {app api}/realtime/ws` (WebSocket, @fastify/websocket). Both
// authenticate as every app route (bearer header, or `?token=` for EventSource, which cannot set
// headers: the request log keeps paths only, api/logging.ts), and hand their connection to the hub.
// Opening a stream counts in the app rate limit like any request, and holds a slot (stream-slots.ts)
// per address, application and end user until it closes: 429 beyond, with Retry-After.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { Socket } from 'node:net';
import { decodeJwt } from 'jose';
import { methodNotAllowed, notFound, Problem, unauthorized } from '../errors.ts';
import type { Caller } from '../runtime/caller.ts';
import type { DeploymentRegistry, ServedApp } from '../runtime/registry.ts';
import type { EndUserAuth } from '../runtime/http/end-user-auth.ts';
import { admitBuilder, hasManagementCredentials, type BuilderOf } from '../runtime/http/app-caller.ts';
import type { AccessClaims } from '../runtime/accounts/sessions.ts';
import { UPLOAD_PATH } from '../runtime/http/upload-route.ts';
import { addressKey, type AppRateLimits } from '../runtime/http/rate-limits.ts';
import { outsideRequests } from '../storage/request-scope.ts';
import type { Connection, OutEvent, RealtimeHub } from './hub.ts';
import type { Audience } from './visibility.ts';
import type { StreamSlot } from './stream-slots.ts';
import type { AppOrigins } from '../tools/app-origin.ts';

export interface RealtimeRouteOptions {
  appsPath: string;
  registry: DeploymentRegistry;
  auth: EndUserAuth;
  hub: RealtimeHub;
  /** The holder of the management credentials these headers carry (role, projects); throws 401 when they are bad. */
  builderPrincipal: BuilderOf;
  publicUrl?: string | null;
  /** APPBUILDER_APP_RATE_LIMIT's counts, shared with the app routes: opening a stream is a request. */
  rateLimits?: AppRateLimits;
  /** Each application's own origin: a stream opened there gives file URLs on it. */
  origins?: AppOrigins;
}

/** Who subscribes, resolved before the stream opens (so refusals are ordinary problem answers). */
interface Subscriber {
  served: ServedApp;
  applicationId: string;
  caller: Caller;
  token: string | null;
  /** The end user's verified claims: checked again for revocation while the connection lasts. */
  claims: AccessClaims | null;
  audience: Audience;
  topics: string[];
  lastEventId: number | null;
  slot: StreamSlot;
}

const VERSION = /^v(\d+\.\d+\.\d+)$/;
type Query = { subscribe?: string; token?: string; lastEventId?: string };
type Params = { applicationId: string; version: string };

function topicsOf(value: string | undefined): string[] {
  return [...new Set((value ?? '').split(',').map((t) => t.trim()).filter(Boolean))];
}

function lastEventIdOf(request: FastifyRequest): number | null {
  const header = request.headers['last-event-id'];
  const value = (Array.isArray(header) ? header[0] : header) ?? (request.query as Query).lastEventId;
  if (value === undefined || value === '') return null;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Problem(400, 'Last-Event-ID must be the id of an event this stream sent.', [{ path: '/lastEventId', message: 'is not an event id' }]);
  return n;
}

/** `sse`: the SSE route, whose topics are all in the query (a WebSocket may subscribe later). */
async function subscriberOf(request: FastifyRequest, reply: FastifyReply, options: RealtimeRouteOptions, sse: boolean): Promise<Subscriber> {
  options.rateLimits?.anonymous(request, reply);
  const { applicationId, version } = request.params as Params;
  const serverVersion = VERSION.exec(version)?.[1];
  const served = serverVersion && /^[0-9a-f-]{36}$/i.test(applicationId) ? await options.registry.resolve(applicationId, serverVersion) : null;
  if (!served) {
    options.rateLimits?.unserved(request, reply);
    throw notFound(`No published version ${version} of application ${applicationId}.`);
  }
  const query = request.query as Query;
  const origin = (options.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  const onOwnOrigin = options.origins?.applicationOf(request.headers.host) != null;
  const appBase = onOwnOrigin ? options.origins!.of(applicationId) : `${origin}${options.appsPath}/${applicationId}`;
  const filesUrl = `${appBase}/api/v${served.compiled.serverVersion}${UPLOAD_PATH}/`;
  const token: string | null = hasManagementCredentials(request) ? null : (/^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? query.token ?? null);
  let claims: AccessClaims | null = null;
  const resolveCaller = async (): Promise<Caller> => {
    if (hasManagementCredentials(request)) {
      // Management credentials act as the app's administrator (rules bypassed), as on every app
      // route, when their customer, projects and role admit them: a stream is a read (viewer and up).
      admitBuilder(await options.builderPrincipal(request), served, true, 'A realtime stream');
      return { kind: 'admin' };
    }
    if (!token) return { kind: 'anonymous' };
    const verified = await options.auth.verifyWithClaims(served.compiled, token);
    if (!verified) throw unauthorized('The token is not valid for this application (expired, revoked or another app\'s); log in again.');
    claims = verified.claims;
    return { kind: 'user', user: verified.user };
  };
  const caller = await (options.rateLimits ? options.rateLimits.caller(request, reply, resolveCaller) : resolveCaller());
  const who = caller.kind === 'user' ? `user ${JSON.stringify(caller.user)}` : caller.kind;
  const audience: Audience = { key: kept(`${who} ${filesUrl}`), auth: caller.kind === 'user' ? caller.user : null, bypassRules: caller.kind === 'admin', filesUrl: kept(filesUrl) };
  const topics = topicsOf(query.subscribe);
  if (sse && topics.length === 0) throw new Problem(400, 'Name at least one topic: ?subscribe=toDos,users/{id}.', [{ path: '/subscribe', message: 'is required' }]);
  options.hub.checkTopics(served.compiled, topics);
  const lastEventId = lastEventIdOf(request);
  // Last: nothing after it refuses the stream. The slot is given back when the socket closes,
  // whichever way (also when the stream never opened), or when the hub detaches the connection.
  const slot = options.hub.slots.take(applicationId, addressKey(request.ip), caller.kind === 'user' ? String(caller.user.id) : null, reply);
  const socket = request.raw.socket;
  if (socket.destroyed) slot.release();
  else socket.once('close', () => slot.release());
  return { served, applicationId, caller, token, claims, audience, topics, lastEventId, slot };
}

/** Milliseconds until the token's `exp` (null: none). */
function msToExpiry(token: string | null): number | null {
  if (!token) return null;
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? Math.max(0, exp * 1000 - Date.now()) : null;
  } catch {
    return null;
  }
}

/**
 * A string built from pieces, as one piece: a string a connection keeps while it lasts would
 * otherwise stay a tree of its pieces (V8's cons strings, 32 bytes a node).
 */
function kept(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function connectionBase(s: Subscriber, options: RealtimeRouteOptions, io: { write(e: OutEvent): boolean; end(reason: string): void }): Connection {
  // What the connection's closures need, not the Subscriber (its token and request values).
  const { served, claims } = s;
  const connection: Connection = {
    applicationId: s.applicationId,
    served: s.served,
    audience: s.audience,
    userId: s.caller.kind === 'user' ? String(s.caller.user.id) : null,
    topics: new Set(s.topics),
    write: io.write,
    end: io.end,
    // Revocation only: the signature was checked at connection, the expiry has its timer.
    stillValid: async () => !claims || (await options.auth.stillLive(served.compiled, claims)) !== null,
    lastSent: 0,
    held: null,
    slot: s.slot,
  };
  const expiry = msToExpiry(s.token);
  // Past its token's expiry a subscriber is disconnected (a timer can wait at most ~24.8 days).
  if (expiry !== null && expiry < 2 ** 31 - 1) {
    connection.expiryTimer = setTimeout(() => connection.end('the token expired'), expiry);
    connection.expiryTimer.unref();
  }
  return connection;
}

/** The answer's head, then a first comment (so the client sees the stream open at once). */
const SSE_HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\nconnection: close\r\nx-accel-buffering: no\r\n\r\n: connected\n\n';

function sseText(event: OutEvent): string {
  if (event.kind === 'ping') return ': ping\n\n';
  if (event.kind === 'reset') return 'event: reset\ndata: {"reason":"the events since Last-Event-ID are past the retention; reload"}\n\n';
  return `id: ${event.id}\nevent: ${event.action}\ndata: ${JSON.stringify({ resource: event.resource, action: event.action, record: event.record })}\n\n`;
}

function wsText(event: Exclude<OutEvent, { kind: 'ping' }>): string {
  if (event.kind === 'reset') return JSON.stringify({ type: 'reset' });
  return JSON.stringify({ id: event.id, resource: event.resource, action: event.action, record: event.record });
}

/** The events of one SSE stream, written to its socket until it closes or is ended. */
function streamEvents(socket: Socket, s: Subscriber, options: RealtimeRouteOptions): Promise<void> {
  const { hub } = options;
  let open = true;
  const end = (reason: string) => {
    if (!open) return;
    open = false;
    hub.detach(connection);
    socket.end(`event: close\ndata: ${JSON.stringify({ reason })}\n\n`);
    // A slow consumer's socket may never drain: do not wait for it.
    setTimeout(() => socket.destroy(), 1000).unref();
  };
  const connection = connectionBase(s, options, {
    write: (event) => {
      if (!open) return false;
      socket.write(sseText(event));
      // A consumer that does not read: dropped, never buffered without bound (a final event
      // would wait behind what it has not read, so the socket is destroyed).
      if (socket.writableLength > hub.settings.maxBufferedBytes) {
        open = false;
        hub.dropSlow(connection, socket.writableLength);
        socket.destroy();
        return false;
      }
      return true;
    },
    end,
  });
  socket.on('close', () => {
    open = false;
    hub.detach(connection);
  });
  return hub.attach(connection, s.lastEventId);
}

export function realtimeRoutes(options: RealtimeRouteOptions) {
  const { hub } = options;
  const subscribers = new WeakMap<FastifyRequest, Subscriber>();
  const base = `${options.appsPath}/:applicationId/api/:version/realtime`;
  return async (fastify: FastifyInstance): Promise<void> => {
    hub.adoptLogger(fastify.log);
    await fastify.register(websocket, { options: { maxPayload: 64 * 1024 } });
    // Before the stream opens or the socket upgrades: refusals are problem answers (401, 404, 400, 429).
    const preValidation = (sse: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
      if (!sse && request.headers.upgrade?.toLowerCase() !== 'websocket') {
        reply.header('upgrade', 'websocket');
        throw new Problem(426, 'This route opens a WebSocket: send the request as a WebSocket upgrade (or use GET …/realtime for Server-Sent Events).');
      }
      subscribers.set(request, await subscriberOf(request, reply, options, sse));
    };
    // Only GET opens a stream: the other methods answer 405 with Allow, not the app router's 404.
    for (const url of [base, `${base}/ws`]) {
      fastify.route({
        method: ['POST', 'PUT', 'PATCH', 'DELETE'],
        url,
        schema: { hide: true },
        handler: async (request) => {
          throw methodNotAllowed(request.method, request.originalUrl.split('?')[0], ['GET', 'HEAD']);
        },
      });
    }

    fastify.get(base, { schema: { hide: true }, preValidation: preValidation(true) }, async (request, reply) => {
      const s = subscribers.get(request)!;
      // The stream leaves Node's and Fastify's objects for the request (its ServerResponse, and
      // through that Fastify's reply, request and logger: ~4 KB a subscriber, held while it stays
      // open): the head and the events go to the socket, which the response is detached from.
      // `connection: close` ends the body with the connection (no chunked encoding to keep up).
      // Fastify's onResponse hooks (the request log, the HTTP metrics) do not run for a stream;
      // the realtime metrics count its connections.
      reply.hijack();
      const socket = reply.raw.socket;
      if (!socket || socket.destroyed) return;
      socket.write(SSE_HEAD);
      reply.raw.detachSocket(socket);
      // No longer a request: what the stream starts (its timers, its replay) does not keep the
      // request's scope, which would never close now that the response is detached.
      await outsideRequests(() => streamEvents(socket, s, options));
    });

    fastify.get(`${base}/ws`, { websocket: true, schema: { hide: true }, preValidation: preValidation(false) }, (socket, request) => {
      const s = subscribers.get(request)!;
      const send = (message: object) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(message));
      const connection = connectionBase(s, options, {
        write: (event) => {
          if (socket.readyState !== socket.OPEN) return false;
          if (event.kind === 'ping') socket.ping();
          else socket.send(wsText(event));
          if (socket.bufferedAmount > hub.settings.maxBufferedBytes) {
            hub.dropSlow(connection, socket.bufferedAmount);
            socket.terminate();
            return false;
          }
          return true;
        },
        end: (reason) => {
          hub.detach(connection);
          if (socket.readyState === socket.OPEN) socket.close(4401, reason.slice(0, 120));
        },
      });
      socket.on('message', (data) => {
        let message: { type?: unknown; topics?: unknown };
        try {
          message = JSON.parse(String(data)) as typeof message;
        } catch {
          send({ type: 'error', status: 400, detail: 'Messages are JSON: {"type":"subscribe","topics":[…]}.' });
          return;
        }
        const topics = Array.isArray(message.topics) ? message.topics.filter((t): t is string => typeof t === 'string') : [];
        if (message.type === 'subscribe') {
          const fresh = topics.filter((t) => !connection.topics.has(t));
          try {
            hub.checkTopics(s.served.compiled, fresh, connection.topics.size);
          } catch (error) {
            const problem = error as Problem;
            send({ type: 'error', status: problem.status ?? 400, detail: problem.message, errors: problem.errors ?? [] });
            return;
          }
          hub.subscribe(connection, fresh);
          send({ type: 'subscribed', topics: [...connection.topics] });
        } else if (message.type === 'unsubscribe') {
          hub.unsubscribe(connection, topics);
          send({ type: 'unsubscribed', topics: [...connection.topics] });
        } else {
          send({ type: 'error', status: 400, detail: 'type is subscribe or unsubscribe.' });
        }
      });
      socket.on('close', () => hub.detach(connection));
      void hub.attach(connection, s.lastEventId).catch(() => socket.terminate());
    });
  };
}
