/**
 * Ids for new models and fields, in the style of the examples:
 * `urn:svc:model:todo`, `urn:svc:edge:todo-title`. The slug keeps only lower-case
 * letters and digits of each word (`ToDo` → `todo`, `Due date` → `due-date`), and
 * a numeric suffix makes the id unique (`-2`, `-3`, ...).
 */
import { FIELD_ID_PREFIX, MODEL_ID_PREFIX, type AppDefinition } from '../schema.ts';

/** `ToDo` → `todo`, `Due date` → `due-date`, `é!` → `x` (never empty). */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'x';
}

/** `base` if not taken, else `base-2`, `base-3`, ...; the result is added to `taken`. */
export function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

export function modelIdFor(modelName: string, taken: Set<string>): string {
  return uniqueId(`${MODEL_ID_PREFIX}${slugOf(modelName)}`, taken);
}

export function fieldIdFor(modelName: string, fieldName: string, taken: Set<string>): string {
  return uniqueId(`${FIELD_ID_PREFIX}${slugOf(modelName)}-${slugOf(fieldName)}`, taken);
}

/** Every model id of the definition. */
export function modelIds(def: AppDefinition): Set<string> {
  return new Set(def.models.map((m) => m.id));
}

/** Every field id of the definition, across all models (field ids are unique in the whole definition). */
export function fieldIds(def: AppDefinition): Set<string> {
  return new Set(def.models.flatMap((m) => m.fields.map((f) => f.id)));
}
