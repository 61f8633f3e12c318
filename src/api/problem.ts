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

/** Turns every error into `application/problem+json`; the one place errors meet HTTP. */
export function toProblem(error: FastifyError | Problem | Error): Problem {
  if (error instanceof Problem) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new Problem(400, 'The request does not match the schema.', detailsOf(fastifyError));
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return new Problem(status, error.message);
  return new Problem(500, 'Something went wrong on our side.');
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.status(problem.status).type('application/problem+json').serializer(JSON.stringify).send(problem.toJSON());
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new Problem(404, `No route for ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
