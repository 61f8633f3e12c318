import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.ts';

/**
 * A request that sends no body to a route that reads one (`curl -X POST …/publish`): when every
 * member of the body is optional, it is the empty object (publish the current version); otherwise
 * a 400 saying that a JSON body is missing, rather than the validator's "must be object".
 */
export function absentBodies(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    if (request.body !== undefined) return;
    const schema = request.routeOptions.schema?.body as { type?: string; required?: string[] } | undefined;
    if (!schema || schema.type !== 'object') return;
    if ((schema.required ?? []).length === 0) {
      request.body = {};
      return;
    }
    throw badRequest(`The request has no body: send a JSON object (content-type: application/json) with ${schema.required!.map((name) => `\`${name}\``).join(', ')}.`, [
      { path: '/', message: 'a JSON body is missing' },
    ]);
  });
}
