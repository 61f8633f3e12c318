/**
 * Applying a specification to an existing application (DESIGN §13): one change that adds what
 * the application lacks, matched by name (models, their fields; actions and triggers by id,
 * requirements by id, personas by name), and never deletes. A field both have with another
 * type is a clash: 409 listing every clash, nothing changed.
 */
import { conflict, type ProblemDetail } from '../errors.ts';
import { generatedRoutes, normalisePath } from '../definition/consistency/triggers.ts';
import { fieldIdFor, modelIdFor } from '../definition/edits/ids.ts';
import { isRelationship, isToMany } from '../definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../definition/schema.ts';

export interface Applied {
  definition: AppDefinition;
  /** What was added, one line each (empty: the application already has everything). */
  added: string[];
}

const shapeOf = (field: Field, targetName: (id: string) => string | undefined) =>
  `${isRelationship(field) ? (targetName(field.to) ?? field.to) : field.to}${isToMany(field) ? '[]' : ''}`;

export function addMissing(current: AppDefinition, content: AppDefinition): Applied {
  const def = structuredClone(current);
  const added: string[] = [];
  const modelIds = new Set(def.models.map((m) => m.id));
  const fieldIds = new Set(def.models.flatMap((m) => m.fields.map((f) => f.id)));
  // Content model id → the application's id for the model of that name (existing or new).
  const idFor = new Map<string, string>();
  for (const model of content.models) {
    const existing = def.models.find((m) => m.name === model.name);
    idFor.set(model.id, existing?.id ?? (modelIds.has(model.id) ? modelIdFor(model.name, modelIds) : (modelIds.add(model.id), model.id)));
  }
  const nameInContent = (id: string) => content.models.find((m) => m.id === id)?.name;
  const nameInApp = (id: string) => def.models.find((m) => m.id === id)?.name;

  const clashes: ProblemDetail[] = [];
  content.models.forEach((model, i) => {
    const existing = def.models.find((m) => m.name === model.name);
    if (!existing) return;
    model.fields.forEach((field, k) => {
      const mine = existing.fields.find((f) => f.name === field.name);
      if (!mine) return;
      const theirs = shapeOf(field, nameInContent);
      const ours = shapeOf(mine, nameInApp);
      if (theirs !== ours) {
        clashes.push({ path: `/content/models/${i}/fields/${k}`, message: `${model.name}.${field.name} is ${ours} in the application and ${theirs} in the specification.` });
      }
    });
  });
  if (clashes.length > 0) throw conflict(`The specification clashes with the application in ${clashes.length} field(s); nothing was changed.`, clashes);

  const copyField = (modelName: string, field: Field): Field => {
    const copy = structuredClone(field);
    if (fieldIds.has(copy.id)) copy.id = fieldIdFor(modelName, field.name, fieldIds);
    else fieldIds.add(copy.id);
    if (isRelationship(copy)) copy.to = idFor.get(copy.to) ?? copy.to;
    return copy;
  };
  for (const model of content.models) {
    const existing = def.models.find((m) => m.name === model.name);
    if (existing) {
      for (const field of model.fields) {
        if (existing.fields.some((f) => f.name === field.name)) continue;
        existing.fields.push(copyField(model.name, field));
        added.push(`field ${model.name}.${field.name}`);
      }
      continue;
    }
    const fresh: Model = { ...structuredClone(model), id: idFor.get(model.id)!, fields: model.fields.map((f) => copyField(model.name, f)) };
    def.models.push(fresh);
    added.push(`model ${model.name}`);
  }

  const requirementIds = new Set(def.requirements.map((r) => r.id));
  for (const requirement of content.requirements) {
    if (requirementIds.has(requirement.id)) continue;
    def.requirements.push(structuredClone(requirement));
    added.push(`requirement ${requirement.id}`);
  }
  for (const persona of content.personas ?? []) {
    if ((def.personas ?? []).some((p) => p.name === persona.name)) continue;
    def.personas = [...(def.personas ?? []), { ...persona }];
    added.push(`persona ${persona.name}`);
  }
  // Routes the application already answers: a trigger of the specification on one of them is already there.
  const routes = generatedRoutes(def);
  for (const t of def.triggers) if (t.trigger.type === 'http') routes.add(`${t.trigger.method} ${normalisePath(t.trigger.path)}`);
  const actionIds = new Set(def.actions.map((a) => a.id));
  const triggerIds = new Set(def.triggers.map((t) => t.trigger.id));
  for (const trigger of content.triggers) {
    const route = trigger.trigger.type === 'http' ? `${trigger.trigger.method} ${normalisePath(trigger.trigger.path)}` : null;
    if (triggerIds.has(trigger.trigger.id) || (route && routes.has(route))) continue;
    const action = content.actions.find((a) => a.id === trigger.actionId);
    if (!action) continue;
    if (!actionIds.has(action.id)) {
      def.actions.push(structuredClone(action));
      actionIds.add(action.id);
      added.push(`action ${action.id}`);
    }
    def.triggers.push(structuredClone(trigger));
    triggerIds.add(trigger.trigger.id);
    if (route) routes.add(route);
    added.push(`trigger ${trigger.trigger.id}`);
  }
  if (def.appOverview === null && content.appOverview) def.appOverview = structuredClone(content.appOverview);
  if (def.appDraft === null && content.appDraft) def.appDraft = structuredClone(content.appDraft);
  if (content.domainModel) {
    if (!def.domainModel) def.domainModel = { models: [] };
    for (const dm of content.domainModel.models) {
      const mine = def.domainModel.models.find((m) => m.name === dm.name);
      if (!mine) def.domainModel.models.push({ ...structuredClone(dm), isUserModel: false });
      else for (const f of dm.fields) if (!mine.fields.some((x) => x.name === f.name)) mine.fields.push({ ...f });
    }
  }
  return { definition: def, added };
}
