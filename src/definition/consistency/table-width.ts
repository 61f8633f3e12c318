/**
 * A model's table fits PostgreSQL: at most 1600 columns (MaxHeapAttributeNumber). Past it the
 * publish would fail in the database; refused here instead, naming the model. A model's table
 * holds `id`, `created_at`, `updated_at` and one column per stored field of its own: a primitive
 * that is not computed, or a to-one relationship that holds the foreign key (compiler/schema/plan.ts).
 * The other side of a relationship, a to-many pointer and a computed field have no column here.
 */
import type { ProblemDetail } from '../../errors.ts';
import { isRelationship, relationshipStorage } from '../relationships.ts';
import type { AppDefinition, Model } from '../schema.ts';
import { pointer } from './pointer.ts';

/** PostgreSQL's most columns in a table. */
export const MAX_TABLE_COLUMNS = 1600;
/** `id`, `created_at`, `updated_at`. */
const SYSTEM_COLUMNS = 3;

/**
 * The models whose table would need more than MAX_TABLE_COLUMNS. Only a model with that many
 * fields can (a model's columns come from its own fields), so an ordinary definition costs one
 * comparison per model.
 */
export function checkTableWidths(def: Pick<AppDefinition, 'models'>): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  let byId: Map<string, Model> | undefined;
  def.models.forEach((model, i) => {
    if (model.fields.length + SYSTEM_COLUMNS <= MAX_TABLE_COLUMNS) return;
    byId ??= new Map(def.models.map((m) => [m.id, m]));
    const columns = SYSTEM_COLUMNS + storedFields(model, byId);
    if (columns <= MAX_TABLE_COLUMNS) return;
    problems.push({
      path: pointer('models', i),
      message:
        `The model ${model.name} needs ${columns} columns (${SYSTEM_COLUMNS} for id and timestamps, one per stored field); ` +
        `PostgreSQL allows at most ${MAX_TABLE_COLUMNS} in a table. Split it into related models, or make some fields computed.`,
    });
  });
  return problems;
}

/** The fields of `model` that have a column in its table. */
function storedFields(model: Model, byId: ReadonlyMap<string, Model>): number {
  const indexed = { models: [] as Model[], find: (id: string) => byId.get(id) };
  let count = 0;
  for (const field of model.fields) {
    if (field.computed !== undefined) continue;
    if (!isRelationship(field)) {
      count++;
      continue;
    }
    try {
      const storage = relationshipStorage(indexed, model, field);
      if (storage.kind === 'foreignKey' && storage.field.id === field.id) count++;
    } catch {
      // A contradictory pair is reported by the relationship checks; counted as a column here.
      count++;
    }
  }
  return count;
}
