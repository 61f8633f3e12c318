/**
 * `planMigration`: the statements taking the deployed schema (planned from the
 * previous definition) to the one the next definition needs. Expand only (DESIGN §3):
 * - new tables, columns, join tables, constraints, foreign keys and indexes are added;
 * - a removed model or field keeps its table or column (`retained`, for a later
 *   purge); a kept column loses NOT NULL so the new version can insert without it;
 * - a rename changes no id, hence no name: no statement;
 * - `min` 0 → 1 backfills NULLs from the new DEFAULT (if any), then sets NOT NULL
 *   (with NULLs left, the statement fails and the dry run refuses the migration);
 * - a changed enum (or other CHECK) replaces the constraint, validated on existing rows;
 * - a type change runs `alter column … type … using …` (see `conversions.ts`).
 * Statements are ordered so each finds what it needs: tables, then column changes,
 * then constraints, foreign keys and indexes. A schema created from nothing declares its
 * foreign keys inside CREATE TABLE where the table pointed to exists by then (`creation-order.ts`).
 */
import type { AppDefinition } from '../../definition/schema.ts';
import { usingExpression } from './conversions.ts';
import { creationOrder } from './creation-order.ts';
import * as ddl from './ddl.ts';
import { addSearchColumnStatement, createIndexStatement, dropIndexStatement } from './model-indexes.ts';
import { planSchema } from './plan.ts';
import type { ColumnPlan, ForeignKeyPlan, MigrationPlan, MigrationStep, RetainedItem, SchemaPlan, TablePlan } from './types.ts';

type Definition = Pick<AppDefinition, 'models'>;

export function planMigration(previous: Definition | null, next: Definition, appId: string): MigrationPlan {
  return diffSchemas(previous ? planSchema(previous, appId) : null, planSchema(next, appId));
}

/** The ordered phases of a migration; each step lands in one. */
const PHASES = ['schema', 'tables', 'prepare', 'columns', 'types', 'defaults', 'backfill', 'notNull', 'checks', 'foreignKeys', 'indexes'] as const;
type Phase = (typeof PHASES)[number];

/** The statements taking `before` (null: nothing yet) to `after`. */
export function diffSchemas(before: SchemaPlan | null, after: SchemaPlan): MigrationPlan {
  const phases = new Map<Phase, MigrationStep[]>(PHASES.map((p) => [p, []]));
  const add = (phase: Phase, sql: string, summary: string, path: string) => phases.get(phase)!.push({ sql, summary, path });
  const retained: RetainedItem[] = [];
  const s = after.schema;
  const fresh = before === null;
  if (fresh) add('schema', ddl.createSchema(s), `create schema ${s}`, '');

  const beforeTables = new Map((before ? [...before.tables, ...before.joinTables] : []).map((t) => [t.name, t]));
  const afterTables = [...after.tables, ...after.joinTables];
  // From nothing, each table is created after those it points to, its foreign keys inline.
  const created = fresh ? creationOrder(afterTables, after.foreignKeys) : { tables: afterTables, inline: new Map<string, ForeignKeyPlan[]>() };
  const inlined = new Set([...created.inline.values()].flat().map((fk) => fk.name));
  for (const table of created.tables) {
    const previous = beforeTables.get(table.name);
    const kind = table.kind === 'join' ? 'join table' : 'table';
    if (!previous) add('tables', ddl.createTable(s, table, created.inline.get(table.name)), `create ${kind} ${table.label}`, table.path);
    else diffTable(s, previous, table, add, retained, fresh);
  }
  const afterNames = new Set(afterTables.map((t) => t.name));
  for (const table of beforeTables.values()) {
    if (!afterNames.has(table.name)) retained.push({ kind: 'table', table: table.name, sourceIds: table.sourceIds, label: table.label });
  }

  const beforeKeys = new Map((before?.foreignKeys ?? []).map((fk) => [fk.name, fk]));
  const afterKeys = new Set(after.foreignKeys.map((fk) => fk.name));
  for (const fk of after.foreignKeys) {
    if (inlined.has(fk.name)) continue;
    const old = beforeKeys.get(fk.name);
    const same = old && old.refTable === fk.refTable && old.onDelete === fk.onDelete && !columnRetyped(phases, s, fk.table, fk.column);
    if (same) continue;
    if (old) add('prepare', ddl.dropConstraint(s, fk.table, fk.name), `drop foreign key ${old.label}`, `${fk.path}/to`);
    else if (!fresh) add('foreignKeys', ddl.dropConstraint(s, fk.table, fk.name), `add foreign key ${fk.label}`, `${fk.path}/to`);
    add('foreignKeys', ddl.addForeignKey(s, fk), `add foreign key ${fk.label}`, `${fk.path}/to`);
  }
  for (const old of beforeKeys.values()) {
    // A column that is still there but no longer a pointer (now a primitive): drop its FK.
    if (afterKeys.has(old.name)) continue;
    const table = afterTables.find((t) => t.name === old.table);
    if (table?.columns.some((c) => c.name === old.column)) add('prepare', ddl.dropConstraint(s, old.table, old.name), `drop foreign key ${old.label}`, old.path);
  }

  const beforeIndexes = new Set((before?.indexes ?? []).map((i) => i.name));
  const afterIndexes = new Set(after.indexes.map((i) => i.name));
  for (const old of before?.indexes ?? []) {
    // A model's own index it no longer has (or has changed: a new name) goes. An earlier search
    // column stays while versions served side by side may search it, unless a column it reads
    // changes type here (PostgreSQL refuses to retype a column a generated column reads).
    if (!old.managed || afterIndexes.has(old.name) || !afterNames.has(old.table)) continue;
    const retyped = old.searchColumn?.covers.some((c) => columnRetyped(phases, s, old.table, c)) ?? true;
    if (retyped) add('prepare', dropIndexStatement(s, old), `drop index on ${old.label}`, '');
  }
  for (const index of after.indexes) {
    if (beforeIndexes.has(index.name)) continue;
    const column = addSearchColumnStatement(s, index);
    if (column) add('indexes', column, `add search column of ${index.label.replace(/ search$/, '')}`, index.path ?? '');
    const summary = index.unique ? `create unique index on ${index.label}` : `create index on ${index.label}`;
    add('indexes', createIndexStatement(s, index), summary, index.path ?? '');
  }

  const steps = PHASES.flatMap((p) => phases.get(p)!);
  return { schema: s, steps, statements: steps.map((step) => step.sql), retained };
}

type Add = (phase: Phase, sql: string, summary: string, path: string) => void;

/** Whether the migration so far changes the type of `table.column`. */
function columnRetyped(phases: Map<Phase, MigrationStep[]>, schema: string, table: string, column: string): boolean {
  const prefix = ddl.alterColumn(schema, table, column, 'type ');
  return phases.get('types')!.some((step) => step.sql.startsWith(prefix));
}

function diffTable(s: string, previous: TablePlan, table: TablePlan, add: Add, retained: RetainedItem[], fresh: boolean): void {
  const oldColumns = new Map(previous.columns.map((c) => [c.name, c]));
  for (const column of table.columns) {
    const old = oldColumns.get(column.name);
    if (!old) addColumn(s, table.name, column, add, fresh);
    else diffColumn(s, table.name, old, column, add);
  }
  const names = new Set(table.columns.map((c) => c.name));
  for (const old of previous.columns) {
    if (names.has(old.name)) continue;
    retained.push({ kind: 'column', table: table.name, column: old.name, sourceIds: old.fieldId ? [old.fieldId] : [], label: old.label });
    if (old.notNull) add('notNull', ddl.alterColumn(s, table.name, old.name, 'drop not null'), `allow null in ${old.label} (kept after removal)`, table.path);
  }
}

function addColumn(s: string, table: string, column: ColumnPlan, add: Add, fresh: boolean): void {
  add('columns', ddl.addColumn(s, table, column), `add column ${column.label}`, column.path);
  if (column.notNull) add('notNull', ddl.alterColumn(s, table, column.name, 'set not null'), `require ${column.label}`, `${column.path}/min`);
  if (column.check !== null) {
    // The column may come back from an earlier version with its constraint: replace it.
    if (!fresh) add('checks', ddl.dropConstraint(s, table, column.checkName), `check ${column.label}`, column.path);
    add('checks', ddl.addCheck(s, table, column), `check ${column.label}`, column.path);
  }
}

function diffColumn(s: string, table: string, old: ColumnPlan, column: ColumnPlan, add: Add): void {
  const using = usingExpression(old, column);
  const retyped = using !== null;
  const checkChanged = retyped || old.check !== column.check;
  const defaultChanged = retyped || old.default !== column.default;
  if (old.check !== null && checkChanged) add('prepare', ddl.dropConstraint(s, table, old.checkName), `drop check of ${old.label}`, `${column.path}/enum`);
  if (retyped) {
    if (old.default !== null) add('prepare', ddl.alterColumn(s, table, column.name, 'drop default'), `drop default of ${old.label}`, `${column.path}/defaultValue`);
    add('types', ddl.alterColumn(s, table, column.name, `type ${ddl.columnType(column)} using ${using}`), `convert ${column.label} from ${ddl.columnType(old)} to ${ddl.columnType(column)}`, `${column.path}/to`);
  }
  if (defaultChanged && column.default !== null) {
    add('defaults', ddl.alterColumn(s, table, column.name, `set default ${column.default}`), `set default of ${column.label}`, `${column.path}/defaultValue`);
  } else if (defaultChanged && old.default !== null && !retyped) {
    add('defaults', ddl.alterColumn(s, table, column.name, 'drop default'), `drop default of ${column.label}`, `${column.path}/defaultValue`);
  }
  if (!old.notNull && column.notNull) {
    if (column.default !== null) {
      const backfill = `update ${ddl.qualified(s, table)} set ${ddl.q(column.name)} = ${column.default} where ${ddl.q(column.name)} is null`;
      add('backfill', backfill, `fill empty ${column.label} with its default`, `${column.path}/min`);
    }
    add('notNull', ddl.alterColumn(s, table, column.name, 'set not null'), `require ${column.label}`, `${column.path}/min`);
  } else if (old.notNull && !column.notNull) {
    add('notNull', ddl.alterColumn(s, table, column.name, 'drop not null'), `allow null in ${column.label}`, `${column.path}/min`);
  }
  // After a type change, rows that break the check (a star rating of 9) are the conversion's fault.
  const checkPath = retyped ? `${column.path}/to` : `${column.path}/enum`;
  if (column.check !== null && checkChanged) add('checks', ddl.addCheck(s, table, column), `check ${column.label}`, checkPath);
}
