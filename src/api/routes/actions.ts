import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { ActionIdSchema, TriggerIdSchema } from '../../definition/schema.ts';
import {
  AddActionBody,
  CreateTriggerBody,
  EffectModificationsBody,
  UpdateActionBody,
  UpdateTriggerBody,
  addAction,
  createTrigger,
  deleteAction,
  deleteTrigger,
  modifyEffects,
  updateAction,
  updateTrigger,
} from '../../definition/edits/index.ts';
import { Uuid } from '../schemas.ts';
import { applyEdit, editRouteSchema } from './application-edit.ts';

const AppParams = Type.Object({ applicationId: Uuid });
const ActionParams = Type.Object({ applicationId: Uuid, actionId: ActionIdSchema });
const TriggerParams = Type.Object({ applicationId: Uuid, triggerId: TriggerIdSchema });

/** The actions-effects and triggers groups (spec endpoints 3 and 4). */
export function actionRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    const actions = '/applications/:applicationId/actions';
    const triggers = '/applications/:applicationId/triggers';

    app.post(
      actions,
      { schema: { ...editRouteSchema('actions-effects', 'createAction', 'Add an action'), params: AppParams, body: AddActionBody } },
      async (request, reply) => applyEdit(services, request, reply, (def) => addAction(def, request.body)),
    );
    app.put(
      `${actions}/:actionId`,
      { schema: { ...editRouteSchema('actions-effects', 'updateAction', 'Replace an action'), params: ActionParams, body: UpdateActionBody } },
      async (request, reply) => applyEdit(services, request, reply, (def) => updateAction(def, request.params.actionId, request.body)),
    );
    app.delete(
      `${actions}/:actionId`,
      { schema: { ...editRouteSchema('actions-effects', 'deleteAction', 'Remove an action no trigger uses'), params: ActionParams } },
      async (request, reply) => applyEdit(services, request, reply, (def) => deleteAction(def, request.params.actionId)),
    );
    app.post(
      `${actions}/:actionId/effects`,
      {
        schema: {
          ...editRouteSchema(
            'actions-effects',
            'modifyEffects',
            'Insert, update, delete or move effects of an action; the whole list applies atomically',
          ),
          params: ActionParams,
          body: EffectModificationsBody,
        },
      },
      async (request, reply) => applyEdit(services, request, reply, (def) => modifyEffects(def, request.params.actionId, request.body)),
    );

    app.post(
      triggers,
      { schema: { ...editRouteSchema('triggers', 'createTrigger', 'Add a trigger'), params: AppParams, body: CreateTriggerBody } },
      async (request, reply) => applyEdit(services, request, reply, (def) => createTrigger(def, request.body)),
    );
    app.put(
      `${triggers}/:triggerId`,
      { schema: { ...editRouteSchema('triggers', 'updateTrigger', 'Replace a trigger'), params: TriggerParams, body: UpdateTriggerBody } },
      async (request, reply) => applyEdit(services, request, reply, (def) => updateTrigger(def, request.params.triggerId, request.body)),
    );
    app.delete(
      `${triggers}/:triggerId`,
      { schema: { ...editRouteSchema('triggers', 'deleteTrigger', 'Remove a trigger'), params: TriggerParams } },
      async (request, reply) => applyEdit(services, request, reply, (def) => deleteTrigger(def, request.params.triggerId)),
    );
  };
}
