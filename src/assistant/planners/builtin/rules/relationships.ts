/** Relationships: "each to-do belongs to a project", "a company has many contacts". */
import type { Model } from '../../../../definition/schema.ts';
import type { Operation } from '../../../operations.ts';
import { Unclear, modelOf, type Context, type Rule, type Step } from '../context.ts';
import { modelNameOf, toManyName, toOneName } from '../names.ts';
import { newModelStep } from './models.ts';

const ONE = '(?:a|an|one|the|exactly one|a single|some)';

/**
 * The child's to-one field to the parent (the belongs-to side holds the key) and the parent's
 * to-many partner. A parent that does not exist yet is added with a required name.
 */
function belongsTo(ctx: Context, childPhrase: string, parentPhrase: string, required: boolean): Step | null {
  const child = modelOf(ctx, childPhrase);
  if (!child) return null;
  const operations: Operation[] = [];
  const warnings: string[] = [];
  let parent: Pick<Model, 'id' | 'name'> | undefined = modelOf(ctx, parentPhrase);
  let understood = '';
  if (!parent) {
    const name = modelNameOf(parentPhrase);
    if (!name) return null;
    const created = newModelStep(ctx, name, [{ name: 'name', to: 'p_TEXT', min: 1 }]);
    operations.push(...created.operations);
    warnings.push(...(created.warnings ?? []));
    const added = created.operations[0] as Extract<Operation, { op: 'addModel' }>;
    parent = { id: added.model.id!, name };
    understood = `Add the model ${name} with a name. `;
  }
  if (parent.id === child.id) throw new Unclear(`A ${child.name} belonging to a ${child.name} is not supported here.`);
  if (child.fields.some((f) => f.to === parent.id)) throw new Unclear(`${child.name} already has a relationship to ${parent.name}.`);
  const field = { name: toOneName(parent), to: parent.id, relationshipOwner: false, ...(required ? { min: 1 } : {}), partner: { name: toManyName(child), max: null } };
  operations.push({ op: 'addField', modelId: child.id, field });
  return {
    operations,
    understood: `${understood}Each ${child.name} belongs to ${required ? 'exactly' : 'at most'} one ${parent.name} (${child.name}.${field.name}; ${parent.name}.${field.partner.name} lists them).`,
    warnings,
    model: child,
  };
}

export const relationship: Rule = (sentence, ctx) => {
  const belongs = new RegExp(`^(?:each|every|a|an|one|all)?\\s*(.+?)\\s+(must\\s+|always\\s+|should\\s+)?(?:belongs?|is linked|are linked|is assigned|are assigned)\\s+to\\s+${ONE}?\\s*(.+)$`, 'i').exec(sentence);
  if (belongs) return belongsTo(ctx, belongs[1], belongs[3], Boolean(belongs[2]?.match(/must|always/i)));
  const link = new RegExp(`^(?:link|connect|attach|assign)\\s+(?:each|every)?\\s*(.+?)\\s+to\\s+${ONE}\\s+(.+)$`, 'i').exec(sentence);
  if (link) return belongsTo(ctx, link[1], link[2], false);
  const many = /^(?:each|every|a|an|one)?\s*(.+?)\s+(?:has|have|can have|contains?|holds?)\s+(?:many|several|multiple|a list of|any number of|zero or more|one or more)\s+(.+)$/i.exec(sentence);
  if (many) {
    const child = modelOf(ctx, many[2]);
    if (!child) return null;
    return belongsTo(ctx, many[2], many[1], false);
  }
  return null;
};
