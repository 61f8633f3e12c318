/** Fields: add one (with type, values, default, required, list), change one. */
import type { Field, Model, PrimitiveType } from '../../../../definition/schema.ts';
import { isPrimitiveType } from '../../../../definition/schema.ts';
import type { NewField } from '../../../../definition/edits/index.ts';
import type { Operation } from '../../../operations.ts';
import { Unclear, fieldRef, modelOf, splitAtModel, type Context, type Rule, type Step } from '../context.ts';
import pluralize from 'pluralize';
import { cleanFieldPhrase, fieldNameOf, resolveField, wordsOf } from '../names.ts';
import { attributesOf, statedType, typedValue, valuesOf } from '../text.ts';
import { typeFromName, typeOfPhrase } from '../types.ts';

/** A field from a phrase like "a required due date (date)" or "tags as a list of text: a, b". */
export function newFieldOf(phrase: string, tail = ''): NewField {
  const attributes = attributesOf(`${phrase} ${tail}`);
  let namePhrase = phrase
    .replace(/\([^)]*\)/g, ' ')
    .replace(/\b(?:required|mandatory|optional|new|a list of|lists? of|multiple|several|many|any number of|one or more)\b/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:an?|the)\s+/i, '');
  let type = attributes.type;
  const called = /^(?:(.+?)\s+)?(?:field|column|attribute)\s+(?:called|named)?\s*(.+)$/i.exec(namePhrase)
    ?? /^(.+?)\s+(?:called|named)\s+(.+)$/i.exec(namePhrase);
  if (called) {
    if (called[1] && typeOfPhrase(called[1])) type ??= typeOfPhrase(called[1]);
    namePhrase = called[2];
  }
  const typed = /^(.+?)\s+(?:as|of type)\s+(?:an?\s+)?(.+)$/i.exec(namePhrase);
  if (typed && typeOfPhrase(typed[2])) {
    type ??= typeOfPhrase(typed[2]);
    namePhrase = typed[1];
  }
  // "a starred flag", "an archived checkbox": the last word says the type, the rest is the name.
  const flag = /^(.+?)\s+(?:flag|checkbox|toggle|boolean|yes\/no)$/i.exec(namePhrase);
  if (flag) {
    type ??= 'p_BOOLEAN';
    namePhrase = flag[1];
  }
  // Short names: "a rating from 1 to 5 stars" → rating, "a star rating" → rating.
  namePhrase = namePhrase
    .replace(/\s+(?:from|between|out of|on a scale of|up to|of)\s+\d.*$/i, '')
    .replace(/\s+\d+\s*(?:-|to|–)\s*\d+.*$/i, '')
    .replace(/\s+in\s+(?:stars|percent|euros?|dollars?)$/i, '')
    .replace(/^(?:stars?|five[- ]star|5[- ]star)\s+(rating|score)$/i, '$1')
    .trim();
  const name = fieldNameOf(namePhrase);
  if (!name) throw new Unclear(`No field name in "${phrase}".`);
  const enumValues = attributes.enumValues;
  const to: PrimitiveType = type ?? (enumValues ? (enumValues.every((v) => Number.isFinite(Number(v))) ? 'p_NUMBER' : 'p_TEXT') : typeFromName(cleanFieldPhrase(namePhrase)));
  const field: NewField = { name, to };
  if (attributes.required) field.min = 1;
  if (attributes.list) field.max = null;
  if (enumValues) field.enum = enumValues.map((v) => typedValue(v, to));
  if (attributes.defaultValue !== undefined) field.defaultValue = defaultOf(attributes.defaultValue, to);
  if (called) explicitNames.add(field);
  return field;
}

/** Fields named explicitly ("a field called phoneNumber"): no near-name check for them. */
const explicitNames = new WeakSet<NewField>();

const NOW = /^(?:now|right now|today|the current (?:date|time|date and time|moment|day)|the time (?:it is|of) creat(?:ed|ion)|creation time|the creation date)$/i;
const CURRENT_USER = /^(?:the\s+)?(?:current|signed[- ]in|logged[- ]in|calling)\s+user$|^(?:me|the creator|its creator|the author|the user who creates? it|whoever creates it)$/i;

/** A default as the field takes it: `now` and the current user as expressions (DESIGN §4), else a literal. */
export function defaultOf(text: string, type: string, userModelId?: string): unknown {
  const clean = text.trim().replace(/^["'“”`]+|["'“”`]+$/g, '');
  if (NOW.test(clean) && type === 'p_DATE_TIME') return { expression: 'now' };
  if (NOW.test(clean) && type === 'p_DATE') throw new Unclear('A date field (YYYY-MM-DD) cannot default to now; only a date and time can: change its type to a date and time first.');
  if (CURRENT_USER.test(clean) && userModelId !== undefined && type === userModelId) return { expression: 'auth.id' };
  return typedValue(clean, type);
}

/** Words of a name for the near-name check: singular, without filler words. */
function nameWords(name: string): Set<string> {
  return new Set(wordsOf(name).map((w) => pluralize.singular(w)).filter((w) => !/^(?:number|no|num|of|the|a|an|value|field|info|details?)$/.test(w)));
}

/** An existing field whose name is the new one's or near it (`phone` for "phone number"). */
function nearField(model: Model, name: string, type: string): Field | undefined {
  const exact = resolveField(model, name);
  if (exact) return exact;
  const wanted = nameWords(name);
  if (wanted.size === 0) return undefined;
  return model.fields.find((f) => {
    // A flag is not a date of the same name ("published" beside "publishedOn").
    if (f.to !== type && f.to !== 'p_TEXT' && type !== 'p_TEXT') return false;
    const have = nameWords(f.name);
    if (have.size === 0) return false;
    const inside = (a: Set<string>, b: Set<string>) => [...a].every((w) => b.has(w));
    return inside(wanted, have) || inside(have, wanted);
  });
}

function describe(field: NewField): string {
  const parts = [field.to.replace(/^p_/, '').toLowerCase().replace('_', ' ')];
  if (field.enum) parts.push(`one of ${field.enum.join(', ')}`);
  if (field.defaultValue !== undefined) parts.push(`default ${String(field.defaultValue)}`);
  if (field.min === 1) parts.push('required');
  if (field.max === null) parts.push('a list');
  return parts.join(', ');
}

function addFieldStep(model: Model, field: NewField): Step {
  const near = explicitNames.has(field) ? resolveField(model, field.name) : nearField(model, field.name, field.to);
  if (near) {
    // Said, not added: a second field beside the one the builder means would split the data.
    return {
      operations: [],
      understood: `${model.name} already has the field ${near.name}${near.name === field.name ? '' : ` (for "${field.name}")`}; nothing new is added.${near.name === field.name ? '' : ` To add another one, say "add a field named ${field.name} to ${model.name}".`}`,
      model,
      field: near,
    };
  }
  return {
    operations: [{ op: 'addField', modelId: model.id, field }],
    understood: `Add the field ${model.name}.${field.name} (${describe(field)}).`,
    model,
    field,
  };
}

/** "add a priority to to-dos: low, medium or high, default medium". */
export const addField: Rule = (sentence, ctx) => {
  const m = /^(?:add|give|include|store|track|record|put)\s+(.+)$/i.exec(sentence);
  if (!m) return null;
  const split = splitAtModel(ctx, m[1]);
  if (!split) return null;
  return addFieldStep(split.model, newFieldOf(split.before, split.after));
};

/** "each book has an ISBN (required)", "members need a phone number". */
export const modelHasField: Rule = (sentence, ctx) => {
  const m = /^(.+?)\s+(?:should\s+|must\s+|will\s+|also\s+)*(?:have|has|get|gets|need|needs|carry|carries)\s+(.+)$/i.exec(sentence);
  if (!m) return null;
  const model = modelOf(ctx, m[1]);
  if (!model) return null;
  return addFieldStep(model, newFieldOf(m[2]));
};

function change(model: Model, field: Field, changes: Extract<Operation, { op: 'updateField' }>['changes'], understood: string): Step {
  return { operations: [{ op: 'updateField', modelId: model.id, fieldId: field.id, changes }], understood, model, field };
}

function refOrThrow(ctx: Context, phrase: string) {
  const ref = fieldRef(ctx, phrase);
  if (!ref) throw new Unclear(`I found no field "${phrase.trim()}".`);
  return ref;
}

/** "make the deadline of to-dos required", "to-do descriptions should be optional". */
export const requiredness: Rule = (sentence, ctx) => {
  const m =
    /^(?:make|mark|set)\s+(.+?)\s+(?:as\s+)?(required|mandatory|optional|not required)$/i.exec(sentence) ??
    /^(.+?)\s+(?:should|must)\s+(?:be\s+)?(required|mandatory|optional|not required|always be set)$/i.exec(sentence) ??
    /^(.+?)\s+(?:is|are)\s+(?:now\s+)?(required|mandatory|optional)$/i.exec(sentence);
  if (!m) return null;
  const { model, field } = refOrThrow(ctx, m[1]);
  const required = !/optional|not required/i.test(m[2]);
  return change(model, field, { min: required ? 1 : 0 }, `Make ${model.name}.${field.name} ${required ? 'required' : 'optional'}.`);
};

/** "change the type of copies on books to number", "make a book's rating a star rating". */
export const fieldType: Rule = (sentence, ctx) => {
  const m =
    /^(?:change|set|make)\s+(?:the\s+)?type\s+of\s+(.+?)\s+(?:to|into)\s+(.+)$/i.exec(sentence) ??
    /^(?:change|convert|turn|make)\s+(.+?)\s+(?:to|into)?\s*(?:an?\s+)(.+)$/i.exec(sentence) ??
    /^(.+?)\s+should\s+be\s+(?:an?\s+)?(.+)$/i.exec(sentence);
  if (!m) return null;
  const type = statedType(m[2]);
  if (!type) return null;
  const { model, field } = refOrThrow(ctx, m[1]);
  if (!isPrimitiveType(field.to)) throw new Unclear(`${model.name}.${field.name} is a relationship; its type cannot change.`);
  return change(model, field, { to: type }, `Change the type of ${model.name}.${field.name} to ${type}.`);
};

/** "set the default status of to-dos to done", "deal stages default to lead". */
export const defaultValue: Rule = (sentence, ctx) => {
  // "add a created at … that defaults to now" adds a field (its default read with it).
  if (/^(?:add|give|include|store|track|record|put)\s/i.test(sentence)) return null;
  const removal = /^(?:remove|drop|clear)\s+the\s+default\s+(?:value\s+)?(?:of|for|from)\s+(.+)$/i.exec(sentence);
  if (removal) {
    const { model, field } = refOrThrow(ctx, removal[1]);
    return change(model, field, { defaultValue: null }, `Remove the default of ${model.name}.${field.name}.`);
  }
  const m =
    /^(?:set|make|change)\s+the\s+default\s+(?:value\s+)?(?:of\s+|for\s+)?(.+?)\s+(?:to|=)\s+(.+)$/i.exec(sentence) ??
    /^(?:the\s+)?default\s+(?:value\s+)?(?:of\s+|for\s+)?(.+?)\s+(?:should be|is)\s+(.+)$/i.exec(sentence) ??
    /^(.+?)\s+(?:should\s+)?defaults?\s+to\s+(.+)$/i.exec(sentence);
  const flipped = m ? null : /^make\s+["'“]?(.+?)["'”]?\s+the\s+default\s+(.+)$/i.exec(sentence);
  if (!m && !flipped) return null;
  const [refText, valueText] = m ? [m[1], m[2]] : [flipped![2], flipped![1]];
  const { model, field } = refOrThrow(ctx, refText);
  const value = defaultOf(valueText, field.to, ctx.def.userModelId);
  const shown = typeof value === 'object' && value !== null ? (value as { expression: string }).expression : String(value);
  return change(model, field, { defaultValue: value }, `Default ${model.name}.${field.name} to ${shown}.`);
};

/** "the status of to-dos can be open, doing or done"; "… can also be archived"; "add archived as a status for to-dos". */
export const enumValues: Rule = (sentence, ctx) => {
  const add = /^(?:add|allow)\s+["'“]?(.+?)["'”]?\s+as\s+(?:an?\s+|another\s+|a new\s+)?(?:(?:option|value|choice)\s+(?:of|for)\s+)?(.+)$/i.exec(sentence);
  const m = add ? null : /^(.+?)\s+(?:can|may|could)\s+(also\s+)?be\s+(?:one of\s+|either\s+)?(.+)$/i.exec(sentence);
  if (!add && !m) return null;
  const refText = add ? add[2] : m![1];
  const ref = fieldRef(ctx, refText);
  if (!ref) return null;
  const { model, field } = ref;
  const also = Boolean(add) || Boolean(m?.[2]);
  const values = (add ? valuesOf(add[1]) : valuesOf(m![3])).map((v) => typedValue(v, field.to));
  if (values.length === 0 || (!also && values.length < 2)) return null;
  const next = also ? [...(field.enum ?? []), ...values.filter((v) => !(field.enum ?? []).includes(v))] : values;
  return change(model, field, { enum: next }, `Let ${model.name}.${field.name} be one of ${next.join(', ')}.`);
};

/** "allow several tags on books", "a contact can have multiple phone numbers" when the field exists. */
export const manyValues: Rule = (sentence, ctx) => {
  const m = /^(?:allow|let)\s+(?:multiple|several|many|more than one)\s+(.+?)\s+(?:on|for|per|in)\s+(?:each\s+|a\s+|an\s+)?(.+)$/i.exec(sentence);
  if (!m) return null;
  const model = modelOf(ctx, m[2]);
  const field = model && resolveField(model, m[1]);
  if (!model || !field) return null;
  return change(model, field, { max: null }, `Let ${model.name}.${field.name} hold a list of values.`);
};
