/**
 * The import plan: which model each source table fills and which field each source column sets.
 *
 * The specification says where each model and field came from (`provenance`: `table public.film`,
 * `table public.film, column language_id`, `column "species"`), so a table or column is mapped
 * to the element built from it, whatever name normalisation or a clash made of it; without a
 * specification (or for a table it does not name) the extractors' own name normalisation is
 * applied (`film_actor` → `FilmActor`, `language_id` → `language`). Models and fields of the
 * specification are matched by name in the application, as `apply` matched them.
 *
 * A foreign-key column sets its relationship through the key map (writer.ts); a join table of
 * two foreign keys fills the many-to-many built from it.
 */
import type { AppDefinition } from '../definition/schema.ts';
import type { Source } from '../specifications/merge.ts';
import { fieldName, modelName, relationshipFieldName } from '../specifications/names.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../runtime/compiled-app.ts';
import type { SqlTable } from './sql-source.ts';

export type Binding = { kind: 'value'; field: CompiledField } | { kind: 'ref'; field: CompiledField; target: string };

export interface JoinPlan {
  /** The many-to-many field (stored in a join table) of the model `selfTarget` fills. */
  field: CompiledField;
  selfColumn: string;
  otherColumn: string;
  selfTarget: string;
  otherTarget: string;
}

export interface TablePlan {
  /** The source table (a partition's parent, lower case) or a file's name. */
  source: string;
  model?: CompiledModel;
  join?: JoinPlan;
  /** Source column (lower case) → what it sets. */
  bindings: Map<string, Binding>;
  /** The column whose values identify rows for the key map (referenced by foreign keys), if any. */
  keyColumn: string | null;
  /** Whether another table's rows point at this one's (its keys are kept). */
  referenced: boolean;
  /** Source tables this one's rows point at. */
  dependsOn: Set<string>;
  /** Columns of the table in order (for rows written without a column list). */
  columns: string[];
  /** Columns no field takes (left out with a note). */
  unmapped: string[];
  /** A column of record ids (an export's `id`): a uuid there is kept as the record's id. */
  idColumn?: string;
}

export interface SpecificationSource {
  content: AppDefinition;
  provenance: Record<string, Source>;
}

const lower = (name: string) => name.toLowerCase();

/** `table public.film (line 12)` / `table "Film", column "FilmId"` → table and column. */
function parseLocator(locator: string): { table?: string; column?: string; csvColumn?: string } {
  const table = /^table\s+(.+?)(?:\s+\(line \d+\))?(?:,\s*column\s+(.+))?$/.exec(locator);
  if (table) {
    const qualified = table[1]!;
    const last = qualified.slice(qualified.lastIndexOf('.') + 1).replace(/^"|"$/g, '');
    return { table: lower(last), ...(table[2] ? { column: lower(table[2].replace(/^"|"$/g, '')) } : {}) };
  }
  const column = /^column\s+"(.*)"$/.exec(locator);
  return column ? { csvColumn: lower(column[1]!) } : {};
}

/** What the specification's provenance says of each table, column and attachment. */
class ProvenanceIndex {
  /** source table → specification model name. */
  readonly modelOfTable = new Map<string, string>();
  /** attachment → the model built from it when it is no SQL table (a CSV file). */
  readonly modelOfAttachment = new Map<string, string>();
  /** `table\u0000column` (or `csv\u0000attachment\u0000column`) → [model name, field name]. */
  readonly fieldOf = new Map<string, [string, string]>();
  /** join table → [model name, field name] of the many-to-many built from it. */
  readonly joinFields = new Map<string, Array<[string, string]>>();

  constructor(spec: SpecificationSource | undefined) {
    if (!spec) return;
    const models = spec.content.models;
    const tableOfModel = new Map<number, string>();
    for (const [pointer, source] of Object.entries(spec.provenance)) {
      const m = /^\/models\/(\d+)$/.exec(pointer);
      if (!m) continue;
      const model = models[Number(m[1])];
      if (!model) continue;
      const parsed = parseLocator(source.locator);
      if (parsed.table && !parsed.column) {
        this.modelOfTable.set(parsed.table, model.name);
        tableOfModel.set(Number(m[1]), parsed.table);
      } else this.modelOfAttachment.set(source.attachmentId, model.name);
    }
    for (const [pointer, source] of Object.entries(spec.provenance)) {
      const m = /^\/models\/(\d+)\/fields\/(\d+)$/.exec(pointer);
      if (!m) continue;
      const model = models[Number(m[1])];
      const field = model?.fields[Number(m[2])];
      if (!model || !field) continue;
      const parsed = parseLocator(source.locator);
      if (parsed.table && parsed.column && parsed.table === tableOfModel.get(Number(m[1]))) {
        // a self-reference's partner carries its pair's locator too: the field itself comes first
        const key = `${parsed.table}\u0000${parsed.column}`;
        if (!this.fieldOf.has(key)) this.fieldOf.set(key, [model.name, field.name]);
      } else if (parsed.table && !parsed.column) {
        const list = this.joinFields.get(parsed.table) ?? [];
        list.push([model.name, field.name]);
        this.joinFields.set(parsed.table, list);
      } else if (parsed.csvColumn) {
        this.fieldOf.set(`csv\u0000${source.attachmentId}\u0000${parsed.csvColumn}`, [model.name, field.name]);
      }
    }
  }
}

export class PlanBuilder {
  private readonly provenance: ProvenanceIndex;
  private readonly tables = new Map<string, SqlTable>();
  private readonly partitionOf = new Map<string, string>();
  readonly plans = new Map<string, TablePlan>();

  constructor(
    private readonly app: CompiledApp,
    spec: SpecificationSource | undefined,
    tables: SqlTable[],
    partitionOf: Map<string, string>,
  ) {
    this.provenance = new ProvenanceIndex(spec);
    for (const table of tables) if (!this.tables.has(lower(table.name))) this.tables.set(lower(table.name), table);
    for (const [partition, parent] of partitionOf) this.partitionOf.set(lower(partition), lower(parent));
  }

  private appModel(name: string | undefined): CompiledModel | undefined {
    return name === undefined ? undefined : this.app.models.find((m) => m.name === name);
  }

  /** The source table a data statement's table name stands for (a partition → its parent). */
  canonical(table: string): string {
    const name = lower(table);
    return this.partitionOf.get(name) ?? name;
  }

  private modelOfTable(table: string): CompiledModel | undefined {
    return this.appModel(this.provenance.modelOfTable.get(table)) ?? this.appModel(modelName(table));
  }

  private referencedColumn(table: string): string | null {
    for (const other of this.tables.values()) {
      for (const fk of other.foreignKeys) {
        if (lower(fk.table) !== table) continue;
        if (fk.refColumns.length === 1) return lower(fk.refColumns[0]!);
        // `REFERENCES t` without columns names t's primary key
        const key = fk.refColumns.length === 0 && fk.columns.length === 1 ? this.tables.get(table)?.primaryKey : undefined;
        if (key?.length === 1) return lower(key[0]!);
      }
    }
    return null;
  }

  /** The plan of a SQL table (by its canonical name); undefined when nothing in the app takes its rows. */
  sqlTable(table: string): TablePlan | undefined {
    const known = this.plans.get(table);
    if (known) return known;
    const def = this.tables.get(table);
    const model = this.modelOfTable(table);
    const referencedBy = this.referencedColumn(table);
    const single = def && def.primaryKey.length === 1 ? lower(def.primaryKey[0]!) : null;
    const plan: TablePlan = {
      source: table,
      bindings: new Map(),
      keyColumn: referencedBy ?? single,
      referenced: referencedBy !== null,
      dependsOn: new Set(),
      columns: def ? def.columns.map((c) => lower(c.name)) : [],
      unmapped: [],
    };
    if (model) {
      plan.model = model;
      const fks = new Map((def?.foreignKeys ?? []).filter((fk) => fk.columns.length === 1).map((fk) => [lower(fk.columns[0]!), lower(fk.table)]));
      const columns = def ? def.columns.map((c) => lower(c.name)) : [];
      for (const column of columns) {
        const binding = this.bindColumn(model, table, column, fks.get(column));
        if (binding) {
          plan.bindings.set(column, binding);
          if (binding.kind === 'ref' && binding.target !== table) plan.dependsOn.add(binding.target);
        } else if (column !== plan.keyColumn) plan.unmapped.push(column);
      }
    } else if (def) {
      const join = this.joinOf(def);
      if (!join) return undefined;
      plan.join = join;
      plan.dependsOn.add(join.selfTarget);
      plan.dependsOn.add(join.otherTarget);
    } else return undefined;
    this.plans.set(table, plan);
    return plan;
  }

  /** Without a schema: a table named in the data alone, its columns bound by name. */
  namedTable(table: string, columns: string[]): TablePlan | undefined {
    const model = this.modelOfTable(table);
    if (!model) return undefined;
    const plan: TablePlan = { source: table, model, bindings: new Map(), keyColumn: null, referenced: false, dependsOn: new Set(), columns, unmapped: [] };
    for (const column of columns) {
      const binding = this.bindColumn(model, table, lower(column), undefined);
      if (binding) plan.bindings.set(lower(column), binding);
      else plan.unmapped.push(column);
    }
    this.plans.set(table, plan);
    return plan;
  }

  /** A CSV or JSON file's plan: the model built from the file (or named like it, or `model`), columns by header. */
  fileTable(attachmentId: string | null, fileName: string, columns: string[], model?: CompiledModel): TablePlan | undefined {
    const base = fileName.replace(/^.*[\\/]/, '').replace(/\.(csv|tsv|txt|json|ndjson|jsonl)$/i, '');
    const target =
      model ?? this.appModel(attachmentId ? this.provenance.modelOfAttachment.get(attachmentId) : undefined) ?? this.appModel(modelName(base || 'Record'));
    if (!target) return undefined;
    const plan: TablePlan = { source: lower(base), model: target, bindings: new Map(), keyColumn: null, referenced: false, dependsOn: new Set(), columns, unmapped: [] };
    for (const column of columns) {
      if (column === 'id' && !target.fieldsByName.has('id')) {
        plan.idColumn = 'id';
        continue;
      }
      if (column === 'createdAt' || column === 'updatedAt') continue;
      const named = attachmentId ? this.provenance.fieldOf.get(`csv\u0000${attachmentId}\u0000${lower(column)}`) : undefined;
      const field = (named && named[0] === target.name ? target.fieldsByName.get(named[1]) : undefined) ?? target.fieldsByName.get(column) ?? target.fieldsByName.get(fieldName(column));
      if (field && field.column !== null && !field.relation && field.computed === undefined) plan.bindings.set(lower(column), { kind: 'value', field });
      // relationships as record ids (an export read back): a to-one pointer, or a many-to-many's ids
      else if (field?.relation && field.relation.storage.kind !== 'targetColumn') plan.bindings.set(lower(column), { kind: 'value', field });
      else plan.unmapped.push(column);
    }
    return plan;
  }

  private bindColumn(model: CompiledModel, table: string, column: string, fkTable: string | undefined): Binding | undefined {
    const named = this.provenance.fieldOf.get(`${table}\u0000${column}`);
    let field = named && named[0] === model.name ? model.fieldsByName.get(named[1]) : undefined;
    if (fkTable !== undefined) {
      if (field && field.relation?.storage.kind !== 'ownColumn') field = undefined;
      const target = this.modelOfTable(this.canonical(fkTable));
      if (!target) return undefined;
      const candidates = model.fields.filter((f) => f.relation?.storage.kind === 'ownColumn' && f.relation.targetModelId === target.id);
      field ??= candidates.length === 1 ? candidates[0] : candidates.find((f) => f.name === relationshipFieldName(column));
      if (!field?.relation || field.relation.storage.kind !== 'ownColumn') {
        // the relationship was left out (two ways between two models): the column may be a plain field
        const plain = model.fieldsByName.get(fieldName(column));
        return plain && !plain.relation && plain.column !== null ? { kind: 'value', field: plain } : undefined;
      }
      return { kind: 'ref', field, target: this.canonical(fkTable) };
    }
    field ??= model.fieldsByName.get(fieldName(column));
    if (!field || field.relation || field.column === null || field.computed !== undefined) return undefined;
    return { kind: 'value', field };
  }

  private joinOf(def: SqlTable): JoinPlan | undefined {
    const fks = def.foreignKeys.filter((fk) => fk.columns.length === 1);
    if (fks.length !== 2) return undefined;
    const [a, b] = fks as [(typeof fks)[0], (typeof fks)[0]];
    const tableA = this.canonical(a.table);
    const tableB = this.canonical(b.table);
    const modelA = this.modelOfTable(tableA);
    const modelB = this.modelOfTable(tableB);
    if (!modelA || !modelB) return undefined;
    const named = this.provenance.joinFields.get(lower(def.name)) ?? [];
    const pick = (from: CompiledModel, to: CompiledModel) => {
      const candidates = from.fields.filter((f) => f.relation?.storage.kind === 'joinTable' && f.relation.targetModelId === to.id);
      return candidates.find((f) => named.some(([m, n]) => m === from.name && n === f.name)) ?? candidates[0];
    };
    const fromA = pick(modelA, modelB);
    if (fromA) return { field: fromA, selfColumn: lower(a.columns[0]!), otherColumn: lower(b.columns[0]!), selfTarget: tableA, otherTarget: tableB };
    const fromB = pick(modelB, modelA);
    if (fromB) return { field: fromB, selfColumn: lower(b.columns[0]!), otherColumn: lower(a.columns[0]!), selfTarget: tableB, otherTarget: tableA };
    return undefined;
  }
}

/**
 * The tables in an order where each comes after those it points at, where it can: a cycle is
 * broken at a table whose references to the tables still to come are all optional (`Store.manager`
 * beside a required `Staff.store`), else at the first table of the document's order; its later
 * references are set in a second pass (writer.ts).
 */
export function dependencyOrder(tables: string[], plans: Map<string, TablePlan>): string[] {
  const remaining = new Set(tables);
  const order: string[] = [];
  const optionalOnly = (table: string) => {
    const plan = plans.get(table);
    if (!plan) return false;
    const refs = [...plan.bindings.values()].filter((b): b is Extract<Binding, { kind: 'ref' }> => b.kind === 'ref');
    return [...plan.dependsOn]
      .filter((d) => remaining.has(d))
      .every((d) => refs.some((b) => b.target === d) && refs.every((b) => b.target !== d || !b.field.required));
  };
  while (remaining.size > 0) {
    const ready = [...remaining].find((t) => [...(plans.get(t)?.dependsOn ?? [])].every((d) => !remaining.has(d)));
    const next = ready ?? [...remaining].find(optionalOnly) ?? [...remaining][0]!;
    order.push(next);
    remaining.delete(next);
  }
  return order;
}
