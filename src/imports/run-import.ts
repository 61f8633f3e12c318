/**
 * One import from documents into a published version: each document read for its rows (SQL
 * `COPY`/`INSERT`, CSV, JSON/NDJSON), the tables ordered so that rows come after those they point
 * at, and every row written by one ImportWriter in ONE transaction: with `abort` a bad row
 * rolls everything back; with `skip` the good rows are kept.
 */
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { withoutStatementTimeout } from '../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { dependencyOrder, PlanBuilder, type SpecificationSource, type TablePlan } from './plan.ts';
import { readSqlDocument, segmentRows, type RowSegment, type SourceRow, type SqlDocument } from './sql-source.ts';
import { csvRows, jsonRows } from './text-rows.ts';
import { decodeDocumentText, needsDecoding } from '../specifications/text.ts';
import { ImportAborted, ImportWriter, type ImportReport, type OnError, type RowError } from './writer.ts';

export interface ImportDocument {
  id: string | null;
  name: string;
  kind: string;
  bytes: Uint8Array;
}

export type DocumentFormat = 'sql' | 'csv' | 'json' | 'none';

/** What a document holds rows as: SQL statements, CSV, JSON/NDJSON, or none an import reads. */
export function formatOf(doc: ImportDocument): DocumentFormat {
  if (doc.kind === 'csv' || /\.(csv|tsv)$/i.test(doc.name)) return 'csv';
  const head = new TextDecoder().decode(doc.bytes.subarray(0, 4096)).replace(/^\uFEFF/, '').trimStart();
  if (/\.(json|ndjson|jsonl)$/i.test(doc.name) && /^[[{]/.test(head)) return 'json';
  if (doc.kind === 'sql' || /\.sql$/i.test(doc.name)) return 'sql';
  if (doc.kind === 'text' && /\b(?:insert\s+into|copy\s+[\w."]+(?:\s*\([^)]*\))?\s+from\s+stdin)\b/i.test(new TextDecoder().decode(doc.bytes.subarray(0, 1 << 20)))) return 'sql';
  return 'none';
}

export interface ImportOutcome {
  status: 'succeeded' | 'failed';
  report: ImportReport;
}

interface Unit {
  doc: SqlDocument;
  segment: RowSegment;
}

async function* fileRows(first: IteratorResult<SourceRow>, rest: AsyncIterator<SourceRow>): AsyncGenerator<SourceRow> {
  if (first.done) return;
  yield first.value;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

/** Reads `documents`, writes their rows into `app`'s data, and answers the report. */
export async function runImport(
  db: Db,
  app: CompiledApp,
  spec: SpecificationSource | undefined,
  documents: ImportDocument[],
  options: { onError: OnError; onProgress?: (rows: number) => void | Promise<void> },
): Promise<ImportOutcome> {
  const sqlDocs: SqlDocument[] = [];
  const files: ImportDocument[] = [];
  const notes: string[] = [];
  for (const doc of documents) {
    const format = formatOf(doc);
    if (format === 'sql') sqlDocs.push(await readSqlDocument(decodeDocumentText(doc.bytes).text));
    // read as the specification read it (a BOM, a declaration, else Windows-1252 when not UTF-8)
    else if (format === 'csv' || format === 'json') files.push(needsDecoding(doc.bytes) ? { ...doc, bytes: Buffer.from(decodeDocumentText(doc.bytes).text) } : doc);
    else notes.push(`${doc.name} (${doc.kind}) holds no rows an import reads`);
  }
  const partitions = new Map<string, string>();
  for (const doc of sqlDocs) for (const [child, parent] of doc.partitionOf) partitions.set(child, parent);
  const planner = new PlanBuilder(app, spec, sqlDocs.flatMap((d) => d.tables), partitions);

  const units = new Map<string, Unit[]>();
  for (const doc of sqlDocs) {
    for (const [table, segments] of doc.segments) {
      const canonical = planner.canonical(table);
      const list = units.get(canonical) ?? [];
      for (const segment of segments) list.push({ doc, segment });
      units.set(canonical, list);
    }
  }
  const plans = new Map<string, TablePlan>();
  for (const [table, list] of units) {
    const first = list[0]!.segment;
    const plan = planner.sqlTable(table) ?? (first.kind === 'copy' && first.columns ? planner.namedTable(table, first.columns) : undefined);
    if (plan) plans.set(table, plan);
    else notes.push(`table ${table}: no model of the application takes its rows; left out`);
  }
  for (const plan of plans.values()) {
    if (plan.model && plan.unmapped.length > 0) notes.push(`${plan.model.name}: columns ${plan.unmapped.join(', ')} of ${plan.source} match no field; left out`);
  }
  const order = dependencyOrder([...plans.keys()], plans);
  const rowProblems: RowError[] = [];

  const work = async (executor: Db['kysely']): Promise<ImportReport> => {
    const writer = new ImportWriter(executor, app, { onError: options.onError, copy: db.driver === 'postgres', ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    for (const table of order) {
      const plan = plans.get(table)!;
      function* rows(): Generator<SourceRow> {
        for (const { doc, segment } of units.get(table)!) {
          yield* segmentRows(doc, segment, plan.columns, (problem) => rowProblems.push({ model: plan.model?.name ?? table, row: 0, line: problem.line, path: '', message: problem.message }));
        }
      }
      await writer.table(plan, rows());
    }
    for (const doc of files) {
      const reader = (formatOf(doc) === 'csv' ? csvRows(doc.bytes) : jsonRows(doc.bytes))[Symbol.asyncIterator]();
      const first = await reader.next();
      const plan = planner.fileTable(doc.id, doc.name, first.done ? [] : first.value.columns);
      if (!plan) {
        notes.push(`${doc.name}: no model of the application takes its rows; left out`);
        continue;
      }
      if (plan.unmapped.length > 0) notes.push(`${plan.model!.name}: columns ${plan.unmapped.join(', ')} of ${doc.name} match no field; left out`);
      await writer.table(plan, fileRows(first, reader));
    }
    const report = await writer.finish();
    if (rowProblems.length > 0 && options.onError === 'abort') throw new ImportAborted(rowProblems[0]!);
    report.errors.push(...rowProblems.slice(0, Math.max(0, 100 - report.errors.length)));
    report.notes.unshift(...notes);
    return report;
  };

  try {
    const report = await db.kysely.transaction().execute(async (trx) => {
      await withoutStatementTimeout(trx);
      return work(trx);
    });
    return { status: 'succeeded', report };
  } catch (error) {
    if (!(error instanceof ImportAborted)) throw error;
    // nothing was kept: the models are reported with what was read, none imported
    return { status: 'failed', report: { models: [], errors: [error.error], notes } };
  }
}

/** Rows sent to one model (`POST /{resource}/import`): columns are its field names. */
export async function importRows(db: Db, app: CompiledApp, model: CompiledModel, rows: AsyncIterable<SourceRow>, onError: OnError): Promise<ImportOutcome> {
  const planner = new PlanBuilder(app, undefined, [], new Map());
  try {
    const report = await db.kysely.transaction().execute(async (trx) => {
      await withoutStatementTimeout(trx);
      const writer = new ImportWriter(trx, app, { onError, copy: db.driver === 'postgres' });
      const reader = rows[Symbol.asyncIterator]();
      const first = await reader.next();
      const plan = planner.fileTable(null, model.resource, first.done ? [] : first.value.columns, model)!;
      await writer.table(plan, fileRows(first, reader));
      const report = await writer.finish();
      if (plan.unmapped.length > 0) report.notes.push(`columns ${plan.unmapped.join(', ')} match no field of ${model.name}; left out`);
      return report;
    });
    return { status: 'succeeded', report };
  } catch (error) {
    if (!(error instanceof ImportAborted)) throw error;
    return { status: 'failed', report: { models: [], errors: [error.error], notes: [] } };
  }
}

/** A transaction-free probe that the app's schema exists (a published version). */
export async function schemaExists(db: Db, app: CompiledApp): Promise<boolean> {
  const found = await sql<{ ok: boolean }>`select exists (select 1 from information_schema.schemata where schema_name = ${app.schema}) as ok`.execute(db.kysely);
  return found.rows[0]?.ok === true;
}
