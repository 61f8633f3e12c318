import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.ts';

/**
 * A request that sends no body to a route that reads one (`curl -X POST …/publish`): a 400 saying
 * that a JSON body is missing (and which members it needs, or that `{}` will do), rather than the
 * validator's "must be object". The documents mark every such body required, so none is assumed.
 */
export function absentBodies(scope: FastifyInstance): void {
  scope.addHook('preValidation', async (request) => {
    if (request.body !== undefined) return;
    const schema = request.routeOptions.schema?.body as { type?: string; required?: string[] } | undefined;
    if (!schema || schema.type !== 'object') return;
    const required = schema.required ?? [];
    const needs = required.length > 0 ? `with ${required.map((name) => `\`${name}\``).join(', ')}` : '(`{}` when every member is left to its default)';
    throw badRequest(`The request has no body: send a JSON object (content-type: application/json) ${needs}.`, [{ path: '/', message: 'a JSON body is missing' }]);
  });
}
