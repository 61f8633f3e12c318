// A JSON object built inside PostgreSQL from `key, value` pairs, for any number of pairs.
// `json_build_object` takes at most 100 arguments (50 pairs; past them SQLSTATE 54023), and real
// tables have 60, 150, 300 columns. Up to 50 pairs the object is one `json_build_object`, the
// statement text every ordinary model has always had. Past 50 it is built in chunks of 50 and
// the chunks' text joined: the first without its closing brace, the others without their opening
// one, separated by `, ` as `json_build_object` separates its own members. The result is the very
// text one call would give: members in the order given (merging `jsonb` would reorder them by
// key), every value typed as `json_build_object` types it (a `json_object(text[], text[])` would
// make every value a string). Each chunk is evaluated once (`left`/`substr` read it once).
import { sql, type RawBuilder } from 'kysely';

/** The most `key, value` pairs one `json_build_object` call takes (PostgreSQL's 100 arguments). */
export const MAX_JSON_PAIRS = 50;

/**
 * `json_build_object(k1, v1, …)` for `pairs` (each the SQL `'key', value`), in their order, as
 * `json`; chunked past MAX_JSON_PAIRS (see the top of this file). Export rows, records, events:
 * every record built as JSON goes through here.
 */
export function jsonObject(pairs: readonly RawBuilder<unknown>[]): RawBuilder<unknown> {
  if (pairs.length <= MAX_JSON_PAIRS) return sql`json_build_object(${sql.join(pairs)})`;
  const chunks: RawBuilder<unknown>[] = [];
  for (let start = 0; start < pairs.length; start += MAX_JSON_PAIRS) {
    chunks.push(sql`json_build_object(${sql.join(pairs.slice(start, start + MAX_JSON_PAIRS))})::text`);
  }
  const last = chunks.length - 1;
  const parts = chunks.map((chunk, i) => {
    if (i === 0) return sql`left(${chunk}, -1)`;
    if (i === last) return sql`', ' || substr(${chunk}, 2)`;
    return sql`', ' || substr(left(${chunk}, -1), 2)`;
  });
  return sql`(${sql.join(parts, sql.raw(' || '))})::json`;
}
