import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { FieldIdSchema, ModelIdSchema } from '../../definition/schema.ts';
import {
  CreateFieldBody,
  CreateModelBody,
  UpdateFieldBody,
  UpdateModelBody,
  createField,
  createModel,
  deleteField,
  deleteModel,
  updateField,
  updateModel,
} from '../../definition/edits/index.ts';
import { Uuid } from '../schemas.ts';
import { applyEdit, editRouteSchema } from './application-edit.ts';

const ModelParams = Type.Object({ applicationId: Uuid, modelId: ModelIdSchema });
const FieldParams = Type.Object({ applicationId: Uuid, modelId: ModelIdSchema, fieldId: FieldIdSchema });

/** The data-models group: models and their fields (spec endpoints 1 and 2). */
export function modelRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    const base = '/applications/:applicationId/models';

    app.post(
      base,
      { schema: { ...editRouteSchema('data-models', 'createModel', 'Add a model'), params: Type.Object({ applicationId: Uuid }), body: CreateModelBody } },
      async (request, reply) => applyEdit(services, request, reply, (def) => createModel(def, request.body)),
    );

    app.patch(
      `${base}/:modelId`,
      {
        schema: {
          ...editRouteSchema('data-models', 'updateModel', "Rename a model or change its access rules; 409 when inconsistent"),
          params: ModelParams,
          body: UpdateModelBody,
        },
      },
      async (request, reply) => applyEdit(services, request, reply, (def) => updateModel(def, request.params.modelId, request.body)),
    );

    app.delete(
      `${base}/:modelId`,
      { schema: { ...editRouteSchema('data-models', 'deleteModel', 'Remove a model and the relationship fields pointing to it'), params: ModelParams } },
      async (request, reply) => applyEdit(services, request, reply, (def) => deleteModel(def, request.params.modelId)),
    );

    app.post(
      `${base}/:modelId/fields`,
      {
        schema: {
          ...editRouteSchema('data-models', 'createField', 'Add a field (a relationship with its partner field)'),
          params: ModelParams,
          body: CreateFieldBody,
        },
      },
      async (request, reply) => applyEdit(services, request, reply, (def) => createField(def, request.params.modelId, request.body)),
    );

    app.patch(
      `${base}/:modelId/fields/:fieldId`,
      {
        schema: {
          ...editRouteSchema('data-models', 'updateField', 'Change a field; 409 when inconsistent'),
          params: FieldParams,
          body: UpdateFieldBody,
        },
      },
      async (request, reply) =>
        applyEdit(services, request, reply, (def) => updateField(def, request.params.modelId, request.params.fieldId, request.body)),
    );

    app.delete(
      `${base}/:modelId/fields/:fieldId`,
      { schema: { ...editRouteSchema('data-models', 'deleteField', 'Remove a field (and its relationship partner)'), params: FieldParams } },
      async (request, reply) => applyEdit(services, request, reply, (def) => deleteField(def, request.params.modelId, request.params.fieldId)),
    );
  };
}
