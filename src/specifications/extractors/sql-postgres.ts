/**
 * PostgreSQL DDL through PostgreSQL's own parser (libpg-query, compiled to WASM): every
 * statement pg_dump writes parses, and only tables, enum types, domains and constraints
 * (also `ALTER TABLE … ADD CONSTRAINT`, pg_dump's style) are read; the rest is counted.
 */
import type { A_Const, Constraint, CreateStmt, Node, TypeName } from 'libpg-query';
import type { EnumValue } from '../../definition/schema.ts';
import type { SqlColumn, SqlTable } from './sql-tables.ts';
import type { SqlStatement, StatementsRead } from './sql-statements.ts';
import { checkTable } from './sql-statements.ts';

// Imported on first use: importing libpg-query instantiates its WASM module, ~120 MB of
// resident memory that an idle service should not pay for (issue 28).
let parseSync: typeof import('libpg-query').parseSync;
let loaded: Promise<void> | undefined;
export function loadPostgresParser(): Promise<void> {
  loaded ??= import('libpg-query').then(async (module) => {
    await module.loadModule();
    parseSync = module.parseSync;
  });
  return loaded;
}

function str(node: Node | undefined): string | undefined {
  return node && 'String' in node ? node.String.sval : undefined;
}

function lastName(names: Node[] | undefined): string {
  const parts = (names ?? []).map(str).filter((s): s is string => s !== undefined);
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

function constValue(c: A_Const): EnumValue | undefined {
  if (c.isnull) return undefined;
  if (c.ival) return c.ival.ival ?? 0;
  if (c.fval?.fval !== undefined) return Number(c.fval.fval);
  if (c.boolval) return c.boolval.boolval ?? false;
  if (c.sval) return c.sval.sval ?? '';
  return undefined;
}

/** A constant, possibly cast (`'G'::mpaa_rating`, `'x'::text`). */
function literal(node: Node | undefined): EnumValue | undefined {
  if (!node) return undefined;
  if ('A_Const' in node) return constValue(node.A_Const);
  if ('TypeCast' in node) return literal(node.TypeCast.arg);
  return undefined;
}

/** `col IN ('a', 'b')`, or pg_dump's spelling of it `col = ANY (ARRAY['a'::text, 'b'::text])`. */
function checkEnum(expr: Node | undefined): { column: string; values: EnumValue[] } | undefined {
  if (!expr || !('A_Expr' in expr)) return undefined;
  const { kind, lexpr, rexpr } = expr.A_Expr;
  let column: string | undefined;
  if (lexpr && 'ColumnRef' in lexpr) column = lastName(lexpr.ColumnRef.fields);
  else if (lexpr && 'TypeCast' in lexpr && lexpr.TypeCast.arg && 'ColumnRef' in lexpr.TypeCast.arg) {
    column = lastName(lexpr.TypeCast.arg.ColumnRef.fields);
  }
  if (!column || !rexpr) return undefined;
  let items: Node[] | undefined;
  if (kind === 'AEXPR_IN' && 'List' in rexpr) items = rexpr.List.items;
  else if (kind === 'AEXPR_OP_ANY' && 'A_ArrayExpr' in rexpr) items = rexpr.A_ArrayExpr.elements;
  else if (kind === 'AEXPR_OP_ANY' && 'TypeCast' in rexpr && rexpr.TypeCast.arg && 'A_ArrayExpr' in rexpr.TypeCast.arg) {
    items = rexpr.TypeCast.arg.A_ArrayExpr.elements;
  }
  const values = (items ?? []).map(literal);
  if (values.length === 0 || values.some((v) => v === undefined)) return undefined;
  return { column, values: values as EnumValue[] };
}

interface Domain { type: string; array: boolean; notNull: boolean; enum?: EnumValue[] }

class PostgresReader {
  readonly tables = new Map<string, SqlTable>();
  readonly enums = new Map<string, EnumValue[]>();
  readonly domains = new Map<string, Domain>();
  /** partition → its parent: a partition's constraints are its parent's (pg_dump puts them there). */
  readonly partitionOf = new Map<string, string>();
  readonly replaced: SqlTable[] = [];

  column(name: string, typeName: TypeName | undefined, constraints: Node[] | undefined): SqlColumn {
    const typeKey = lastName(typeName?.names);
    const domain = this.domains.get(typeKey);
    const column: SqlColumn = {
      name,
      type: domain?.type ?? typeKey,
      array: (typeName?.arrayBounds?.length ?? 0) > 0 || (domain?.array ?? false),
      notNull: domain?.notNull ?? false,
    };
    const enumValues = this.enums.get(typeKey) ?? domain?.enum;
    if (enumValues) column.enum = enumValues;
    for (const node of constraints ?? []) {
      if ('Constraint' in node) this.columnConstraint(column, node.Constraint);
    }
    return column;
  }

  columnConstraint(column: SqlColumn, c: Constraint): void {
    switch (c.contype) {
      case 'CONSTR_NOTNULL': column.notNull = true; break;
      case 'CONSTR_PRIMARY': column.notNull = true; break;
      case 'CONSTR_GENERATED': column.generated = true; break;
      case 'CONSTR_IDENTITY': column.computedDefault = 'sequence'; break;
      case 'CONSTR_CHECK': {
        const found = checkEnum(c.raw_expr);
        if (found && found.column === column.name) column.enum = found.values;
        break;
      }
      case 'CONSTR_DEFAULT': {
        const value = literal(c.raw_expr);
        if (value !== undefined) column.defaultValue = value;
        else if (c.raw_expr && 'FuncCall' in c.raw_expr) {
          const fn = lastName(c.raw_expr.FuncCall.funcname);
          column.computedDefault = fn === 'nextval' ? 'sequence' : fn === 'now' ? 'now' : 'other';
        } else if (c.raw_expr && 'SQLValueFunction' in c.raw_expr) {
          column.computedDefault = c.raw_expr.SQLValueFunction.op === 'SVFOP_CURRENT_TIMESTAMP' ? 'now' : 'other';
        }
        break;
      }
      default: break;
    }
  }

  tableConstraint(table: SqlTable, c: Constraint): void {
    const names = (list: Node[] | undefined) => (list ?? []).map(str).filter((s): s is string => s !== undefined);
    if (c.contype === 'CONSTR_PRIMARY') {
      table.primaryKey = names(c.keys);
      for (const key of table.primaryKey) {
        const column = table.columns.find((col) => col.name === key);
        if (column) column.notNull = true;
      }
    } else if (c.contype === 'CONSTR_FOREIGN' && c.pktable?.relname) {
      const columns = names(c.fk_attrs);
      if (!table.foreignKeys.some((fk) => fk.columns.join() === columns.join())) {
        table.foreignKeys.push({ columns, table: c.pktable.relname, refColumns: names(c.pk_attrs) });
      }
    } else if (c.contype === 'CONSTR_CHECK') {
      const found = checkEnum(c.raw_expr);
      const column = found && table.columns.find((col) => col.name === found.column);
      if (column && found) column.enum = found.values;
    }
  }

  createTable(stmt: CreateStmt, line: number): void {
    const name = stmt.relation?.relname;
    if (!name) return;
    const parent = stmt.inhRelations?.[0];
    if (stmt.partbound && parent && 'RangeVar' in parent && parent.RangeVar.relname) {
      this.partitionOf.set(name, parent.RangeVar.relname);
      return;
    }
    const table: SqlTable = {
      name,
      qualifiedName: stmt.relation?.schemaname ? `${stmt.relation.schemaname}.${name}` : name,
      line,
      columns: [],
      primaryKey: [],
      foreignKeys: [],
    };
    const tableConstraints: Constraint[] = [];
    for (const element of stmt.tableElts ?? []) {
      if ('ColumnDef' in element) {
        const def = element.ColumnDef;
        const column = this.column(def.colname ?? '', def.typeName, def.constraints);
        table.columns.push(column);
        for (const node of def.constraints ?? []) {
          if (!('Constraint' in node)) continue;
          const c = node.Constraint;
          if (c.contype === 'CONSTR_PRIMARY') table.primaryKey = [column.name];
          if (c.contype === 'CONSTR_FOREIGN') tableConstraints.push({ ...c, fk_attrs: [{ String: { sval: column.name } }] });
        }
      } else if ('Constraint' in element) {
        tableConstraints.push(element.Constraint);
      }
    }
    checkTable(table, this.tables.size);
    const before = this.tables.get(name);
    if (before) this.replaced.push(before);
    this.tables.set(name, table);
    for (const c of tableConstraints) this.tableConstraint(table, c);
  }

  /** Returns false for a statement that holds nothing a model needs. */
  statement(node: Node, line: number): boolean {
    if ('CreateStmt' in node) this.createTable(node.CreateStmt, line);
    else if ('CreateEnumStmt' in node) {
      const values = (node.CreateEnumStmt.vals ?? []).map(str).filter((s): s is string => s !== undefined);
      this.enums.set(lastName(node.CreateEnumStmt.typeName), values);
    } else if ('CreateDomainStmt' in node) {
      const d = node.CreateDomainStmt;
      const base = this.column('value', d.typeName, d.constraints);
      const domain: Domain = { type: base.type, array: base.array, notNull: base.notNull };
      if (base.enum) domain.enum = base.enum;
      this.domains.set(lastName(d.domainname), domain);
    } else if ('AlterTableStmt' in node) {
      const relname = node.AlterTableStmt.relation?.relname ?? '';
      for (const cmd of node.AlterTableStmt.cmds ?? []) {
        if (!('AlterTableCmd' in cmd)) continue;
        const def = cmd.AlterTableCmd.def;
        if (cmd.AlterTableCmd.subtype === 'AT_AttachPartition' && def && 'PartitionCmd' in def && def.PartitionCmd.name?.relname) {
          this.partitionOf.set(def.PartitionCmd.name.relname, relname);
        }
        if (cmd.AlterTableCmd.subtype !== 'AT_AddConstraint' || !def || !('Constraint' in def)) continue;
        const table = this.tables.get(this.partitionOf.get(relname) ?? relname) ?? this.pendingPartition(relname);
        if (table) this.tableConstraint(table, def.Constraint);
      }
      return true;
    } else return false;
    return true;
  }

  /** A partition attached later in the file than its constraints: held until the end. */
  private readonly orphanConstraints = new Map<string, SqlTable>();
  pendingPartition(relname: string): SqlTable {
    let held = this.orphanConstraints.get(relname);
    if (!held) {
      held = { name: relname, qualifiedName: relname, line: 0, columns: [], primaryKey: [], foreignKeys: [] };
      this.orphanConstraints.set(relname, held);
    }
    return held;
  }

  finish(): SqlTable[] {
    const merge = (from: SqlTable, parentName: string): void => {
      const parent = this.tables.get(parentName);
      if (!parent) return;
      for (const fk of from.foreignKeys) {
        if (!parent.foreignKeys.some((k) => k.columns.join() === fk.columns.join())) parent.foreignKeys.push(fk);
      }
    };
    for (const [partition, parent] of this.partitionOf) {
      const table = this.tables.get(partition) ?? this.orphanConstraints.get(partition);
      if (table) merge(table, parent);
      this.tables.delete(partition);
    }
    return [...this.tables.values()];
  }
}

/** Reads each statement on its own, so one the parser rejects costs only itself. */
export function readPostgres(statements: SqlStatement[]): StatementsRead {
  const reader = new PostgresReader();
  const rejected: StatementsRead['rejected'] = [];
  let ignored = 0;
  for (const statement of statements) {
    let stmts: Node[];
    try {
      stmts = (parseSync(statement.text).stmts ?? []).map((s) => s.stmt).filter((s): s is Node => s !== undefined);
    } catch (error) {
      rejected.push({ ...statement, reason: error instanceof Error ? error.message.slice(0, 200) : String(error) });
      continue;
    }
    for (const stmt of stmts) if (!reader.statement(stmt, statement.line)) ignored += 1;
  }
  const tables = reader.finish();
  return {
    tables, rejected, ignored, partitions: reader.partitionOf.size, partitionNames: [...reader.partitionOf.keys()],
    partitionParents: Object.fromEntries(reader.partitionOf), replaced: reader.replaced, attributesCut: [],
  };
}
