/** Uniqueness: "make the email of customers unique", "… and make it unique", "no two products may share a name". */
import type { Rule } from '../context.ts';
import { Unclear, fieldRef } from '../context.ts';

export const unique: Rule = (sentence, ctx) => {
  const m =
    /^(?:make|set|mark|keep)\s+(.+?)\s+(?:unique|distinct)(?:\s+(?:per|across|among)\s+.+)?$/i.exec(sentence) ??
    /^(.+?)\s+(?:must|should|has to|have to|need to|needs to)\s+be\s+unique$/i.exec(sentence) ??
    /^(.+?)\s+(?:is|are)\s+unique$/i.exec(sentence) ??
    /^no\s+two\s+(.+?)\s+(?:may|can|should)\s+(?:share|have)\s+(?:the\s+same\s+|a\s+|an\s+)?(.+)$/i.exec(sentence);
  if (!m) return null;
  const phrase = m.length === 3 && /^no\s+two/i.test(sentence) ? `${m[2]} of ${m[1]}` : m[1];
  let ref;
  if (/^(?:it|that|this|that field|this field|them)$/i.test(phrase.trim()) && ctx.lastModel && ctx.lastField) {
    const field = ctx.lastModel.fields.find((f) => f.name === ctx.lastField!.name);
    if (field) ref = { model: ctx.lastModel, field };
  }
  ref ??= fieldRef(ctx, phrase);
  if (!ref) throw new Unclear(`I found no field "${phrase.trim()}" to make unique.`);
  const { model, field } = ref;
  if (!field.to.startsWith('p_') || field.max !== 1) throw new Unclear(`${model.name}.${field.name} holds ${field.max === 1 ? 'a relationship' : 'a list'}; only a single value can be unique.`);
  const indexes = model.indexes ?? [];
  if (indexes.some((i) => i.unique && i.fields.length === 1 && i.fields[0] === field.id)) {
    return { operations: [], understood: `${model.name}.${field.name} is unique already.`, model, field };
  }
  return {
    operations: [{ op: 'setIndexes', modelId: model.id, indexes: [...indexes, { fields: [field.id], unique: true }] }],
    understood: `Make ${model.name}.${field.name} unique (a unique index; existing duplicates would make the deployment fail).`,
    model,
    field,
  };
};
