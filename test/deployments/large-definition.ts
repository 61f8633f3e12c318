// A large application for the scale tests and `npm run bench:scale` (issue 28): the to-do
// example plus generated models of 11 primitive fields each, chained parent → children (each
// generated model belongs to the one before it, which has many of it). The model list is capped
// at the definition's limit (MAX_LIST), so `models` counts every model, the to-do's two included.
import { resourceName } from '../../src/definition/naming.ts';
import { MAX_LIST } from '../../src/definition/schema.ts';
import { todoScode, type ExampleApp } from '../support/examples.ts';

const PRIMITIVES: ReadonlyArray<[string, string]> = [
  ['title', 'p_TEXT'],
  ['notes', 'p_TEXT'],
  ['amount', 'p_NUMBER'],
  ['weight', 'p_NUMBER'],
  ['done', 'p_BOOLEAN'],
  ['day', 'p_DATE'],
  ['at', 'p_DATE_TIME'],
  ['opens', 'p_TIME'],
  ['rating', 'p_STAR_RATING'],
  ['link', 'p_LINK'],
  ['phone', 'p_PHONE_NUMBER'],
];

const modelId = (i: number) => `urn:svc:model:gen${i}`;
export const generatedModelName = (i: number) => `Gen${i}`;
/** The resource the generated API serves model `i` at. */
export const generatedResource = (i: number) => resourceName(generatedModelName(i));
export const generatedFieldId = (i: number, field: string) => `urn:svc:edge:gen${i}-${field}`;

/** The to-do example with generated models added until the definition holds `models` models (at least the to-do's own). */
export function largeScode(models: number): ExampleApp['scode'] {
  const scode = todoScode();
  const count = Math.max(0, Math.min(models, MAX_LIST) - scode.models.length);
  for (let i = 0; i < count; i++) scode.models.push(generatedModel(i, count));
  return scode;
}

/** How many models `largeScode(models)` generates beside the to-do's. */
export function generatedCount(models: number): number {
  return Math.max(0, Math.min(models, MAX_LIST) - todoScode().models.length);
}

function generatedModel(i: number, count: number): Record<string, unknown> {
  const field = (name: string, to: string, extra: Record<string, unknown> = {}) => ({
    id: generatedFieldId(i, name),
    name,
    relationshipOwner: true,
    min: 0,
    max: 1,
    to,
    accessControl: { rules: [] },
    ...extra,
  });
  const fields = PRIMITIVES.map(([name, to]) => field(name, to));
  if (i > 0) fields.push(field('parent', modelId(i - 1), { relationshipOwner: false }));
  if (i < count - 1) fields.push(field('children', modelId(i + 1), { max: null }));
  return {
    id: modelId(i),
    name: generatedModelName(i),
    referenceRequirements: [],
    accessControl: { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' },
    fields,
  };
}
