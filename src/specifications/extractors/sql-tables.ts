/**
 * What the two SQL dialect readers (sql-postgres.ts, sql-mysql.ts) agree on: tables as the
 * DDL states them, and the one translation of those tables into a draft (DESIGN §13):
 * tables → models, column types → primitive types, single-column foreign keys →
 * relationships naming their to-many partner on the referenced table (build.ts creates
 * it there: one relationship is stated once), a table of just two
 * foreign keys (plus a key and timestamps) → `joinOf`, `NOT NULL` → required, literal
 * `DEFAULT`s → defaultValue.
 */
import pluralize from 'pluralize';
import type { EnumValue, PrimitiveType } from '../../definition/schema.ts';
import type { DraftField, DraftModel, DraftWarning } from './types.ts';
import { wordsOf } from '../names.ts';

export interface SqlColumn {
  name: string;
  /** The type's last name part, lower case: `int4`, `varchar`, `mpaa_rating`, `timestamp`. */
  type: string;
  array: boolean;
  notNull: boolean;
  /** A literal default, already a JSON value. */
  defaultValue?: EnumValue;
  /** A default the database computes: `now()`, a sequence, `AUTO_INCREMENT`, an identity. */
  computedDefault?: 'now' | 'sequence' | 'other';
  /** Values from `ENUM(…)`, an enum type, or `CHECK (col IN (…))`. */
  enum?: EnumValue[];
  /** `GENERATED ALWAYS AS (…)`: computed by the database, not data a client sends. */
  generated?: boolean;
}

export interface SqlForeignKey {
  columns: string[];
  table: string;
  refColumns: string[];
}

export interface SqlTable {
  /** The table's name without its schema. */
  name: string;
  /** `public.film`: how the document names it, for locators. */
  qualifiedName: string;
  line: number;
  columns: SqlColumn[];
  primaryKey: string[];
  foreignKeys: SqlForeignKey[];
}

const NUMBER_TYPES = new Set([
  'int', 'int2', 'int4', 'int8', 'integer', 'smallint', 'bigint', 'tinyint', 'mediumint', 'serial',
  'serial2', 'serial4', 'serial8', 'bigserial', 'smallserial', 'numeric', 'decimal', 'dec', 'real',
  'float', 'float4', 'float8', 'double', 'double precision', 'money', 'year', 'bit',
]);
const TEXT_TYPES = new Set([
  'text', 'varchar', 'char', 'bpchar', 'character', 'character varying', 'nvarchar', 'nchar',
  'citext', 'uuid', 'tinytext', 'mediumtext', 'longtext', 'name', 'inet', 'cidr', 'macaddr', 'set', 'enum',
]);
const TYPE_BY_NAME: Record<string, PrimitiveType> = {
  bool: 'p_BOOLEAN', boolean: 'p_BOOLEAN',
  date: 'p_DATE',
  timestamp: 'p_DATE_TIME', timestamptz: 'p_DATE_TIME', datetime: 'p_DATE_TIME',
  time: 'p_TIME', timetz: 'p_TIME',
  bytea: 'p_FILE', blob: 'p_FILE', tinyblob: 'p_FILE', mediumblob: 'p_FILE', longblob: 'p_FILE',
  binary: 'p_FILE', varbinary: 'p_FILE',
};
/** Columns that hold no data a client would enter: search indexes, vectors. Left out with a warning. */
const SKIPPED_TYPES = new Set(['tsvector', 'tsquery', 'vector']);
/** Column types a join table may have besides its two foreign keys, when they only record the row's own changes. */
const TIMESTAMP_TYPES: ReadonlySet<PrimitiveType> = new Set(['p_DATE_TIME', 'p_DATE']);
/** `last_update`, `created_at`, `modified_on`, `updated`…: when the row changed, not a fact about the pairing. */
const BOOKKEEPING = /^(?:last_?)?(?:update|updated|modified|modify|created|create|inserted|changed)(?:_?(?:at|on|date|time|timestamp|ts))?$|^(?:date|time)_?(?:created|modified|updated)$/i;

export function primitiveOf(column: SqlColumn): PrimitiveType | undefined {
  if (column.enum) return typeof column.enum[0] === 'number' ? 'p_NUMBER' : 'p_TEXT';
  const mapped = TYPE_BY_NAME[column.type];
  if (mapped) return mapped;
  if (NUMBER_TYPES.has(column.type)) return 'p_NUMBER';
  if (TEXT_TYPES.has(column.type)) return 'p_TEXT';
  return undefined;
}

/** A single-column key of a number or uuid type: the application's own record ids replace it. */
function isSurrogateKey(table: SqlTable, column: SqlColumn): boolean {
  if (table.primaryKey.length !== 1 || table.primaryKey[0] !== column.name) return false;
  return primitiveOf(column) === 'p_NUMBER' || column.type === 'uuid';
}

function singleForeignKeys(table: SqlTable): SqlForeignKey[] {
  return table.foreignKeys.filter((fk) => fk.columns.length === 1);
}

/**
 * Two foreign keys, a key of nothing but those two (or none), timestamps besides, and no
 * table pointing at it: `film_actor (actor_id, film_id, last_update)`. A table with its own
 * key or referenced by others (`inventory`, `rental`) is an entity, not a pairing.
 */
function joinTargets(table: SqlTable, referenced: ReadonlySet<string>): [string, string] | undefined {
  const fks = singleForeignKeys(table);
  if (fks.length !== 2 || table.foreignKeys.length !== 2 || referenced.has(table.name)) return undefined;
  const fkColumns = new Set(fks.map((fk) => fk.columns[0]));
  if (!table.primaryKey.every((key) => fkColumns.has(key))) return undefined;
  const others = table.columns.filter((c) => !fkColumns.has(c.name));
  // Columns of its own that carry meaning (`from_date`, `quantity`) make the pairing a model of
  // its own with two to-one relationships; a timestamp of the row's last change does not.
  const onlyTimestamps = others.every((c) => {
    const type = primitiveOf(c);
    return type !== undefined && TIMESTAMP_TYPES.has(type) && (BOOKKEEPING.test(c.name) || c.computedDefault === 'now');
  });
  // in the order the table lists the columns, as a reader sees them (not the order of the constraints)
  const position = (fk: SqlForeignKey) => table.columns.findIndex((c) => c.name === fk.columns[0]);
  const [first, second] = [...fks].sort((a, b) => position(a) - position(b));
  return onlyTimestamps ? [first!.table, second!.table] : undefined;
}

const wordKey = (name: string): string => wordsOf(name).join('_').toLowerCase();

/** `employees` → `employee`, `InvoiceLine` → `Invoice_Line`: one record of the table, as words. */
function singularOf(table: string): string {
  const words = wordsOf(table);
  if (words.length === 0) return table;
  words[words.length - 1] = pluralize.singular(words[words.length - 1]!);
  return words.join('_');
}

/** The words of `column` before those of `key` it ends with: `manager_emp_no` less `emp_no` → `manager`. */
function qualifier(column: string, key: string): string | undefined {
  const words = wordsOf(column);
  const keyWords = wordsOf(key);
  if (keyWords.length === 0 || words.length <= keyWords.length) return undefined;
  const tail = words.slice(-keyWords.length).join('_').toLowerCase();
  return tail === keyWords.join('_').toLowerCase() ? words.slice(0, -keyWords.length).join('_') : undefined;
}

/**
 * A foreign key's field, named for what it points at: the target's own key under its own name
 * (`emp_no` → employees.emp_no, `CustomerId` → Customer.CustomerId) is the target, singular
 * (`employee`, `Customer`); a qualified key of its own is its qualifier (`manager_emp_no` →
 * `manager`); a qualified key that names the target, or a direction, keeps both
 * (`original_language_id` → `original_language`, `from_stop_no` → `from_stop`); anything else
 * keeps the column's name (`reports_to`, `ship_via`; build.ts drops an `_id` suffix). A name
 * another column of the table already has falls back to the column's.
 */
function relationshipName(table: SqlTable, fk: SqlForeignKey, target: SqlTable | undefined): string {
  const column = fk.columns[0]!;
  const key = fk.refColumns[0] ?? target?.primaryKey[0] ?? '';
  const qualified = key ? qualifier(column, key) : undefined;
  const singular = singularOf(fk.table);
  const namesTarget = wordKey(key).replace(/_(?:id|no|num|code|key)$/, '') === wordKey(singular);
  let name = column;
  if (key && wordKey(column) === wordKey(key)) name = singular;
  else if (qualified) name = namesTarget || DIRECTION.test(qualified) ? `${qualified}_${singular}` : qualified;
  const clash = table.columns.some((c) => c.name !== column && wordKey(c.name) === wordKey(name));
  return clash ? column : name;
}

const DIRECTION = /^(?:from|to|src|source|dst|dest|destination|target|origin|prev|previous|next|old|new|parent|child)$/i;

/**
 * The partner's name on the referenced table: the referencing table pluralised
 * (`customer.address_id` → `address.customers`), qualified by the relationship when one table
 * points at the same target twice (`film.original_language_id` → `films_as_original_language`).
 */
function partnerName(table: SqlTable, fk: SqlForeignKey, field: string): string {
  const plural = pluralize(table.name);
  const sameTarget = singleForeignKeys(table).filter((other) => other.table === fk.table);
  return sameTarget.length > 1 && wordKey(field) !== wordKey(singularOf(fk.table)) ? `${plural}_as_${wordKey(field).replace(/_id$/, '')}` : plural;
}

export function tablesToModels(tables: SqlTable[], warnings: DraftWarning[]): DraftModel[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const referenced = new Set(tables.flatMap((t) => t.foreignKeys.map((fk) => fk.table)));
  const models = new Map<string, DraftModel>();
  const skippedColumns: string[] = [];
  const naturalKeys: string[] = [];
  for (const table of tables) {
    const locator = `table ${table.qualifiedName} (line ${table.line})`;
    const fkByColumn = new Map(singleForeignKeys(table).map((fk) => [fk.columns[0]!, fk]));
    const join = joinTargets(table, referenced);
    const fields: DraftField[] = [];
    for (const column of table.columns) {
      const fieldLocator = `table ${table.qualifiedName}, column ${column.name}`;
      const fk = fkByColumn.get(column.name);
      if (fk && byName.has(fk.table)) {
        const name = relationshipName(table, fk, byName.get(fk.table));
        fields.push({
          name,
          type: { model: fk.table },
          many: false,
          required: column.notNull,
          // a join table's two keys become one many-to-many (build.ts), not two one-to-many
          ...(join ? {} : { partner: partnerName(table, fk, name) }),
          locator: fieldLocator,
        });
        continue;
      }
      if (fk) {
        warnings.push({ locator: fieldLocator, message: `references ${fk.table}, which the document does not define: kept as a plain column` });
      }
      if (isSurrogateKey(table, column) && !fk) continue;
      const type = primitiveOf(column);
      if (column.generated || SKIPPED_TYPES.has(column.type)) {
        skippedColumns.push(`${table.name}.${column.name} (${column.generated ? 'generated' : column.type})`);
        continue;
      }
      if (!type) {
        warnings.push({ locator: fieldLocator, message: `type ${column.type} has no equivalent: read as text` });
      }
      const field: DraftField = {
        name: column.name,
        type: type ?? 'p_TEXT',
        many: column.array || column.type === 'set',
        // a NOT NULL column the database fills (a sequence, uuidv7(), CURRENT_DATE) is not one a
        // client must send; `now()` becomes a `now` default below and stays required
        required: column.notNull && (column.computedDefault === undefined || column.computedDefault === 'now'),
        locator: fieldLocator,
      };
      // A natural key (`customer_id CHAR(5)` = 'ALFKI'): data the records are known by, kept as a
      // required field that no two records share.
      if (table.primaryKey.length === 1 && table.primaryKey[0] === column.name) {
        field.unique = true;
        field.required = true;
        naturalKeys.push(`${table.name}.${column.name}`);
      }
      if (column.enum) field.enum = column.enum;
      if (column.defaultValue !== undefined) field.defaultValue = column.defaultValue;
      else if (column.computedDefault === 'now' && type === 'p_DATE_TIME') field.defaultValue = { expression: 'now' };
      fields.push(field);
    }
    const model: DraftModel = { name: table.name, fields, locator };
    if (join) model.joinOf = join;
    models.set(table.name, model);
  }
  for (const table of tables) {
    for (const fk of table.foreignKeys.filter((k) => k.columns.length > 1)) {
      warnings.push({
        locator: `table ${table.qualifiedName}`,
        message: `foreign key (${fk.columns.join(', ')}) over several columns is not a relationship appbuilder can hold: left out`,
      });
    }
  }
  if (naturalKeys.length > 0) {
    warnings.push({
      locator: 'document',
      message: `${pluralize('natural key', naturalKeys.length, true)} kept as required fields whose values no two records share (unique): ${naturalKeys.join(', ')}`,
    });
  }
  if (skippedColumns.length > 0) {
    warnings.push({
      locator: 'document',
      message: `${pluralize('column', skippedColumns.length, true)} of computed or search-index data left out: ${skippedColumns.join(', ')}`,
    });
  }
  return [...models.values()];
}
