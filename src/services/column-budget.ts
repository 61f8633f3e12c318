/**
 * PostgreSQL counts every column a table has ever had against its 1600: the columns of removed
 * fields, kept until purged, and the ones purged since (dropped columns keep their number). A
 * definition within the limit (definition/consistency/table-width.ts) can still not be deployed
 * when a table it adds columns to has used its numbers up: refused at publish with a 409 naming
 * the model, instead of a deployment failing on SQLSTATE 54011.
 */
import { sql } from 'kysely';
import { Problem } from '../errors.ts';
import type { SchemaPlan } from '../compiler/schema/index.ts';
import type { Db } from '../storage/db.ts';
import { MAX_TABLE_COLUMNS } from '../definition/consistency/table-width.ts';

/** Model tables of `next` that gain columns over `deployed`, with how many. */
function growingTables(deployed: SchemaPlan, next: SchemaPlan): Map<string, { added: number; label: string; path: string }> {
  const before = new Map(deployed.tables.map((table) => [table.name, new Set(table.columns.map((c) => c.name))]));
  const growing = new Map<string, { added: number; label: string; path: string }>();
  for (const table of next.tables) {
    const had = before.get(table.name);
    if (!had) continue; // a new table: its columns are the definition's own, checked at validation
    const added = table.columns.filter((c) => !had.has(c.name)).length;
    if (added > 0) growing.set(table.name, { added, label: table.label, path: table.path });
  }
  return growing;
}

/** Throws a 409 when a table the version adds columns to would pass PostgreSQL's column numbers. */
export async function checkColumnBudget(db: Db, deployed: SchemaPlan, after: SchemaPlan): Promise<void> {
  const growing = growingTables(deployed, after);
  if (growing.size === 0) return;
  // The highest column number of each table, dropped columns included.
  const used = await sql<{ table: string; used: number }>`select c.relname as table, max(a.attnum)::int as used
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${after.schema} and c.relname = any(${[...growing.keys()]}::text[]) and a.attnum > 0
    group by c.relname`.execute(db.kysely);
  const errors = [];
  for (const row of used.rows) {
    const table = growing.get(row.table)!;
    if (row.used + table.added <= MAX_TABLE_COLUMNS) continue;
    errors.push({
      path: table.path,
      message:
        `The table of ${table.label} has used ${row.used} of PostgreSQL's ${MAX_TABLE_COLUMNS} column numbers (removed and purged fields count too) ` +
        `and this version adds ${table.added}: split the model, or make it a new model.`,
    });
  }
  if (errors.length > 0) throw new Problem(409, 'A model has no room for its new fields in its table.', errors);
}
