/**
 * CSV (DESIGN §13): the header row names the fields of one model named after the file;
 * each column's type, `required` and `enum` are inferred over all rows (csv-columns.ts).
 * Rows stream through csv-parse one at a time, so a 25 MiB attachment is read with a
 * constant amount of memory beyond its bytes. A header of more columns than a model may have
 * is refused; past the row limit the rest is not read (limits.ts).
 */
import { Readable } from 'node:stream';
import { ColumnStats, loadPhoneCheck } from './csv-columns.ts';
import { ExtractionError, emptyDraft } from './types.ts';
import { decodeDocumentText, needsDecoding } from '../text.ts';
import { DOCUMENT_LIMITS, formatCount, pastLimit } from '../limits.ts';
import type { Draft, DraftField, Extractor } from './types.ts';

// Imported on first use: only a CSV attachment's extraction parses CSV (issue 28).
type CsvParse = typeof import('csv-parse');
let csvParse: Promise<CsvParse> | undefined;
function loadCsvParse(): Promise<CsvParse> {
  csvParse ??= import('csv-parse');
  return csvParse;
}

/** Bytes handed to the parser at a time: the event loop gets a turn between them. */
const CHUNK = 64 * 1024;

/** The delimiter the header line uses most, outside quotes: `,` `;` tab or `|`. */
function sniffDelimiter(bytes: Uint8Array): string {
  const head = new TextDecoder().decode(bytes.subarray(0, 64 * 1024));
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

/**
 * The bytes in chunks, with a turn of the event loop before each: stream iteration alone
 * runs on microtasks, and 25 MiB would hold the process (HTTP included) for seconds.
 */
async function* chunks(bytes: Uint8Array): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += CHUNK) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(CHUNK, bytes.length - at));
  }
}

/** The model's name: the file name without its extension, as written (build.ts normalises). */
function modelName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.(csv|tsv|txt)$/i, '');
  return base.trim() || 'Record';
}

/** Header cells made usable: blanks get a positional name, repeats a numeric suffix. */
function headerNames(cells: string[], draft: Draft): string[] {
  const seen = new Map<string, number>();
  return cells.map((cell, i) => {
    let name = cell.trim();
    if (!name) {
      name = `column_${i + 1}`;
      draft.warnings.push({ locator: `column ${i + 1}`, message: `the header cell is empty: named "${name}"` });
    }
    const count = seen.get(name.toLowerCase()) ?? 0;
    seen.set(name.toLowerCase(), count + 1);
    if (count > 0) {
      const renamed = `${name}_${count + 1}`;
      draft.warnings.push({ locator: `column "${name}"`, message: `the header repeats "${name}": the repeat is named "${renamed}"` });
      name = renamed;
    }
    return name;
  });
}

export const extractCsv: Extractor = async (input) => {
  const [{ parse }, isValidPhone] = await Promise.all([loadCsvParse(), loadPhoneCheck()]);
  const draft = emptyDraft();
  // Bytes that are not UTF-8 (a Latin-1 export) are read as Windows-1252, said in a warning.
  let bytes = input.bytes;
  if (needsDecoding(bytes)) {
    const decoded = decodeDocumentText(bytes);
    bytes = new TextEncoder().encode(decoded.text);
    if (decoded.warning) draft.warnings.push(decoded.warning);
  }
  const parser = Readable.from(chunks(bytes)).pipe(
    parse({
      bom: true,
      delimiter: sniffDelimiter(bytes),
      relax_column_count: true,
      skip_empty_lines: true,
      // Each record with its line in the file, so a warning names the line a reader finds.
      info: true,
      // Bounds of the parser's own: the header, the rows read and one more (to know there are more).
      to: DOCUMENT_LIMITS.csvRows + 2,
      max_record_size: DOCUMENT_LIMITS.csvRecordChars,
    }),
  );
  let names: string[] | undefined;
  let stats: ColumnStats[] = [];
  let rows = 0;
  let ragged = 0;
  let firstRagged = 0;
  let moreAt = 0;
  let rowsRead = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!names) {
        if (record.length > DOCUMENT_LIMITS.columns) throw pastLimit(`the header has ${formatCount(record.length)} columns`, DOCUMENT_LIMITS.columns, 'columns');
        names = headerNames(record, draft);
        stats = names.map(() => new ColumnStats(isValidPhone));
        rowsRead = Math.min(DOCUMENT_LIMITS.csvRows, Math.floor(DOCUMENT_LIMITS.csvCells / Math.max(1, names.length)));
        continue;
      }
      if (rows === rowsRead) {
        moreAt = info.lines;
        break;
      }
      rows += 1;
      if (record.length !== names.length) {
        ragged += 1;
        if (firstRagged === 0) firstRagged = info.lines;
      }
      for (let i = 0; i < stats.length; i++) stats[i].add(record[i]);
    }
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    if ((error as { code?: unknown }).code === 'CSV_MAX_RECORD_SIZE') {
      throw pastLimit('a record of the file is longer', DOCUMENT_LIMITS.csvRecordChars, 'characters per record');
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new ExtractionError(`${input.name} is not readable as CSV: ${message}`);
  }
  if (!names || names.length === 0) {
    throw new ExtractionError(`${input.name} has no header row`);
  }
  if (ragged > 0) {
    draft.warnings.push({
      locator: `line ${firstRagged}`,
      message: `${ragged} rows have a different number of cells than the header's ${names.length} (first at line ${firstRagged}); missing cells count as empty, extra cells are ignored`,
    });
  }
  if (moreAt > 0) {
    draft.warnings.push({
      locator: `line ${moreAt}`,
      message: `only the first ${formatCount(rows)} rows were read (the limit is ${formatCount(DOCUMENT_LIMITS.csvRows)} rows or ${formatCount(DOCUMENT_LIMITS.csvCells)} cells); the columns' types are inferred from them`,
    });
  }
  if (rows === 0) {
    draft.warnings.push({ locator: 'line 1', message: 'the file has a header but no rows: every field is optional text' });
  }
  const fields: DraftField[] = names.map((name, i) => {
    const column = stats[i].summary();
    const field: DraftField = {
      name,
      type: column.type,
      many: false,
      required: column.required,
      locator: `column "${name}"`,
    };
    if (column.enum) field.enum = column.enum;
    return field;
  });
  draft.models.push({ name: modelName(input.name), fields, locator: 'line 1' });
  draft.description = `${rows} rows of ${names.length} columns`;
  return draft;
};
