/**
 * The indexes a model asks for beyond those of its foreign keys:
 * - its `indexes` member: a (unique) btree index over the columns of the fields named by id;
 * - full-text search: a stored generated column holding the search document of its text fields
 *   (`searchDocument`, in the `simple` language) and a GIN index over it. A search by a caller
 *   who reads every text field matches and ranks on the stored column, so ranking a match reads
 *   a value instead of parsing the row's text again (search.ts).
 * Their names carry a hash of what they cover: a changed index is a new one, and the migration
 * drops the one it replaces (`managed`).
 */
import { createHash } from 'node:crypto';
import { Problem } from '../../errors.ts';
import { columnNameForField } from '../../definition/naming.ts';
import { isRelationship, isToMany } from '../../definition/relationships.ts';
import type { Field, Model } from '../../definition/schema.ts';
import { quoteIdent } from '../../storage/sql.ts';
import { createIndex } from './ddl.ts';
import { objectName } from './names.ts';
import type { ColumnPlan, IndexPlan } from './types.ts';

/** The text search configuration the migration's GIN index is built with (SEARCH_LANGUAGE's default). */
export const DEFAULT_SEARCH_LANGUAGE = 'simple';

/** Whether a field is part of its model's search document: a stored single-valued text field. */
export function isSearchText(field: Pick<Field, 'to' | 'max' | 'computed'>): boolean {
  return field.to === 'p_TEXT' && field.computed === undefined && !isToMany(field);
}

/** The columns a model's search document concatenates: its search text fields, in definition order. */
export function searchColumns(fields: readonly Pick<Field, 'id' | 'to' | 'max' | 'computed'>[]): string[] {
  return fields.filter(isSearchText).map((f) => columnNameForField(f.id));
}

/**
 * `to_tsvector('simple'::regconfig, coalesce("a"."c1", '') || ' ' || coalesce("a"."c2", ''))`:
 * the search document of a row. `language` must be a known configuration name (checked by
 * the caller); the literals are written inline, never bound, so a query's expression is the
 * index's and the index serves it.
 */
export function searchDocument(columns: readonly string[], language: string, alias?: string): string {
  if (!/^[a-z_]+$/.test(language)) throw new Error(`Not a text search configuration name: ${language}`);
  const column = (name: string) => (alias === undefined ? quoteIdent(name) : `${quoteIdent(alias)}.${quoteIdent(name)}`);
  const text = columns.map((c) => `coalesce(${column(c)}, '')`).join(` || ' ' || `);
  return `to_tsvector('${language}'::regconfig, ${text})`;
}

const hashOf = (parts: readonly string[]): string => createHash('sha256').update(parts.join(',')).digest('hex').slice(0, 8);

/**
 * The stored search column of a model whose search text columns are `columns` (in definition
 * order). Named after what it covers: adding, removing or retyping a text field makes a new
 * column. The old one stays for versions served side by side (dropped when a column it reads is
 * retyped, or with a purged field). Field columns start with `f_`, so no field meets it.
 */
export function searchColumnName(columns: readonly string[]): string {
  return `search_${hashOf(columns)}`;
}

/** The model's own indexes and its search index (`m`: the model's index in the definition, for paths). */
export function modelIndexPlans(model: Model, m: number, table: string, columns: readonly ColumnPlan[]): IndexPlan[] {
  const out: IndexPlan[] = [];
  const byId = new Map(model.fields.map((field) => [field.id, field]));
  const stored = new Set(columns.map((c) => c.name));
  (model.indexes ?? []).forEach((index, k) => {
    const names: string[] = [];
    const cols = index.fields.map((fieldId, j) => {
      const field = byId.get(fieldId);
      const column = columnNameForField(fieldId);
      if (!field || !stored.has(column)) {
        // A to-one relationship whose partner's table holds the pointer has no column here.
        const why = field && isRelationship(field) ? 'is a relationship stored in the related table: index its other side' : 'has no column in this model';
        throw new Problem(409, `The index ${k} of ${model.name} names a field that cannot be indexed.`, [{ path: `/models/${m}/indexes/${k}/fields/${j}`, message: why }]);
      }
      names.push(field.name);
      return column;
    });
    const unique = index.unique === true;
    out.push({
      name: objectName(table, unique ? 'key' : 'idx', hashOf(cols)),
      table,
      columns: cols,
      label: `${model.name} (${names.join(', ')})`,
      unique,
      managed: true,
      path: `/models/${m}/indexes/${k}`,
    });
  });
  const text = searchColumns(model.fields);
  if (text.length > 0) {
    const column = searchColumnName(text);
    out.push({
      name: objectName(table, column, 'gin'),
      table,
      columns: [column],
      label: `${model.name} search`,
      method: 'gin',
      managed: true,
      searchColumn: { name: column, expression: searchDocument(text, DEFAULT_SEARCH_LANGUAGE), covers: text },
    });
  }
  return out;
}

/** CREATE INDEX for any planned index: plain, unique, or over an expression with its method. */
export function createIndexStatement(schema: string, index: IndexPlan): string {
  if (!index.unique && !index.expression && !index.method) return createIndex(schema, index);
  const unique = index.unique ? 'unique ' : '';
  const using = index.method ? ` using ${index.method}` : '';
  const what = index.expression ?? index.columns.map(quoteIdent).join(', ');
  return `create ${unique}index if not exists ${quoteIdent(index.name)} on ${quoteIdent(schema)}.${quoteIdent(index.table)}${using} (${what})`;
}

/** DROP INDEX of a managed index the new definition no longer has (a search index: its stored column, the index with it). */
export function dropIndexStatement(schema: string, index: IndexPlan): string {
  if (index.searchColumn) return `alter table ${quoteIdent(schema)}.${quoteIdent(index.table)} drop column if exists ${quoteIdent(index.searchColumn.name)}`;
  return `drop index if exists ${quoteIdent(schema)}.${quoteIdent(index.name)}`;
}

/** ADD COLUMN of a search index's stored document, computed by PostgreSQL on every write. */
export function addSearchColumnStatement(schema: string, index: IndexPlan): string | undefined {
  if (!index.searchColumn) return undefined;
  const { name, expression } = index.searchColumn;
  return `alter table ${quoteIdent(schema)}.${quoteIdent(index.table)} add column if not exists ${quoteIdent(name)} tsvector generated always as (${expression}) stored`;
}
