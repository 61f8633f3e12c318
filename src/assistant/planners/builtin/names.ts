/**
 * Loose name resolution against the current definition: plural or singular, any case,
 * spaces, hyphens ("to-dos", "todos", "To Do" all name `ToDo`), and names for new things
 * (`due date` → field `dueDate`, `project` → model `Project`).
 */
import pluralize from 'pluralize';
import type { AppDefinition, Field, Model } from '../../../definition/schema.ts';
import { resourceName } from '../../../definition/naming.ts';

const LEADING = /^(?:(?:the|a|an|each|every|all|any|our|my|their|its|new|existing|current)\s+)+/i;
const TRAILING_MODEL = /\s+(?:models?|records?|entries|entry|items?|tables?|objects?)$/i;
const TRAILING_FIELD = /\s+(?:fields?|columns?|attributes?|property|properties)$/i;

/** Words of a phrase or a name: split on non-alphanumerics and on case changes. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** The comparison key of a name: lower-case, no separators, last word singular. */
export function keyOf(text: string): string {
  const words = wordsOf(text);
  if (words.length === 0) return '';
  words[words.length - 1] = pluralize.singular(words[words.length - 1]);
  return words.join('');
}

export function cleanModelPhrase(phrase: string): string {
  return phrase.trim().replace(LEADING, '').replace(TRAILING_MODEL, '').trim();
}

export function cleanFieldPhrase(phrase: string): string {
  return phrase.trim().replace(/^["'“”`]+|["'“”`]+$/g, '').replace(LEADING, '').replace(TRAILING_FIELD, '').trim();
}

export function resolveModel(def: AppDefinition, phrase: string): Model | undefined {
  const cleaned = cleanModelPhrase(phrase);
  const key = keyOf(cleaned);
  if (!key) return undefined;
  const flat = cleaned.toLowerCase().replace(/[^a-z0-9]/g, '');
  return def.models.find((m) => keyOf(m.name) === key || resourceName(m.name).toLowerCase() === flat || m.name.toLowerCase() === flat);
}

export function resolveField(model: Model, phrase: string): Field | undefined {
  const cleaned = cleanFieldPhrase(phrase);
  const flat = cleaned.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (!flat) return undefined;
  return (
    model.fields.find((f) => f.name.toLowerCase().replace(/[^a-z0-9]/g, '') === flat) ??
    model.fields.find((f) => keyOf(f.name) === keyOf(cleaned))
  );
}

/** A new model's name: singular PascalCase (`projects` → `Project`, `blog post` → `BlogPost`). */
export function modelNameOf(phrase: string): string {
  const words = wordsOf(cleanModelPhrase(phrase));
  if (words.length === 0) return '';
  words[words.length - 1] = pluralize.singular(words[words.length - 1]);
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

/** A new field's name: camelCase as written (`due date` → `dueDate`). */
export function fieldNameOf(phrase: string): string {
  const words = wordsOf(cleanFieldPhrase(phrase));
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

/** The name a relationship field takes for its target: `Project` → `project`; to many: `toDos`. */
export function toOneName(model: Pick<Model, 'name'>): string {
  const words = wordsOf(model.name);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

export function toManyName(model: Pick<Model, 'name'>): string {
  return resourceName(model.name);
}

/** The user model's field pointing to `model` (for owner rules), or the field of `model` pointing to the user model. */
export function ownerFieldOf(def: AppDefinition, model: Model): Field | undefined {
  return model.fields.find((f) => f.to === def.userModelId && f.max === 1);
}
