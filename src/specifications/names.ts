/**
 * Names as a definition writes them (DESIGN §13): models in singular PascalCase
 * (`pet_owner` → `PetOwner`, `film_categories` → `FilmCategory`), fields in camelCase
 * (`first_name` → `firstName`), and a relationship named after what it points at, without
 * its key suffix (`owner_id` → `owner`, `ownerId` → `owner`). Two sources naming the same
 * thing differently (`pet_owners`, `PetOwner`) meet here.
 */
import pluralize from 'pluralize';

/** Words of a name: split on non-alphanumerics and on case changes (`HTTPRequest` → HTTP, Request). */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

const capital = (word: string) => word[0].toUpperCase() + word.slice(1).toLowerCase();

/** `pet_owners` → `PetOwner`; a name without letters or digits → `Item`. */
export function modelName(raw: string): string {
  // A schema-qualified table (`public.film`) is named by its last part.
  const words = wordsOf(raw.slice(raw.lastIndexOf('.') + 1));
  if (words.length === 0) return 'Item';
  const last = words.length - 1;
  // pluralize leaves words it does not know as they are (`status`, `data`).
  words[last] = pluralize.singular(words[last]);
  const name = words.map(capital).join('');
  return /^[0-9]/.test(name) ? `M${name}` : name;
}

/** `first_name` → `firstName`, `URL` → `url`; a name without letters or digits → `field`. */
export function fieldName(raw: string): string {
  const words = wordsOf(raw);
  if (words.length === 0) return 'field';
  const name = words.map((w, i) => (i === 0 ? w.toLowerCase() : capital(w))).join('');
  return /^[0-9]/.test(name) ? `f${name}` : name;
}

/** `owner_id` → `owner`, `ownerId` → `owner`, `category_ids` → `categories`; `id` alone stays `id`. */
export function relationshipFieldName(raw: string): string {
  const words = wordsOf(raw);
  const last = words.length - 1;
  if (words.length > 1 && /^(id|ids|fk|key)$/i.test(words[last])) {
    const plural = /^ids$/i.test(words[last]);
    words.pop();
    if (plural) words[words.length - 1] = pluralize.plural(words[words.length - 1]);
  }
  return fieldName(words.join(' '));
}

/** The field of B that lists the As pointing at it: `Film` → `films`. */
export function toManyName(model: string): string {
  const words = wordsOf(model);
  if (words.length === 0) return 'items';
  words[words.length - 1] = pluralize.plural(words[words.length - 1]);
  return fieldName(words.join(' '));
}

/** The field of B that points at its one A: `PetOwner` → `petOwner`. */
export function toOneName(model: string): string {
  return fieldName(model);
}

/** `name` if free in `taken`, else `name2`, `name3`, …; never `id` (every record has it). */
export function freeName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate) || candidate === 'id'; n++) candidate = `${name}${n}`;
  taken.add(candidate);
  return candidate;
}

/** `Pet store API` → `pet-store-api` (an appId, a requirement or page slug). */
export function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'x'
  );
}
