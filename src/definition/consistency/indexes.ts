/**
 * Consistency of a model's `indexes`: each names fields of the model itself by id, stored ones
 * holding one value (not computed, not a to-many relationship or a list); no field twice in an
 * index, no two indexes over the same fields. Decided by the model's own content alone.
 */
import type { ProblemDetail } from '../../errors.ts';
import type { Model } from '../schema.ts';
import { duplicates, pointer } from './pointer.ts';

export function checkModelIndexes(model: Model, i: number, problems: ProblemDetail[]): void {
  const indexes = model.indexes ?? [];
  if (indexes.length === 0) return;
  const byId = new Map(model.fields.map((field) => [field.id, field]));
  indexes.forEach((index, k) => {
    const at = (...rest: (string | number)[]) => pointer('models', i, 'indexes', k, ...rest);
    index.fields.forEach((fieldId, j) => {
      const field = byId.get(fieldId);
      if (!field) problems.push({ path: at('fields', j), message: `'${fieldId}' is not a field of the model ${model.name}.` });
      else if (field.computed !== undefined) problems.push({ path: at('fields', j), message: `${model.name}.${field.name} is computed: it has no stored value to index.` });
      else if (field.max === null || field.max > 1) problems.push({ path: at('fields', j), message: `${model.name}.${field.name} holds several values: only fields holding one value can be indexed.` });
    });
    for (const { index: j } of duplicates(index.fields, (id) => id)) {
      problems.push({ path: at('fields', j), message: `The field '${index.fields[j]}' appears twice in the index.` });
    }
  });
  for (const { index: k, first } of duplicates(indexes, (index) => [...new Set(index.fields)].sort().join(' '))) {
    problems.push({ path: pointer('models', i, 'indexes', k), message: `The same index as ${pointer('models', i, 'indexes', first)}.` });
  }
}
