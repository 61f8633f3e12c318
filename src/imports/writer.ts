/**
 * The streamed writer of an import: rows in, records out, in batches: on PostgreSQL one
 * `COPY … FROM STDIN` per batch (copy-rows.ts), on PGlite (and for models with array columns)
 * multi-row INSERTs (`json_to_recordset` of one JSON parameter per batch: one statement, one
 * plan, any width). Each row passes the write path's field checks (`validateWrite`: types, enums,
 * required); access rules do not apply (an administrator's import).
 *
 * Source keys become record ids through the key map: a table whose rows others point at keeps
 * `key → id` for each row, so a foreign key lands on the record made from the row it named,
 * whether that row came before or after it. A reference to a row not written yet (a cycle, a
 * self-reference further down) is set in a second pass at the end when the field is optional.
 *
 * `abort`: the first bad row stops the import (the caller's transaction rolls back).
 * `skip`: a bad row is reported and left out; a batch the database refuses is retried row by row
 * under savepoints, so only the rows it refuses are left out.
 */
import { sql } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { ident } from '../storage/sql.ts';
import { isUuid, uuidv7Batch } from '../tools/ids.ts';
import { PRIMITIVE_SQL_TYPES } from '../compiler/schema/columns.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../runtime/compiled-app.ts';
import { expressionDefaults } from '../runtime/writes/defaults.ts';
import type { TablePlan } from './plan.ts';
import type { SourceRow } from './sql-source.ts';
import type { SourceValue } from './sql-rows.ts';
import { keyOf } from './values.ts';
import { copyable, copyInto, copyLine, jsonRecord } from './copy-rows.ts';
import { recordCreated, refreshCreated } from './import-events.ts';
import { Absent, compileShape, FieldError, tableColumns, type Convert, type Shape, type Slot } from './row-shape.ts';

export type OnError = 'abort' | 'skip';

export interface ModelReport {
  model: string;
  rows: number;
  imported: number;
  rejected: number;
}

export interface RowError {
  model: string;
  /** The row's place among its table's rows, from 1. */
  row: number;
  /** The line of the document it was read from, when known. */
  line?: number;
  path: string;
  message: string;
}

export interface ImportReport {
  models: ModelReport[];
  errors: RowError[];
  /** Columns and tables left out, said once each. */
  notes: string[];
}

/** The first bad row of an `abort` import: the import stops and nothing is kept. */
export class ImportAborted extends Error {
  override name = 'ImportAborted';
  constructor(readonly error: RowError) {
    super(`Row ${error.row} of ${error.model}${error.line ? ` (line ${error.line})` : ''}: ${error.path || 'the row'} ${error.message}`);
  }
}

export const MAX_REPORTED_ERRORS = 100;
/**
 * Rows per INSERT (one JSON parameter). Small enough that a batch's rows die young: rows kept
 * across many scavenges are promoted and pile up as old-space garbage until a full collection
 * (measured at 100,000 rows: RSS +115 MB with 2,000 a batch, +88 MB with 500), and large enough
 * that round trips stay a small part of the time (one batch is in flight while the next fills).
 */
const DEFAULT_BATCH = 500;
/** Rows per COPY: a COPY costs one round trip and no server-side JSON, so batches can be larger. */
const COPY_BATCH = 2_000;

/** Record ids made at once. */
const ID_BATCH = 512;

interface KeyEntry {
  id: string;
  written: boolean;
}

interface PendingRef {
  model: CompiledModel;
  field: CompiledField;
  id: string;
  /** The id of the record's `{Model}.created` event (its payload is read again once the reference is set). */
  event: string;
  target: KeyEntry;
  row: number;
  line: number;
}

/** A checked row waiting for its batch: its line (COPY text) or JSON record, and its many-to-many ids. */
interface Staged {
  id: string;
  /** The id of its `{Model}.created` event (import-events.ts). */
  event: string;
  /** The row as `copyLine` or `jsonRecord` wrote it. */
  text: string;
  /** Many-to-many ids the row sets (stored in a join table). */
  links?: Array<[CompiledField, string[]]>;
  row: number;
  line: number;
  key: KeyEntry | undefined;
}

function sqlTypeOf(field: CompiledField): string {
  if (field.relation) return 'uuid';
  const type = (PRIMITIVE_SQL_TYPES as Readonly<Record<string, string>>)[field.to] ?? 'text';
  return field.many && type !== 'jsonb' ? `${type}[]` : type;
}

export interface WriterOptions {
  onError: OnError;
  batchSize?: number;
  /** Write batches by `COPY … FROM STDIN` (the `pg` driver only). */
  copy?: boolean;
  /** Told after each batch: rows read so far over every table. */
  onProgress?: (rowsRead: number) => void | Promise<void>;
}

export class ImportWriter {
  private readonly keys = new Map<string, Map<string, KeyEntry>>();
  private readonly done = new Set<string>();
  private readonly pending: PendingRef[] = [];
  private readonly reports = new Map<string, ModelReport>();
  readonly errors: RowError[] = [];
  readonly notes: string[] = [];
  private rowsRead = 0;
  private savepoint = 0;

  constructor(
    private readonly executor: Executor,
    private readonly app: CompiledApp,
    private readonly options: WriterOptions,
  ) {}

  private report(model: CompiledModel): ModelReport {
    let report = this.reports.get(model.name);
    if (!report) this.reports.set(model.name, (report = { model: model.name, rows: 0, imported: 0, rejected: 0 }));
    return report;
  }

  private keyMap(table: string): Map<string, KeyEntry> {
    let map = this.keys.get(table);
    if (!map) this.keys.set(table, (map = new Map()));
    return map;
  }

  private ids: string[] = [];

  /** A new record id (UUIDv7, made a few hundred at a time). */
  private newId(): string {
    if (this.ids.length === 0) this.ids = uuidv7Batch(ID_BATCH).reverse();
    return this.ids.pop()!;
  }

  private entry(table: string, key: string): KeyEntry {
    const map = this.keyMap(table);
    let entry = map.get(key);
    if (!entry) map.set(key, (entry = { id: this.newId(), written: false }));
    return entry;
  }

  private reject(report: ModelReport | undefined, error: RowError): void {
    if (this.options.onError === 'abort') throw new ImportAborted(error);
    if (report) report.rejected += 1;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push(error);
  }

  /** Writes one table's rows: a model's records, or a join table's pairs. */
  async table(plan: TablePlan, rows: Iterable<SourceRow> | AsyncIterable<SourceRow>): Promise<void> {
    if (plan.join) await this.joinRows(plan, rows);
    else if (plan.model) await this.modelRows(plan, plan.model, rows);
    this.done.add(plan.source);
  }

  private async modelRows(plan: TablePlan, model: CompiledModel, rows: Iterable<SourceRow> | AsyncIterable<SourceRow>): Promise<void> {
    const report = this.report(model);
    const absent = new Absent(expressionDefaults(this.app, model, null));
    const copy = this.options.copy === true && copyable(model);
    const batchSize = this.options.batchSize ?? (copy ? COPY_BATCH : DEFAULT_BATCH);
    const columns = tableColumns(model);
    const shapes = new WeakMap<string[], Shape>();
    const shapesByNames = new Map<string, Shape>();
    const converters = new Map<CompiledField, Convert>();
    const droppedFiles = new Set<string>();
    const values: unknown[] = new Array(columns.length);
    let batch: Staged[] = [];
    let inflight: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | undefined;
    const settle = async () => {
      await inflight;
      if (failure) throw failure.error;
    };
    for await (const row of rows) {
      report.rows += 1;
      this.rowsRead += 1;
      const ordinal = report.rows;
      if (row.unreadable) {
        this.reject(report, { model: model.name, row: ordinal, line: row.line, path: '', message: row.unreadable });
        continue;
      }
      let shape = shapes.get(row.columns);
      if (!shape) {
        // rows of one file share their columns array; SQL statements and JSON objects each have their own
        const names = row.columns.join('\u0000');
        shape = shapesByNames.get(names);
        if (!shape) shapesByNames.set(names, (shape = compileShape(plan, model, row.columns, converters)));
        shapes.set(row.columns, shape);
      }
      const key = shape.keyIndex >= 0 ? keyOf(row.values[shape.keyIndex] ?? null) : null;
      const own = plan.referenced && key !== null ? this.entry(plan.source, key) : undefined;
      if (own?.written) {
        this.reject(report, { model: model.name, row: ordinal, line: row.line, path: `/${plan.keyColumn}`, message: `repeats the key ${key} of an earlier row` });
        continue;
      }
      const given = shape.idIndex >= 0 ? row.values[shape.idIndex] : undefined;
      const id = typeof given === 'string' && isUuid(given) ? given.toLowerCase() : (own?.id ?? this.newId());
      let later: Array<{ field: CompiledField; target: KeyEntry }> | undefined;
      let links: Staged['links'];
      try {
        const { slots } = shape;
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i]!;
          values[i] = slot.index < 0 ? absent.value(slot.field) : slot.target !== undefined ? this.reference(slot, row.values[slot.index] ?? null, (ref) => (later ??= []).push(ref)) : this.present(slot, row, absent, droppedFiles);
        }
        for (const slot of shape.links) {
          const ids = this.present(slot, row, absent, droppedFiles);
          if (Array.isArray(ids) && ids.length > 0) (links ??= []).push([slot.field, ids as string[]]);
        }
      } catch (error) {
        if (!(error instanceof FieldError)) throw error;
        this.reject(report, { model: model.name, row: ordinal, line: row.line, path: error.path, message: error.message });
        continue;
      }
      const event = this.newId();
      if (later) for (const { field, target } of later) this.pending.push({ model, field, id, event, target, row: ordinal, line: row.line });
      if (own) own.written = true;
      batch.push({ id, event, text: copy ? copyLine(id, values) : jsonRecord(id, columns, values), ...(links ? { links } : {}), row: ordinal, line: row.line, key: own });
      if (batch.length >= batchSize) {
        // one batch in flight while the next is read and checked
        await settle();
        const full = batch;
        batch = [];
        inflight = this.flush(model, report, columns, full, copy).catch((error: unknown) => {
          failure = { error };
        });
        await this.options.onProgress?.(this.rowsRead);
      }
    }
    await settle();
    await this.flush(model, report, columns, batch, copy);
    for (const name of droppedFiles) this.notes.push(`${model.name}.${name}: values that are not https URLs (binary data) were left out`);
    await this.options.onProgress?.(this.rowsRead);
  }

  /** A value-bound field's checked value in `row` (a file that is no https URL counts as not set). */
  private present(slot: Slot, row: SourceRow, absent: Absent, droppedFiles: Set<string>): unknown {
    const raw = row.values[slot.index] ?? null;
    if (slot.file && raw !== null && !(typeof raw === 'string' && raw.startsWith('https://'))) {
      droppedFiles.add(slot.field.name);
      return absent.value(slot.field);
    }
    return slot.convert!(raw, row.cells === true);
  }

  /** A foreign key's record id through the key map; a row not written yet is set later when the field is optional. */
  private reference(slot: Slot, raw: SourceValue, defer: (ref: { field: CompiledField; target: KeyEntry }) => void): string | null {
    const { field } = slot;
    const refKey = keyOf(raw);
    if (refKey === null) {
      if (field.required) throw new FieldError(`/${field.name}`, 'is required and cannot be null');
      return null;
    }
    const known = this.keys.get(slot.target!)?.get(refKey);
    // written: in an earlier batch, or staged in this one (a statement's rows may point at each other)
    if (known?.written) return known.id;
    if (this.done.has(slot.target!)) throw new FieldError(`/${field.name}`, `points at ${slot.target} ${refKey}, which the data does not hold`);
    const entry = this.entry(slot.target!, refKey);
    if (field.required) return entry.id;
    defer({ field, target: entry });
    return null;
  }

  private async flush(model: CompiledModel, report: ModelReport, columns: CompiledField[], batch: Staged[], copy: boolean): Promise<void> {
    if (batch.length === 0) return;
    const write = (rows: Staged[]) => (copy ? this.copy(model, columns, rows) : this.insert(model, columns, rows));
    if (this.options.onError === 'abort') {
      try {
        await write(batch);
      } catch (error) {
        throw refusedBatch(model, batch, error);
      }
      report.imported += batch.length;
      return;
    }
    // skip: the batch at once, else row by row so only the rows refused are left out
    if (await this.tryWrite(() => write(batch))) {
      report.imported += batch.length;
      return;
    }
    for (const staged of batch) {
      if (await this.tryWrite(() => write([staged]))) report.imported += 1;
      else {
        if (staged.key) staged.key.written = false;
        this.reject(report, { model: model.name, row: staged.row, line: staged.line, path: '', message: this.lastMessage || 'was refused by the database' });
      }
    }
  }

  /** Why the database refused the last write tried under a savepoint. */
  private lastMessage = '';

  /** Runs `work` under a savepoint: null when it succeeded, else its error (everything it did undone). */
  private async savepointed(work: () => Promise<void>): Promise<unknown> {
    const name = `import_${++this.savepoint}`;
    await sql`savepoint ${sql.raw(name)}`.execute(this.executor);
    try {
      await work();
      await sql`release savepoint ${sql.raw(name)}`.execute(this.executor);
      return null;
    } catch (error) {
      await sql`rollback to savepoint ${sql.raw(name)}`.execute(this.executor);
      return error ?? new Error('refused');
    }
  }

  /** True when written; false (nothing of it kept, `lastMessage` says why) when the database refused it. */
  private async tryWrite(write: () => Promise<void>): Promise<boolean> {
    const error = await this.savepointed(write);
    if (error) this.lastMessage = databaseMessage(error);
    return error === null;
  }

  private async copy(model: CompiledModel, columns: CompiledField[], batch: Staged[]): Promise<void> {
    let lines = '';
    for (const staged of batch) lines += staged.text;
    await copyInto(this.executor, this.app.schema, model.table, columns, lines);
    await this.links(batch);
    await this.events(model, batch);
  }

  /** The batch's `{Model}.created` events, in the same transaction (and savepoint) as its rows. */
  private async events(model: CompiledModel, batch: Staged[]): Promise<void> {
    await recordCreated(this.executor, this.app, model, batch.map((s) => s.id), batch.map((s) => s.event));
  }

  private async insert(model: CompiledModel, columns: CompiledField[], batch: Staged[]): Promise<void> {
    const names = [sql`id`, ...columns.map((f) => ident(f.column!))];
    const types = [sql`id uuid`, ...columns.map((f) => sql`${ident(f.column!)} ${sql.raw(sqlTypeOf(f))}`)];
    let rows = '[';
    for (let i = 0; i < batch.length; i++) rows += (i > 0 ? ',' : '') + batch[i]!.text;
    rows += ']';
    await sql`insert into ${ident(this.app.schema, model.table)} (${sql.join(names)})
      select ${sql.join(names)} from json_to_recordset(cast(${rows} as json)) as r(${sql.join(types)})`.execute(this.executor);
    await this.links(batch);
    await this.events(model, batch);
  }

  /** Many-to-manys set by a row's values (an NDJSON row's id array), in their join tables. */
  private async links(batch: Staged[]): Promise<void> {
    for (const staged of batch) for (const [field, ids] of staged.links ?? []) await this.linkMany(field, staged.id, ids);
  }

  private async linkMany(field: CompiledField, id: string, targets: string[]): Promise<void> {
    const storage = field.relation!.storage;
    if (storage.kind !== 'joinTable') return;
    const pairs = targets.map((target) => ({ a: id, b: target }));
    await this.insertPairs(storage.table, storage.selfColumn, storage.otherColumn, pairs);
  }

  private async insertPairs(table: string, selfColumn: string, otherColumn: string, pairs: Array<{ a: string; b: string }>): Promise<void> {
    await sql`insert into ${ident(this.app.schema, table)} (${ident(selfColumn)}, ${ident(otherColumn)})
      select a, b from json_to_recordset(cast(${JSON.stringify(pairs)} as json)) as r(a uuid, b uuid)
      on conflict do nothing`.execute(this.executor);
  }

  /** A join table's rows: pairs of the two records its keys name, in the many-to-many. */
  private async joinRows(plan: TablePlan, rows: Iterable<SourceRow> | AsyncIterable<SourceRow>): Promise<void> {
    const join = plan.join!;
    const ownerModel = this.app.models.find((m) => m.fields.includes(join.field))!;
    const label = `${ownerModel.name}.${join.field.name}`;
    const report = this.reports.get(label) ?? { model: label, rows: 0, imported: 0, rejected: 0 };
    this.reports.set(label, report);
    const storage = join.field.relation!.storage;
    if (storage.kind !== 'joinTable') return;
    let pairs: Array<{ a: string; b: string; row: number; line: number }> = [];
    const write = async () => {
      if (pairs.length === 0) return;
      const batch = pairs;
      pairs = [];
      const insert = () => this.insertPairs(storage.table, storage.selfColumn, storage.otherColumn, batch);
      const error = this.options.onError === 'abort' ? await insert().then(() => null) : await this.savepointed(insert);
      if (error === null) report.imported += batch.length;
      else for (const pair of batch) this.reject(report, { model: label, row: pair.row, line: pair.line, path: '', message: databaseMessage(error) });
    };
    for await (const row of rows) {
      report.rows += 1;
      this.rowsRead += 1;
      const lowerColumns = row.columns.map((c) => c.toLowerCase());
      const self = keyOf(row.values[lowerColumns.indexOf(join.selfColumn)] ?? null);
      const other = keyOf(row.values[lowerColumns.indexOf(join.otherColumn)] ?? null);
      const a = self === null ? undefined : this.keys.get(join.selfTarget)?.get(self);
      const b = other === null ? undefined : this.keys.get(join.otherTarget)?.get(other);
      if (!a?.written || !b?.written) {
        const [column, table, key] = !a?.written ? [join.selfColumn, join.selfTarget, self] : [join.otherColumn, join.otherTarget, other];
        this.reject(report, { model: label, row: report.rows, line: row.line, path: `/${column}`, message: `points at ${table} ${key}, which the data does not hold` });
        continue;
      }
      pairs.push({ a: a.id, b: b.id, row: report.rows, line: row.line });
      if (pairs.length >= (this.options.batchSize ?? DEFAULT_BATCH)) await write();
    }
    await write();
  }

  /** Sets the references that pointed at rows written later; answers the report. */
  async finish(): Promise<ImportReport> {
    const groups = new Map<CompiledField, PendingRef[]>();
    for (const ref of this.pending) {
      if (!ref.target.written) {
        // the row was written, its reference left empty: reported, not counted as rejected
        this.reject(undefined, { model: ref.model.name, row: ref.row, line: ref.line, path: `/${ref.field.name}`, message: 'points at a row the data does not hold; left empty' });
        continue;
      }
      const list = groups.get(ref.field) ?? [];
      list.push(ref);
      groups.set(ref.field, list);
    }
    for (const [field, refs] of groups) {
      const model = refs[0]!.model;
      for (let at = 0; at < refs.length; at += DEFAULT_BATCH) {
        const pairs = refs.slice(at, at + DEFAULT_BATCH).map((r) => ({ id: r.id, target: r.target.id }));
        await sql`update ${ident(this.app.schema, model.table)} t set ${ident(field.column!)} = r.target
          from json_to_recordset(cast(${JSON.stringify(pairs)} as json)) as r(id uuid, target uuid) where t.id = r.id`.execute(this.executor);
        await refreshCreated(this.executor, this.app, model, refs.slice(at, at + DEFAULT_BATCH));
      }
    }
    return { models: [...this.reports.values()], errors: this.errors, notes: this.notes };
  }
}

/**
 * Why the database refused a row, in the import's words: never the database's own text, which
 * names tables, columns and constraints of the storage (the SQLSTATE is kept for support).
 */
const REFUSALS: Record<string, string> = {
  '23503': 'points at a record that does not exist',
  '23505': 'repeats a value that must be unique (an id or a unique field) of another record',
  '23502': 'leaves out a value that is required',
  '23514': 'holds a value the model does not allow',
};

function databaseMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return 'was refused by the database';
  const why = REFUSALS[code] ?? (code.startsWith('22') ? 'holds a value out of range or not of the expected form' : 'could not be written');
  return `was refused by the database: it ${why} (SQLSTATE ${code})`;
}

/**
 * An `abort` import's batch the database refused (a record that does not exist, a repeated unique
 * value…): the import stops as for a bad row, naming the batch's rows. Anything else is ours: rethrown.
 */
function refusedBatch(model: CompiledModel, batch: Staged[], error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^2[23]/.test(code)) return error;
  const first = batch[0]!;
  const last = batch[batch.length - 1]!;
  const rows = batch.length > 1 ? ` (one of rows ${first.row}–${last.row})` : '';
  return new ImportAborted({ model: model.name, row: first.row, line: first.line, path: '', message: `${databaseMessage(error)}${rows}` });
}
