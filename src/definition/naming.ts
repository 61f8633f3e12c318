/**
 * Names derived from a definition: API resource names (from model names) and
 * SQL identifiers (from ids, never from names, so that renaming touches no data).
 *
 * SQL identifiers are deterministic, at most 63 bytes (PostgreSQL's limit),
 * only `[a-z0-9_]`, and injective in practice:
 * - a "trivial" id suffix (already `[a-z0-9]` words joined by single `_`, short
 *   enough) is used as is: `urn:svc:model:todo` → `m_todo`;
 * - anything else becomes a slug plus `__` plus a hash of the whole id:
 *   `urn:svc:edge:todo-title` → `f_todo_title__3f9a1c0b2e`. Trivial names never
 *   contain `__`, so the two forms cannot meet.
 * Prefixes keep kinds apart and away from system columns (`id`, ...):
 * `m_` tables, `f_` columns, `j_` join tables.
 */
import { createHash } from 'node:crypto';
import pluralize from 'pluralize';

const MAX_IDENTIFIER_BYTES = 63;
const HASH_LENGTH = 10;
const TRIVIAL = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/**
 * Resource names already computed: pluralize runs a long list of rules per word, and each
 * validation asks for every model's name several times. Bounded: emptied when full.
 */
const RESOURCE_NAMES_MAX = 20_000;
const resourceNames = new Map<string, string>();

/** `ToDo` → `toDos`, `User` → `users`, `Person` → `people`, `Blog post` → `blogPosts`. */
export function resourceName(modelName: string): string {
  let name = resourceNames.get(modelName);
  if (name === undefined) {
    if (resourceNames.size >= RESOURCE_NAMES_MAX) resourceNames.clear();
    name = computeResourceName(modelName);
    resourceNames.set(modelName, name);
  }
  return name;
}

function computeResourceName(modelName: string): string {
  const words = splitWords(modelName);
  if (words.length === 0) return '';
  words[words.length - 1] = pluralize(words[words.length - 1]);
  return words
    .map((word, i) => (i === 0 ? word.toLowerCase() : word[0].toUpperCase() + word.slice(1).toLowerCase()))
    .join('');
}

/** Words of a name: split on non-alphanumerics and on case changes (`HTTPRequest` → HTTP, Request). */
function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * The id without its kind prefix (`urn:svc:<kind>:` or `@<kind>/`), as a
 * lower-case `[a-z0-9_]` fragment. Not injective (`a-b` and `a_b` meet): use it
 * for readability, and the functions below for identifiers.
 */
export function compactId(prefixedId: string): string {
  const bare = prefixedId.replace(/^urn:svc:[^:]+:/, '').replace(/^@[^/]+\//, '');
  return slug(bare);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/** `<prefix><suffix>` when trivial and short, else `<prefix><slug>__<hash of source>`. */
function identifier(prefix: string, bare: string, source: string): string {
  if (TRIVIAL.test(bare) && prefix.length + bare.length <= MAX_IDENTIFIER_BYTES) return prefix + bare;
  const room = MAX_IDENTIFIER_BYTES - prefix.length - 2 - HASH_LENGTH;
  const head = slug(bare).slice(0, room).replace(/_+$/, '');
  return `${prefix}${head}${head ? '__' : '_'}${shortHash(source)}`;
}

const bareId = (id: string): string => id.replace(/^urn:svc:[^:]+:/, '');

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** `app_<32 hex>`: the PostgreSQL schema holding one application's data. */
export function schemaNameForApp(appUuid: string): string {
  if (!UUID.test(appUuid)) throw new TypeError(`Not a uuid: ${appUuid}`);
  return `app_${appUuid.replace(/-/g, '').toLowerCase()}`;
}

/** The table of a model, from its id: `urn:svc:model:todo` → `m_todo`. */
export function tableNameForModel(modelId: string): string {
  return identifier('m_', bareId(modelId), modelId);
}

/** The column of a field, from its id: `urn:svc:edge:title` → `f_title`. */
export function columnNameForField(fieldId: string): string {
  return identifier('f_', bareId(fieldId), fieldId);
}

/** The join table of a many-to-many pair; the same whichever side is named first. */
export function joinTableName(fieldA: string, fieldB: string): string {
  const [a, b] = [fieldA, fieldB].sort();
  return identifier('j_', `${slug(bareId(a))}__${slug(bareId(b))}`, `${a}\n${b}`);
}
