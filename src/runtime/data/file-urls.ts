// Stored file keys read as URLs (DESIGN §6, "Files"): a `p_FILE`, `p_IMAGE` or `p_VIDEO` value is
// the key of a file uploaded to `POST /files`, or an https URL kept as it was. The URL of a key is
// the version's files route plus the key (keys are URL-safe: files/app-files.ts), built in the SQL
// that builds the JSON, with the route as one bound parameter: nothing per row in JS.
import { sql, type RawBuilder } from 'kysely';

const FILE_TYPES = new Set(['p_FILE', 'p_IMAGE', 'p_VIDEO']);
const EMPTY = sql.raw(`'[]'::json`);

export function isFileType(to: string): boolean {
  return FILE_TYPES.has(to);
}

/** One stored value as its URL: an https URL as it is, a key under `filesUrl`, null as null. */
function urlOf(value: RawBuilder<unknown>, filesUrl: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`case when starts_with(${value}, 'https://') then ${value} else ${filesUrl} || ${value} end`;
}

/** The column (an array of them when `many`) as URLs, in order. */
export function fileUrlSql(column: RawBuilder<unknown>, many: boolean, filesUrl: string): RawBuilder<unknown> {
  const prefix = sql`cast(${filesUrl} as text)`;
  if (!many) return urlOf(column, prefix);
  return sql`coalesce((select json_agg(${urlOf(sql.raw('v'), prefix)} order by n) from unnest(${column}) with ordinality as u(v, n)), ${EMPTY})`;
}
