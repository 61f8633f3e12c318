import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { SECTION_NAMES, SectionBodies, replaceSection } from '../../definition/edits/index.ts';
import { Uuid } from '../schemas.ts';
import { applyEdit, editRouteSchema } from './application-edit.ts';

const operationIds: Record<(typeof SECTION_NAMES)[number], string> = {
  requirements: 'replaceRequirements',
  personas: 'replacePersonas',
  appOverview: 'replaceAppOverview',
  appDraft: 'replaceAppDraft',
  domainModel: 'replaceDomainModel',
};

/** `PUT …/{section}`: replace requirements, personas, appOverview, appDraft or domainModel. */
export function sectionRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const section of SECTION_NAMES) {
      app.put(
        `/applications/:applicationId/${section}`,
        {
          schema: {
            ...editRouteSchema('applications', operationIds[section], `Replace the definition's ${section}`),
            params: Type.Object({ applicationId: Uuid }),
            body: SectionBodies[section],
          },
        },
        async (request, reply) => applyEdit(services, request, reply, (def) => replaceSection(def, section, request.body as never)),
      );
    }
  };
}
