// Full-text search (`search=` on lists, sub-collections and aggregates): PostgreSQL's own, over
// the text fields the caller may read. The query is `websearch_to_tsquery` (quoted phrases, `or`,
// `-word`) in the app's SEARCH_LANGUAGE (default `simple`); matches are ranked with `ts_rank`,
// and `sort=relevance` (the default order when searching) puts the best first.
// The migration stores each row's document over every text field, in the `simple` language, in a
// generated column with a GIN index (compiler/schema/model-indexes.ts). A search in that language
// by a caller who reads every text field matches and ranks on that column: the index finds the
// rows and ranking reads the stored value. Otherwise (a field rule hides a text field, another
// language) the document is computed per row from the readable fields: the same answer, slower.
import { sql, type RawBuilder } from 'kysely';
import { badRequest, Problem } from '../../errors.ts';
import { DEFAULT_SEARCH_LANGUAGE, isSearchText, searchColumnName, searchDocument } from '../../compiler/schema/model-indexes.ts';
import { quoteIdent } from '../../storage/sql.ts';
import type { CompiledModel } from '../compiled-app.ts';
import type { Condition, FieldAccess } from './rule-sql.ts';

/** The app variable naming the text search configuration. */
export const SEARCH_LANGUAGE_VARIABLE = 'SEARCH_LANGUAGE';

/** PostgreSQL's built-in text search configurations (`\dF`): the names SEARCH_LANGUAGE may take. */
const LANGUAGES: ReadonlySet<string> = new Set([
  'simple', 'arabic', 'armenian', 'basque', 'catalan', 'danish', 'dutch', 'english', 'finnish', 'french', 'german', 'greek',
  'hindi', 'hungarian', 'indonesian', 'irish', 'italian', 'lithuanian', 'nepali', 'norwegian', 'portuguese', 'romanian',
  'russian', 'serbian', 'spanish', 'swedish', 'tamil', 'turkish', 'yiddish',
]);

/** At most this many characters in `search`. */
const MAX_SEARCH = 500;

export interface Search {
  /** Where the row aliased `alias` matches (none: no readable text field). */
  condition: (alias: string) => Condition;
  /** The row's rank for the search, higher first. */
  rank: (alias: string) => RawBuilder<unknown>;
}

/** The app's text search configuration: SEARCH_LANGUAGE, lower-cased, or `simple`. */
export function searchLanguage(env: Record<string, string> | undefined): string {
  const raw = env?.[SEARCH_LANGUAGE_VARIABLE]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return DEFAULT_SEARCH_LANGUAGE;
  if (!LANGUAGES.has(raw)) {
    throw new Problem(500, `The app variable ${SEARCH_LANGUAGE_VARIABLE} is '${raw}', which is not a text search language; use one of ${[...LANGUAGES].join(', ')}.`);
  }
  return raw;
}

/** Document texts already written, by language, alias and columns (few: a model's readable text fields per caller kind). */
const documents = new Map<string, string>();
const MAX_DOCUMENTS = 1000;

function documentText(columns: readonly string[], language: string, alias: string): string {
  const key = `${language} ${alias} ${columns.join(',')}`;
  let text = documents.get(key);
  if (text === undefined) {
    text = searchDocument(columns, language, alias);
    if (documents.size >= MAX_DOCUMENTS) documents.clear();
    documents.set(key, text);
  }
  return text;
}

/**
 * The `search` query parameter as a condition and a rank; undefined when there is no search.
 * `visibility`: the caller's field readability (empty for an administrator, who reads all).
 */
export function searchOf(model: CompiledModel, search: string | undefined, visibility: Map<string, FieldAccess>, env: Record<string, string> | undefined): Search | undefined {
  if (search === undefined || search.trim() === '') return undefined;
  if (search.length > MAX_SEARCH) throw badRequest(`search may have at most ${MAX_SEARCH} characters.`, [{ path: '/search', message: 'is too long' }]);
  // The compiled fields carry their columns: the same list as the migration's, without naming them again.
  const text = model.fields.filter((f) => isSearchText(f) && f.column !== null);
  const columns = text.filter((f) => (visibility.get(f.name) ?? { kind: 'visible' }).kind === 'visible').map((f) => f.column!);
  if (columns.length === 0) return { condition: () => ({ kind: 'none' }), rank: () => sql`0` };
  const language = searchLanguage(env);
  const stored = language === DEFAULT_SEARCH_LANGUAGE && columns.length === text.length ? quoteIdent(searchColumnName(columns)) : undefined;
  const document = (alias: string) => sql.raw(stored ? `${quoteIdent(alias)}.${stored}` : documentText(columns, language, alias));
  // A scalar subquery: evaluated once per statement (an InitPlan) whatever the plan. As a plain
  // call with a parameter, a generic plan (the statements are prepared) parsed the search again
  // for every row, in the recheck and in ts_rank: 4× the time of the admin's ranked search.
  const query = sql`(select websearch_to_tsquery(${sql.raw(`'${language}'::regconfig`)}, ${search}))`;
  return {
    condition: (alias) => ({ kind: 'where', sql: sql`${document(alias)} @@ ${query}` }),
    rank: (alias) => sql`ts_rank(${document(alias)}, ${query})`,
  };
}

/**
 * Splits `relevance` off a `sort`: it may only come first, and only with a search. Searching
 * without a sort orders by relevance.
 */
export function relevanceSort(sort: string | undefined, search: Search | undefined): { sort: string | undefined; byRelevance: boolean } {
  const keys = (sort ?? '').split(',').map((k) => k.trim());
  const at = keys.indexOf('relevance');
  if (at === -1) return { sort, byRelevance: search !== undefined && (sort === undefined || sort.trim() === '') };
  const fail = (message: string) => badRequest(`The sort is not valid: ${message}`, [{ path: '/sort', message }]);
  if (!search) throw fail(`'relevance' orders a search: give search too`);
  if (at !== 0) throw fail(`'relevance' can only be the first sort key`);
  return { sort: keys.slice(1).join(','), byRelevance: true };
}
