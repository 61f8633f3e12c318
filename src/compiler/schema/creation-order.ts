/**
 * The order in which a migration creates new tables, and the foreign keys each can declare
 * inline. A table created after every table it points to names its foreign keys in its own
 * CREATE TABLE: one statement instead of one more per key, and PostgreSQL skips checking the
 * rows of a table it has just created (issue 28: a separate `alter table … add foreign key`
 * cost a large share of a 500-model deployment). Tables keep the definition's order except
 * that a table comes after the new tables it points to; a key that closes a cycle is left to an
 * `alter table` after all tables.
 *
 * Only for a schema created from nothing (`migrate.ts`): a later migration's `create table if not
 * exists` may meet a table kept from an older version, and would then skip its keys.
 */
import type { ForeignKeyPlan, TablePlan } from './types.ts';

export interface CreationOrder {
  /** The new tables, each after the new tables it points to (cycles aside). */
  tables: TablePlan[];
  /** Table name → the foreign keys its CREATE TABLE declares. */
  inline: Map<string, ForeignKeyPlan[]>;
}

export function creationOrder(tables: readonly TablePlan[], foreignKeys: readonly ForeignKeyPlan[]): CreationOrder {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const keysOf = new Map<string, ForeignKeyPlan[]>();
  for (const fk of foreignKeys) {
    if (!byName.has(fk.table)) continue;
    const keys = keysOf.get(fk.table);
    if (keys) keys.push(fk);
    else keysOf.set(fk.table, [fk]);
  }
  const order: TablePlan[] = [];
  const inline = new Map<string, ForeignKeyPlan[]>();
  const created = new Set<string>();
  const visiting = new Set<string>();
  // Iterative depth-first walk: a chain of 1,000 models must not exhaust the stack.
  for (const root of tables) {
    if (created.has(root.name)) continue;
    const stack: Array<{ table: TablePlan; next: number }> = [{ table: root, next: 0 }];
    visiting.add(root.name);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const keys = keysOf.get(top.table.name) ?? [];
      const ref = top.next < keys.length ? byName.get(keys[top.next].refTable) : undefined;
      if (top.next < keys.length) {
        top.next++;
        if (ref && !created.has(ref.name) && !visiting.has(ref.name)) {
          visiting.add(ref.name);
          stack.push({ table: ref, next: 0 });
        }
        continue;
      }
      stack.pop();
      visiting.delete(top.table.name);
      const name = top.table.name;
      const own = keys.filter((fk) => fk.refTable === name || created.has(fk.refTable));
      if (own.length > 0) inline.set(name, own);
      created.add(name);
      order.push(top.table);
    }
  }
  return { tables: order, inline };
}
