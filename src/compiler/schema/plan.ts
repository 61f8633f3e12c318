/**
 * `planSchema`: the database schema a definition needs (DESIGN §3), as data.
 * - schema `app_<compact id>`; one table per model, named from the model id;
 * - `id uuid` primary key, `created_at`, `updated_at`, and a column per stored field
 *   (named from the field id); computed fields and the "has many/one" side of a
 *   relationship have no column;
 * - the belongs-to side (to-one, `relationshipOwner: false`, or an unpartnered to-one)
 *   holds a uuid FK column: `on delete cascade` when NOT NULL (a required owner takes
 *   its records with it), `on delete set null` when optional;
 * - to-many ↔ to-many pairs (and unpartnered to-many fields) get a join table: two
 *   uuid FK columns (`on delete cascade`), composite primary key, index on the second;
 * - every FK column gets an index.
 */
import { Problem } from '../../errors.ts';
import { schemaNameForApp, tableNameForModel } from '../../definition/naming.ts';
import { findPartner, isRelationship, relationshipStorage } from '../../definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../../definition/schema.ts';
import { fieldColumn, systemColumns } from './columns.ts';
import { modelIndexPlans } from './model-indexes.ts';
import { checkName, foreignKeyName, indexName } from './names.ts';
import { ownerComparedFieldIds } from './rule-indexes.ts';
import type { ColumnPlan, ForeignKeyPlan, IndexPlan, SchemaPlan, TablePlan } from './types.ts';

type Definition = Pick<AppDefinition, 'models'>;

export function planSchema(def: Definition, appId: string): SchemaPlan {
  const plan: SchemaPlan = { schema: schemaNameForApp(appId), tables: [], joinTables: [], foreignKeys: [], indexes: [] };
  const joinTables = new Map<string, TablePlan>();
  const byId = new Map(def.models.map((model) => [model.id, model]));
  def.models.forEach((model, m) => {
    const table = tableNameForModel(model.id);
    const columns = systemColumns(table, model.name, `/models/${m}`);
    // Plain columns the model's rules compare with the caller's id get an index too (rule-indexes.ts).
    const ownerCompared = new Set(ownerComparedFieldIds(def as Definition & { userModelId?: string }, model));
    model.fields.forEach((field, f) => {
      const path = `/models/${m}/fields/${f}`;
      if (field.computed !== undefined) return;
      if (!isRelationship(field)) {
        const column = fieldColumn(table, model.name, field, path);
        columns.push(column);
        if (ownerCompared.has(field.id)) plan.indexes.push(index(table, column.name, column.label));
        return;
      }
      const target = byId.get(field.to);
      if (!target) throw new Problem(409, `The model ${field.to} does not exist.`, [{ path: `${path}/to`, message: 'points to no model' }]);
      // The relationship helpers look up only the field's target: given the pair alone, they do
      // not scan every model for every field (a plan of 500 models would be quadratic).
      const pair = pairOf(model, target);
      const storage = withPath(() => relationshipStorage(pair, model, field), path);
      if (storage.kind === 'foreignKey') {
        if (storage.field.id !== field.id) return; // the partner's table holds it
        const column = fieldColumn(table, model.name, field, path);
        columns.push(column);
        plan.foreignKeys.push(foreignKey(table, column, tableNameForModel(target.id), target.name));
        plan.indexes.push(index(table, column.name, column.label));
        return;
      }
      if (!joinTables.has(storage.table)) joinTables.set(storage.table, joinTable(pair, model, field, target, path, storage.table, plan));
    });
    plan.tables.push({ name: table, kind: 'model', sourceIds: [model.id], label: model.name, path: `/models/${m}`, columns, primaryKey: ['id'] });
    plan.indexes.push(...modelIndexPlans(model, m, table, columns));
  });
  plan.joinTables.push(...joinTables.values());
  return plan;
}

/** The definition seen by the relationship helpers for a field of `model` pointing at `target`. */
function pairOf(model: Model, target: Model): Definition {
  return { models: model === target ? [model] : [model, target] };
}

function withPath<T>(run: () => T, path: string): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof Problem && error.errors.length === 0) throw new Problem(error.status, error.message, [{ path, message: error.message }]);
    throw error;
  }
}

function foreignKey(table: string, column: ColumnPlan, refTable: string, refLabel: string): ForeignKeyPlan {
  return {
    name: foreignKeyName(table, column.name),
    table,
    column: column.name,
    refTable,
    onDelete: column.notNull ? 'cascade' : 'set null',
    label: `${column.label} → ${refLabel}`,
    path: column.path,
  };
}

function index(table: string, column: string, label: string): IndexPlan {
  return { name: indexName(table, column), table, columns: [column], label };
}

/** One side of a join table: a uuid column pointing at `model`'s table. */
interface Side {
  column: string;
  model: Model;
  label: string;
}

/**
 * The join table of `field` (and its partner, if any). Its columns come in the
 * sorted order of the field ids, so the plan is the same whichever side is met first.
 */
function joinTable(def: Definition, model: Model, field: Field, target: Model, path: string, name: string, plan: SchemaPlan): TablePlan {
  const storage = relationshipStorage(def, model, field);
  if (storage.kind !== 'joinTable') throw new Error('not a join table');
  const partner = findPartner(def, model, field);
  const own: Side = { column: storage.ownerColumn, model, label: `${model.name}.${field.name}` };
  const other: Side = { column: storage.targetColumn, model: target, label: partner ? `${target.name}.${partner.name}` : target.name };
  const [first, second] = partner && partner.id < field.id ? [other, own] : [own, other];
  const label = partner ? `${first.label} ↔ ${second.label}` : `${own.label} → ${target.name}`;
  const columns: ColumnPlan[] = [first, second].map((side) => ({
    name: side.column,
    sqlType: 'uuid',
    isArray: false,
    notNull: true,
    default: null,
    check: null,
    checkName: checkName(name, side.column),
    label: `${label} (${side.model.name})`,
    path,
  }));
  for (const [i, side] of [first, second].entries()) {
    plan.foreignKeys.push({
      name: foreignKeyName(name, side.column),
      table: name,
      column: side.column,
      refTable: tableNameForModel(side.model.id),
      onDelete: 'cascade',
      label: `${label}: ${side.column} → ${side.model.name}`,
      path,
    });
    if (i === 1) plan.indexes.push(index(name, side.column, `${label} (${side.model.name})`));
  }
  const sourceIds = partner ? [field.id, partner.id].sort() : [field.id];
  return { name, kind: 'join', sourceIds, label, path, columns, primaryKey: [first.column, second.column] };
}
