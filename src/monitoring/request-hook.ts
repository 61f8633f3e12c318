// Where generated-app requests meet the request log: the app's plugin notes, for each request it
// routed, the application, version, route template and caller (noteAppRequest); one onResponse
// hook turns that into a log row and the Prometheus counts once the answer is sent. Requests the
// plugin could not tie to a served version (an unknown app or version) are not logged: they
// belong to no application.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../errors.ts';
import type { RequestLogWriter } from './request-log.ts';
import { observeAppRequest } from './prometheus.ts';

export const UNMATCHED_ROUTE = '(unmatched)';

interface Noted {
  applicationId: string;
  serverVersion: string;
  route: string;
  userId: string | null;
  errorType: string | null;
}

const noted = new WeakMap<FastifyRequest, Noted>();

/** Ties `request` to a served version; returns the note, which the plugin completes (route, user). */
export function noteAppRequest(request: FastifyRequest, applicationId: string, serverVersion: string): Noted {
  const note: Noted = { applicationId, serverVersion, route: UNMATCHED_ROUTE, userId: null, errorType: null };
  noted.set(request, note);
  return note;
}

/**
 * An error the app answered rather than threw (an action's failure as a problem body): its `code`,
 * else its problem type's last segment. Only for statuses of 400 and above.
 */
export function noteAppAnswer(note: Noted, status: number, body: unknown): void {
  if (status < 400) return;
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return;
    }
  }
  const { code, type } = (value ?? {}) as { code?: unknown; type?: unknown };
  if (typeof code === 'string' && code !== '') note.errorType = code.slice(0, 100);
  else if (typeof type === 'string') note.errorType = type.slice(type.lastIndexOf('/') + 1).slice(0, 100);
}

function errorTypeOf(error: Error): string {
  if (error instanceof Problem) return error.type.slice(error.type.lastIndexOf('/') + 1);
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? code : error.name;
}

/** Registers the hooks on the scope serving the generated apps. */
export function trackAppRequests(fastify: FastifyInstance, writer: RequestLogWriter): void {
  fastify.addHook('onError', (request, _reply, error, done) => {
    const note = noted.get(request);
    if (note) note.errorType = errorTypeOf(error);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const note = noted.get(request);
    if (note) {
      const status = reply.statusCode;
      observeAppRequest(note.applicationId, note.serverVersion, note.route, status, reply.elapsedTime / 1000);
      const length = Number(reply.getHeader('content-length'));
      writer.add({
        at: new Date(),
        applicationId: note.applicationId,
        serverVersion: note.serverVersion,
        method: request.method,
        route: note.route,
        status,
        durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
        userId: note.userId,
        bytes: Number.isFinite(length) ? length : null,
        errorType: status >= 400 ? (note.errorType ?? null) : null,
      });
    }
    done();
  });
}
