import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../../services/tokens.ts';
import type { Services } from '../../services/index.ts';
import type { DefinitionChange } from '../../services/applications/service.ts';
import type { Application } from '../../services/applications/view.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { problemResponses } from '../schemas.ts';
import { ApplicationSchema } from './application-schemas.ts';
import { ifMatchOf } from '../if-match.ts';

/** Route options shared by every definition edit: they all answer the updated Application. */
export function editRouteSchema(tag: string, operationId: string, summary: string) {
  return {
    tags: [tag],
    security: MANAGEMENT_SECURITY,
    operationId,
    summary,
    response: { 200: ApplicationSchema, ...problemResponses(404, 409, 412) },
  };
}

/** Applies one edit to the caller's application, honouring `If-Match`. */
export function applyEdit(
  services: Services,
  request: { principal: Principal; params: { applicationId: string }; headers: IncomingHttpHeaders },
  edit: DefinitionChange,
): Promise<Application> {
  return services.applications.change(request.principal.customerId, request.params.applicationId, edit, {
    ifMatch: ifMatchOf(request),
  });
}
