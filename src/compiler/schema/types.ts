/**
 * The pure description of an application's database schema (DESIGN §3), and of a
 * migration between two of them. Everything here is data: `plan.ts` builds it from a
 * definition, `render.ts` and `migrate.ts` turn it into SQL text.
 *
 * SQL fragments held here (`sqlType`, `default`, `check`) are already rendered and safe:
 * identifiers went through `quoteIdent`, literals through `literals.ts`.
 */

/** How a foreign key reacts when the referenced row is deleted. */
export type OnDelete = 'cascade' | 'set null';

export interface ColumnPlan {
  /** The column name (from the field id; `id`, `created_at`, `updated_at` for system columns). */
  name: string;
  /** The element type for arrays (`text` for `text[]`). */
  sqlType: string;
  isArray: boolean;
  notNull: boolean;
  /** The rendered DEFAULT expression, or null. */
  default: string | null;
  /** The rendered CHECK expression (already naming the quoted column), or null. */
  check: string | null;
  /** Name of the column's CHECK constraint (meaningful when `check` is set). */
  checkName: string;
  /** The field the column stores; undefined for system columns. */
  fieldId?: string;
  /** The primitive type or model id the field points to. */
  to?: string;
  /** Human label, `ToDo.title`. */
  label: string;
  /** JSON pointer of the field in the definition, for error messages. */
  path: string;
}

export interface TablePlan {
  name: string;
  kind: 'model' | 'join';
  /** The model id (model tables) or the sorted pair of field ids (join tables). */
  sourceIds: string[];
  /** Human label: the model name, or `ToDo.tags ↔ Tag.todos` for a join table. */
  label: string;
  path: string;
  columns: ColumnPlan[];
  primaryKey: string[];
}

export interface ForeignKeyPlan {
  name: string;
  table: string;
  column: string;
  refTable: string;
  onDelete: OnDelete;
  label: string;
  path: string;
}

export interface IndexPlan {
  name: string;
  table: string;
  columns: string[];
  label: string;
  /** A unique index (a model's `indexes` member with `unique: true`). */
  unique?: boolean;
  /** Rendered and safe: an indexed expression instead of the columns. */
  expression?: string;
  /** The index method when not btree (`gin`). */
  method?: 'gin';
  /** Dropped by a migration whose definition no longer has it (model-indexes.ts). */
  managed?: boolean;
  /** JSON pointer of the index in the definition, for error messages. */
  path?: string;
  /**
   * The search index's stored generated column (`expression` rendered and safe, over the
   * columns `covers`): added before the index.
   */
  searchColumn?: { name: string; expression: string; covers: string[] };
}

export interface SchemaPlan {
  /** `app_<32 hex>`. */
  schema: string;
  /** One table per model, in definition order. */
  tables: TablePlan[];
  /** Join tables of to-many ↔ to-many relationships (and unpartnered to-many ones). */
  joinTables: TablePlan[];
  foreignKeys: ForeignKeyPlan[];
  indexes: IndexPlan[];
}

/** One DDL (or backfill) statement of a migration, with what it does in words. */
export interface MigrationStep {
  sql: string;
  /** Human summary, `add column ToDo.priority`. */
  summary: string;
  /** JSON pointer into the new definition blamed when the statement fails. */
  path: string;
}

/** Something the new definition no longer has, kept in the database until a purge. */
export interface RetainedItem {
  kind: 'table' | 'column';
  table: string;
  column?: string;
  /** The model id, field id, or the field ids of a join table. */
  sourceIds: string[];
  label: string;
}

export interface MigrationPlan {
  schema: string;
  steps: MigrationStep[];
  /** `steps` as SQL text, in order; one statement per entry. */
  statements: string[];
  retained: RetainedItem[];
}
