/** Models: add (with fields), rename, remove; renaming and removing fields and triggers. */
import type { NewField } from '../../../../definition/edits/index.ts';
import { modelIdFor } from '../../../../definition/edits/index.ts';
import { Unclear, fieldRef, modelOf, type Context, type Rule, type Step } from '../context.ts';
import { fieldNameOf, keyOf, modelNameOf, resolveModel } from '../names.ts';
import { newFieldOf } from './fields.ts';

const NOUN = '(?:model|entity|table|resource|collection|record type)';

/** Items of "a name, a colour and a due date (date)": commas and "and" outside parentheses. */
function itemsOf(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  const words = list.split(/(\s+and\s+|,\s*(?:and\s+)?|[()])/i);
  for (const piece of words) {
    if (piece === '(') depth++;
    if (piece === ')') depth--;
    if (depth === 0 && /^(?:\s+and\s+|,\s*(?:and\s+)?)$/i.test(piece)) {
      items.push(current);
      current = '';
    } else current += piece;
  }
  items.push(current);
  return items.map((i) => i.trim()).filter(Boolean);
}

const ACCESS_NOTE = (name: string) => `${name} starts closed to end users (only administrators); add access rules to open it.`;

/** A new model with fields; its id is stated so later operations can name it. */
export function newModelStep(ctx: Context, name: string, fields: NewField[]): Step {
  if (resolveModel(ctx.def, name)) throw new Unclear(`A model ${name} already exists.`);
  const id = modelIdFor(name, new Set(ctx.def.models.map((m) => m.id)));
  return {
    operations: [{ op: 'addModel', model: { id, name, fields } }],
    understood: `Add the model ${name}${fields.length ? ` with ${fields.map((f) => f.name).join(', ')}` : ''}.`,
    warnings: [ACCESS_NOTE(name)],
  };
}

/** "add a Tag model with a name and a colour", "create a model called Category". */
export const addModel: Rule = (sentence, ctx) => {
  const m =
    new RegExp(`^(?:add|create|define|make|introduce|(?:i|we) need)\\s+(?:an?\\s+|the\\s+)?(?:new\\s+)?(?:${NOUN}\\s+(?:called|named)\\s+["'“]?([\\w -]+?)["'”]?|["'“]?([\\w -]+?)["'”]?\\s+${NOUN})(?:\\s*,?\\s+(?:with|having|that has|containing)\\s+(?:the\\s+)?(?:fields?\\s+)?(.+))?$`, 'i').exec(sentence) ??
    /^(?:add|create)\s+(?:an?\s+)?(?:new\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\s+with\s+(?:the\s+)?(?:fields?\s+)?(.+)$/.exec(sentence);
  if (!m) return null;
  const [namePhrase, list] = m.length === 4 ? [m[1] ?? m[2], m[3]] : [m[1], m[2]];
  // "add a priority to the to-do model" names a field of a model, not a new one.
  if (/\s(?:to|on|for|in|of)\s/i.test(namePhrase)) return null;
  const name = modelNameOf(namePhrase);
  if (!name) return null;
  const fields = list ? itemsOf(list).map((item) => newFieldOf(item)) : [];
  return newModelStep(ctx, name, fields);
};

/** "rename to-dos to tasks", "rename the description of to-dos to notes". */
export const rename: Rule = (sentence, ctx) => {
  const m = /^(?:rename|call)\s+(.+?)\s+(?:to|as|into)\s+["'“]?(.+?)["'”]?(?:\s+instead)?$/i.exec(sentence);
  if (!m) return null;
  const target = m[1].trim();
  const isModel = new RegExp(`\\s${NOUN}$`, 'i').test(target);
  const model = isModel || !/\s(?:of|on|in|for|from)\s|['’.]/.test(target) ? modelOf(ctx, target) : undefined;
  if (model && !/\s+(?:field|column)$/i.test(target)) {
    const name = modelNameOf(m[2]);
    return { operations: [{ op: 'renameModel', modelId: model.id, name }], understood: `Rename the model ${model.name} to ${name}.`, model };
  }
  const ref = fieldRef(ctx, target);
  if (!ref) throw new Unclear(`I found no model or field "${target}".`);
  const name = fieldNameOf(m[2]);
  return {
    operations: [{ op: 'renameField', modelId: ref.model.id, fieldId: ref.field.id, name }],
    understood: `Rename ${ref.model.name}.${ref.field.name} to ${name}.`,
    model: ref.model,
  };
};

/** "remove the description field from to-dos", "delete the Tag model", "remove the welcome trigger". */
export const remove: Rule = (sentence, ctx) => {
  const m = /^(?:remove|delete|drop|get rid of|stop)\s+(.+)$/i.exec(sentence);
  if (!m) return null;
  const target = m[1].trim();
  const trigger = /^(?:the\s+)?(.+?)\s+(?:trigger|automation|schedule|event trigger)$/i.exec(target);
  if (trigger) return removeTrigger(ctx, trigger[1]);
  const modelOnly = new RegExp(`^(?:the\\s+)?(.+?)\\s+${NOUN}(?:\\s+entirely|\\s+completely)?$`, 'i').exec(target);
  if (modelOnly) {
    const model = modelOf(ctx, modelOnly[1]);
    if (!model) throw new Unclear(`I found no model "${modelOnly[1]}".`);
    return { operations: [{ op: 'removeModel', modelId: model.id }], understood: `Remove the model ${model.name}.`, model };
  }
  const ref = fieldRef(ctx, target);
  if (ref) {
    return {
      operations: [{ op: 'removeField', modelId: ref.model.id, fieldId: ref.field.id }],
      understood: `Remove the field ${ref.model.name}.${ref.field.name}.`,
      model: ref.model,
    };
  }
  const model = modelOf(ctx, target);
  if (model) return { operations: [{ op: 'removeModel', modelId: model.id }], understood: `Remove the model ${model.name}.`, model };
  return null;
};

function removeTrigger(ctx: Context, phrase: string): Step {
  const key = keyOf(phrase);
  const matches = ctx.def.triggers.filter((t) => {
    const own = t.trigger.id.replace(/^urn:svc:trigger:/, '');
    const action = t.actionId.replace(/^urn:svc:action:/, '');
    const event = t.trigger.type === 'event' ? t.trigger.eventName : '';
    return [own, action, event].some((name) => name && keyOf(name) === key);
  });
  if (matches.length !== 1) throw new Unclear(matches.length ? `Several triggers match "${phrase}".` : `I found no trigger "${phrase}".`);
  const id = matches[0].trigger.id;
  return { operations: [{ op: 'removeTrigger', triggerId: id }], understood: `Remove the trigger ${id}.` };
}

export { fieldNameOf };
