/**
 * Rows of CSV and of JSON (an array of objects, or NDJSON: one object a line), read as a stream:
 * one row at a time, whatever the size. CSV goes through csv-parse, the parser the CSV extractor
 * uses; a CSV cell that marks a missing value (`NA`, `N/A`, `null`, `-`, empty) is no value
 * (values.ts decides, knowing the field).
 */
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { SourceValue } from './sql-rows.ts';
import type { SourceRow } from './sql-source.ts';

type CsvParse = typeof import('csv-parse');
let csvParse: Promise<CsvParse> | undefined;
function loadCsvParse(): Promise<CsvParse> {
  csvParse ??= import('csv-parse');
  return csvParse;
}

/** Cells that say "no value" in spreadsheets and statistics exports. */
const MISSING = new Set(['', 'na', 'n/a', 'null', '-', 'nan', '#n/a']);

export function isMissingCell(cell: string): boolean {
  return MISSING.has(cell.trim().toLowerCase());
}

/** The delimiter the header line uses most, outside quotes: `,` `;` tab or `|`. */
function sniffDelimiter(head: string): string {
  const line = head.split(/\r?\n/, 1)[0] ?? '';
  const unquoted = line.replace(/"(?:[^"]|"")*"/g, '');
  let best = ',';
  let bestCount = 0;
  for (const candidate of [',', ';', '\t', '|']) {
    const count = unquoted.split(candidate).length - 1;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

export type ByteSource = Uint8Array | AsyncIterable<Uint8Array | string>;

/** A byte source as a stream, with its first chunk available to sniff. */
async function withHead(source: ByteSource): Promise<{ head: string; stream: Readable }> {
  if (source instanceof Uint8Array) {
    return { head: new TextDecoder().decode(source.subarray(0, 64 * 1024)), stream: Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)]) };
  }
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  const chunk = first.done ? Buffer.alloc(0) : typeof first.value === 'string' ? Buffer.from(first.value) : Buffer.from(first.value);
  async function* rest(): AsyncGenerator<Buffer> {
    yield chunk;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : Buffer.from(next.value);
    }
  }
  return { head: chunk.subarray(0, 64 * 1024).toString('utf8'), stream: Readable.from(rest()) };
}

type CsvRecord = { record: string[]; info: { lines: number } };

/** Bytes given to the parser at a time. */
const FEED_BYTES = 32 * 1024;

/**
 * CSV rows: the header names the columns; each later record is a row (line = its line in the
 * file). The parser is fed chunk by chunk and its records taken from its `data` events a chunk at a
 * time: iterating the parser stream itself costs a promise per record, 3–4 times the parse.
 */
export async function* csvRows(source: ByteSource): AsyncGenerator<SourceRow> {
  const { parse } = await loadCsvParse();
  const { head, stream } = await withHead(source);
  const parser = parse({ bom: true, delimiter: sniffDelimiter(head), relax_column_count: true, skip_empty_lines: true, info: true });
  const queue: CsvRecord[] = [];
  let failure: Error | undefined;
  parser.on('data', (item: CsvRecord) => queue.push(item));
  parser.on('error', (error: Error) => (failure = error));
  const ended = new Promise<void>((resolve) => parser.once('end', resolve));
  let columns: string[] | undefined;
  function* drain(): Generator<SourceRow> {
    if (failure) throw failure;
    const records = queue.splice(0);
    for (const { record, info } of records) {
      if (!columns) {
        columns = record.map((cell) => cell.trim());
        continue;
      }
      // a short record's missing cells are no values; cells past the header are not read
      let values: SourceValue[] = record;
      if (record.length < columns.length) {
        values = record.slice();
        for (let i = record.length; i < columns.length; i++) values.push(null);
      }
      yield { columns, values, line: info.lines, cells: true };
    }
  }
  for await (const chunk of stream) {
    // fed in slices: the records waiting in the queue stay few, and die young
    for (let at = 0; at < chunk.length; at += FEED_BYTES) {
      parser.write(chunk.subarray(at, at + FEED_BYTES));
      // the records of this slice are emitted by now or on the next turn
      await new Promise<void>((resolve) => setImmediate(resolve));
      yield* drain();
    }
  }
  parser.end();
  await Promise.race([ended, new Promise<void>((resolve) => parser.once('error', () => resolve()))]);
  yield* drain();
}

function rowOfObject(value: unknown, line: number): SourceRow {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { columns: [], values: [], line, unreadable: 'is not a JSON object' };
  const entries = Object.entries(value as Record<string, unknown>);
  return { columns: entries.map(([k]) => k), values: entries.map(([, v]) => v as SourceValue), line };
}

/** Rows of a JSON array of objects (read whole: at most an attachment's size) or of NDJSON (streamed). */
export async function* jsonRows(source: ByteSource): AsyncGenerator<SourceRow> {
  const { head, stream } = await withHead(source);
  if (/^\s*\[/.test(head.replace(/^\uFEFF/, ''))) {
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const parsed: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (!Array.isArray(parsed)) return;
    let index = 0;
    for (const item of parsed) yield rowOfObject(item, ++index);
    return;
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      yield { columns: [], values: [], line, unreadable: 'is not valid JSON' };
      continue;
    }
    yield rowOfObject(parsed, line);
  }
}
