import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, methodNotAllowed, type ProblemDetail } from '../errors.ts';
import { trackAllowedMethods } from './allowed-methods.ts';

interface ValidationItem {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

function detailsOf(error: FastifyError): ProblemDetail[] {
  const items = (error.validation ?? []) as ValidationItem[];
  const context = error.validationContext ?? 'body';
  return items.map((item) => {
    const missing = item.params?.missingProperty;
    const pointer = `${item.instancePath}${typeof missing === 'string' ? `/${missing}` : ''}`;
    const where = context === 'body' ? '' : `${context === 'params' ? 'path parameter' : context} `;
    return { path: pointer || '/', message: `${where}${item.message ?? 'is not valid'}` };
  });
}

/**
 * SQLSTATE class 22 (data exception: text with NUL, bad encoding, a number out of range, an
 * invalid date…) is caused by a value of the request: 400, with the code but never the
 * database's own text (it names internals). Anything else from the database, class 54 (program
 * limit exceeded) included, is ours to fix: a 500 with its cause logged.
 */
const CLIENT_SQLSTATE = /^22[0-9A-Z]{3}$/;

function databaseRefusal(error: Error): Problem | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !CLIENT_SQLSTATE.test(code)) return null;
  return new Problem(400, 'The database refused a value of the request: it is out of range or not of the expected form.', [
    { path: '/', message: `refused by the database (SQLSTATE ${code})` },
  ]);
}

/** Media types the route reads: the JSON parser everywhere, form bodies where one is registered. */
function acceptedTypes(request: FastifyRequest): string {
  return request.server.hasContentTypeParser('application/x-www-form-urlencoded')
    ? 'application/json or application/x-www-form-urlencoded'
    : 'application/json';
}

/** Turns every error into `application/problem+json`; the one place errors meet HTTP. */
export function toProblem(error: FastifyError | Problem | Error, request?: FastifyRequest): Problem {
  if (error instanceof Problem) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new Problem(400, 'The request does not match the schema.', detailsOf(fastifyError));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const sent = request?.headers['content-type'] ?? 'no content-type';
      const expected = request ? acceptedTypes(request) : 'application/json';
      return new Problem(415, `The body must be sent as ${expected} (content-type: ${expected.split(' or ')[0]}); it came as ${sent}.`);
    }
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request?.routeOptions.bodyLimit ?? request?.server.initialConfig.bodyLimit;
      return new Problem(413, `The body is larger than the limit of ${limit ?? 'the configured'} bytes (APPBUILDER_BODY_LIMIT).`);
    }
  }
  const refusal = databaseRefusal(error);
  if (refusal) return refusal;
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return new Problem(status, error.message);
  return new Problem(500, 'Something went wrong on our side.');
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
  return reply.status(problem.status).type('application/problem+json').serializer(JSON.stringify).send(problem.toJSON());
}

export function registerProblemHandlers(app: FastifyInstance): void {
  const allowedMethods = trackAllowedMethods(app);
  const noRoute = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    // Matched on the URL as routed; named as sent (routing by Host rewrites an app origin's URLs).
    const sent = request.originalUrl.split('?')[0];
    const allow = allowedMethods(request.url.split('?')[0]);
    if (allow.length > 0) return sendProblem(reply, methodNotAllowed(request.method, sent, allow));
    return sendProblem(reply, new Problem(404, `No route for ${request.method} ${sent}.`));
  };
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A body-carrying method (QUERY) with no route fails at the body parser before the 404 handler runs.
    if (request.is404) return noRoute(request, reply);
    const problem = toProblem(error, request);
    if (problem.status >= 500) request.log.error({ err: error, method: request.method, url: request.url.split('?')[0] }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler(noRoute);
}
