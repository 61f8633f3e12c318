/**
 * Trigger edits: create, replace, delete. A trigger is identified by
 * `trigger.id` (`urn:svc:trigger:...`).
 */
import { type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import { TriggerSchema, type AppDefinition, type Trigger } from '../schema.ts';
import { triggerIndex } from './lookup.ts';
import { replaceAt } from './shared.ts';

/** Body of `POST .../triggers` and `PUT .../triggers/{triggerId}`: a whole trigger. */
export const CreateTriggerBody = TriggerSchema;
export const UpdateTriggerBody = TriggerSchema;
export type TriggerInput = Static<typeof TriggerSchema>;

export function createTrigger(def: AppDefinition, trigger: TriggerInput): AppDefinition {
  const id = trigger.trigger.id;
  if (def.triggers.some((t) => t.trigger.id === id)) {
    throw new Problem(409, `A trigger with id '${id}' already exists.`, [{ path: '/trigger/id', message: 'Duplicate trigger id' }]);
  }
  // Shares everything but the list of triggers (shared.ts).
  return { ...def, triggers: [...def.triggers, structuredClone(trigger)] };
}

/** Replaces the trigger; its id must stay the same (400 otherwise). */
export function updateTrigger(def: AppDefinition, triggerId: string, trigger: TriggerInput): AppDefinition {
  const index = triggerIndex(def, triggerId);
  if (trigger.trigger.id !== triggerId) {
    throw new Problem(400, `The trigger's id cannot be changed (body '${trigger.trigger.id}', path '${triggerId}').`, [
      { path: '/trigger/id', message: `Must be '${triggerId}'` },
    ]);
  }
  const replacement: Trigger = structuredClone(trigger);
  return { ...def, triggers: replaceAt(def.triggers, index, replacement) };
}

export function deleteTrigger(def: AppDefinition, triggerId: string): AppDefinition {
  const index = triggerIndex(def, triggerId);
  return { ...def, triggers: def.triggers.filter((_, i) => i !== index) };
}
