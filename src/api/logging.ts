import type { FastifyInstance, FastifyLoggerOptions } from 'fastify';
import type { LoggerOptions } from 'pino';

/** Pino options of the server; `stream` lets tests read the log. */
export interface LogOptions {
  level: string;
  stream?: NodeJS.WritableStream;
}

/** A URL as logged: without its query string (list filters carry personal data, links carry tokens). */
export const pathOnly = (url: string): string => url.split('?')[0];

/**
 * Human-readable single lines on a terminal (pino-pretty, imported only then: a service whose
 * output goes to a file or a collector never loads it, issue 28), JSON lines anywhere else;
 * tokens, keys and cookies redacted; request URLs without their query.
 */
export async function loggerOptions(
  options: LogOptions,
  stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): Promise<FastifyLoggerOptions & LoggerOptions> {
  let stream = options.stream;
  if (!stream && stdout.isTTY) {
    const { default: pretty } = await import('pino-pretty');
    stream = pretty({ destination: stdout, singleLine: true, colorize: stdout === process.stdout, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,reqId,method,url,statusCode,ms' });
  }
  return {
    level: options.level,
    ...(stream ? { stream } : {}),
    redact: ['req.headers.authorization', 'req.headers["x-svc-api-client"]', 'req.headers.cookie'],
    serializers: {
      req: (request: { method: string; url: string }) => ({ method: request.method, url: pathOnly(request.url) }),
    },
  };
}

/**
 * One log entry per answered request, at `debug` (so not under the default `info` of `npm start`):
 * method, path without query, status and time. Failures (5xx) are logged by the error handler instead.
 */
const VERBOSE = new Set(['debug', 'trace']);

export function logRequests(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise on every request's path (issue 43).
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode < 500 && VERBOSE.has(request.log.level)) {
      const url = pathOnly(request.url);
      const ms = Math.round(reply.elapsedTime * 10) / 10;
      request.log.debug({ method: request.method, url, statusCode: reply.statusCode, ms }, `${request.method} ${url} ${reply.statusCode} ${ms} ms`);
    }
    done();
  });
}
