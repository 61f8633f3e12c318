import type { IncomingHttpHeaders } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import parsePreferHeader from 'parse-prefer-header';
import type { Principal } from '../../services/tokens.ts';
import type { Services } from '../../services/index.ts';
import type { ChangeOptions, DefinitionChange } from '../../services/applications/service.ts';
import type { Application } from '../../services/applications/view.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { problemResponses } from '../schemas.ts';
import { ApplicationSchema } from './application-schemas.ts';
import { ifMatchOf } from '../if-match.ts';

/** The 204 of `Prefer: return=minimal` (RFC 7240): the new version in headers, no body. */
export const MinimalEditResponse = Type.Null({
  description:
    'Sent with `Prefer: return=minimal`: no body; `ETag` is the new serverVersion (quoted, for a following `If-Match`), `serverVersion` the same unquoted, `Preference-Applied: return=minimal`.',
});

/** Route options shared by every definition edit: they all answer the updated Application (or 204 when asked). */
export function editRouteSchema(tag: string, operationId: string, summary: string) {
  return {
    tags: [tag],
    security: MANAGEMENT_SECURITY,
    operationId,
    summary,
    response: { 200: ApplicationSchema, 204: MinimalEditResponse, ...problemResponses(404, 409, 412) },
  };
}

/** Whether the request's `Prefer` header asks for `return=minimal`. */
export function prefersMinimal(headers: IncomingHttpHeaders): boolean {
  return parsePreferHeader(headers.prefer).return === 'minimal';
}

/**
 * Runs one change and answers it: the whole Application (the spec's answer), or with
 * `Prefer: return=minimal` a 204 whose headers name the new version, without reading the
 * Application back. Both carry `ETag` (the serverVersion, as `If-Match` takes it).
 */
export async function answerChange(
  services: Services,
  request: { principal: Principal; params: { applicationId: string }; headers: IncomingHttpHeaders },
  reply: FastifyReply,
  edit: DefinitionChange,
  options: ChangeOptions = {},
): Promise<Application | FastifyReply> {
  const { customerId } = request.principal;
  const { applicationId } = request.params;
  if (prefersMinimal(request.headers)) {
    const serverVersion = await services.applications.changeVersion(customerId, applicationId, edit, options);
    reply.header('etag', `"${serverVersion}"`).header('serverversion', serverVersion).header('preference-applied', 'return=minimal');
    return reply.status(204).send();
  }
  const application = await services.applications.change(customerId, applicationId, edit, options);
  if (application.serverVersion) reply.header('etag', `"${application.serverVersion}"`);
  return application;
}

/** Applies one edit to the caller's application, honouring `If-Match` and `Prefer: return=minimal`. */
export function applyEdit(
  services: Services,
  request: { principal: Principal; params: { applicationId: string }; headers: IncomingHttpHeaders },
  reply: FastifyReply,
  edit: DefinitionChange,
): Promise<Application | FastifyReply> {
  return answerChange(services, request, reply, edit, { ifMatch: ifMatchOf(request) });
}
