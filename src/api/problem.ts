import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Problem, type ProblemDetail } from '../errors.ts';

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
 * SQLSTATE classes a request's values cause: 22 data exception (text with NUL, bad encoding, a
 * number out of range, an invalid date or regular expression…) and 54 program limit exceeded
 * (a value too large for an index). The request is wrong, not the service.
 */
const CLIENT_SQLSTATE = /^(22|54)[0-9A-Z]{3}$/;

function databaseRefusal(error: Error): Problem | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !CLIENT_SQLSTATE.test(code)) return null;
  return new Problem(400, `The database refused a value of the request: ${error.message}.`, [{ path: '/', message: `refused by the database (SQLSTATE ${code})` }]);
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
  return reply.status(problem.status).type('application/problem+json').serializer(JSON.stringify).send(problem.toJSON());
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(error, request);
    if (problem.status >= 500) request.log.error({ err: error, method: request.method, url: request.url.split('?')[0] }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    // The URL as sent (before routing by Host rewrote it).
    sendProblem(reply, new Problem(404, `No route for ${request.method} ${request.originalUrl.split('?')[0]}.`)),
  );
}
