/**
 * Runs many statements without parameters (DDL, a backfill) in few round trips: each chunk is one
 * PL/pgSQL `do` block that `execute`s them in order. One statement per query is all PGlite's
 * extended protocol takes, and a `do` block is one statement on both drivers, so a deployment of
 * hundreds of tables costs one round trip per 100 statements instead of one per statement (issue 28).
 *
 * A failing statement is named: the block records the index of the statement it runs and re-raises
 * the error with that index in its DETAIL (same SQLSTATE and message), and `runStatementBatch`
 * throws a `BatchStatementError` carrying the index and PostgreSQL's message. The block's one
 * exception handler is a single savepoint for the whole chunk, not one per statement.
 * Runs on the caller's executor: inside its transaction, all or nothing with it.
 */
import { sql } from 'kysely';
import type { Executor } from '../../storage/db.ts';
import { dollarQuoted, quoteLiteral } from './literals.ts';

/**
 * Statements per `do` block, and the text size that also ends a block: bounds the size of one
 * query. Not larger: one block costs more than linearly in what it creates (measured on PGlite,
 * a 1,000-model app's ~2,000 statements: ~9 s of CPU as one block, ~5 s in blocks of 100 to 250),
 * while a round trip costs about a millisecond.
 */
const CHUNK_STATEMENTS = 100;
const CHUNK_BYTES = 1 << 20;
const DETAIL_PREFIX = 'appbuilder batch statement ';

/** A statement of the batch failed; nothing after it ran, and the caller's transaction is aborted. */
export class BatchStatementError extends Error {
  constructor(
    /** Index of the failing statement in the whole batch. */
    readonly index: number,
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

export async function runStatementBatch(executor: Executor, statements: readonly string[]): Promise<void> {
  for (const [start, chunk] of chunks(statements)) {
    try {
      await sql.raw(doBlock(chunk, start)).execute(executor);
    } catch (error) {
      const index = failedIndex(error);
      if (index === null) throw error;
      throw new BatchStatementError(index, error instanceof Error ? error.message : String(error), error);
    }
  }
}

function* chunks(statements: readonly string[]): Generator<[number, string[]]> {
  let start = 0;
  while (start < statements.length) {
    const chunk: string[] = [];
    let bytes = 0;
    while (start + chunk.length < statements.length && chunk.length < CHUNK_STATEMENTS && (chunk.length === 0 || bytes < CHUNK_BYTES)) {
      const statement = statements[start + chunk.length];
      chunk.push(statement);
      bytes += statement.length;
    }
    yield [start, chunk];
    start += chunk.length;
  }
}

/** `do $tag$ … $tag$` executing `chunk`; statement i of the chunk is number `start + i` of the batch. */
function doBlock(chunk: readonly string[], start: number): string {
  const body = chunk.map((statement, i) => `step := ${start + i}; execute ${quoteLiteral(statement)};`).join('\n');
  const text = `declare step integer := ${start};
begin
${body}
exception when others then
  raise exception using errcode = sqlstate, message = sqlerrm, detail = '${DETAIL_PREFIX}' || step;
end`;
  return `do ${dollarQuoted(text, 'batch')}`;
}

function failedIndex(error: unknown): number | null {
  const detail = typeof error === 'object' && error !== null && 'detail' in error ? (error as { detail: unknown }).detail : undefined;
  if (typeof detail !== 'string' || !detail.startsWith(DETAIL_PREFIX)) return null;
  const index = Number(detail.slice(DETAIL_PREFIX.length));
  return Number.isSafeInteger(index) ? index : null;
}
