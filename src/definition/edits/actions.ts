/**
 * Action edits: add (spec endpoint 3), replace, delete.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import { ActionIdSchema, ActionSchema, type Action, type AppDefinition } from '../schema.ts';
import { actionIndex } from './lookup.ts';
import { replaceAt } from './shared.ts';

/** Body of `POST .../actions`: a whole action. */
export const AddActionBody = ActionSchema;
export type AddActionInput = Static<typeof AddActionBody>;

/** Body of `PUT .../actions/{actionId}`: a whole action; `id` may be left out, else it must be the path's. */
export const UpdateActionBody = Type.Composite([Type.Omit(ActionSchema, ['id']), Type.Object({ id: Type.Optional(ActionIdSchema) })]);
export type UpdateActionInput = Static<typeof UpdateActionBody>;

export function addAction(def: AppDefinition, action: AddActionInput): AppDefinition {
  if (def.actions.some((a) => a.id === action.id)) {
    throw new Problem(409, `An action with id '${action.id}' already exists.`, [{ path: '/id', message: 'Duplicate action id' }]);
  }
  // Shares everything but the list of actions (shared.ts).
  return { ...def, actions: [...def.actions, structuredClone(action)] };
}

/** Replaces the action; its id is kept. */
export function updateAction(def: AppDefinition, actionId: string, action: UpdateActionInput): AppDefinition {
  const index = actionIndex(def, actionId);
  if (action.id !== undefined && action.id !== actionId) {
    throw new Problem(400, `The action's id cannot be changed (body '${action.id}', path '${actionId}').`, [
      { path: '/id', message: `Must be '${actionId}' or left out` },
    ]);
  }
  const replacement: Action = { ...structuredClone(action), id: actionId };
  return { ...def, actions: replaceAt(def.actions, index, replacement) };
}

/** Removes the action; refused (409) while a trigger starts it, naming the trigger's pointer. */
export function deleteAction(def: AppDefinition, actionId: string): AppDefinition {
  actionIndex(def, actionId);
  const users = def.triggers.flatMap((t, i) => (t.actionId === actionId ? [{ i, id: t.trigger.id }] : []));
  if (users.length > 0) {
    throw new Problem(
      409,
      `Action '${actionId}' is started by ${users.map((u) => `'${u.id}'`).join(', ')}; delete or change the trigger(s) first.`,
      users.map(({ i, id }) => ({ path: `/triggers/${i}/actionId`, message: `Trigger '${id}' starts this action` })),
    );
  }
  return { ...def, actions: def.actions.filter((a) => a.id !== actionId) };
}
