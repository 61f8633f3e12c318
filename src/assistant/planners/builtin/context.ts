/** What every rule of the built-in planner works with. */
import type { AppDefinition, Field, Model } from '../../../definition/schema.ts';
import type { Operation } from '../../operations.ts';
import { cleanModelPhrase, resolveField, resolveModel, wordsOf } from './names.ts';

export interface Context {
  /** The definition as the operations planned so far leave it. */
  def: AppDefinition;
  /** The model the previous sentence was about ("them", "it"). */
  lastModel?: Model;
  /** The field the previous sentence was about ("make it unique"). */
  lastField?: Pick<Field, 'name'>;
}

/** A sentence a rule turned into operations, with a line saying what it did. */
export interface Step {
  operations: Operation[];
  understood: string;
  warnings?: string[];
  model?: Model;
  /** The field the step is about (by name: a new field has its id once applied). */
  field?: Pick<Field, 'name'>;
}

/** A sentence a rule recognised but cannot turn into a valid change; the message says why. */
export class Unclear extends Error {}

export type Rule = (sentence: string, ctx: Context) => Step | null;

const PRONOUN = /^(?:them|it|those|these|they|this model|that model)$/i;

/** A model named by a phrase, "them"/"it" for the last one. */
export function modelOf(ctx: Context, phrase: string): Model | undefined {
  if (PRONOUN.test(phrase.trim())) return ctx.lastModel;
  return resolveModel(ctx.def, phrase);
}

/**
 * A field named with its model: "the title of to-dos", "title on to-dos", "to-dos' title",
 * "ToDo.title", "to-do title", or a field name only one model has.
 */
export function fieldRef(ctx: Context, phrase: string): { model: Model; field: Field } | undefined {
  const text = phrase.trim().replace(/\s+field$/i, '');
  for (const match of text.matchAll(/\s+(?:field\s+)?(?:of|on|in|for|from)\s+/gi)) {
    const model = modelOf(ctx, text.slice(match.index + match[0].length));
    const field = model && resolveField(model, text.slice(0, match.index));
    if (model && field) return { model, field };
  }
  const possessive = /^(.+?)['’]s?\s+(.+)$/.exec(text) ?? /^([A-Za-z][\w-]*)\.(\w+)$/.exec(text);
  if (possessive) {
    const model = modelOf(ctx, possessive[1]);
    const field = model && resolveField(model, possessive[2]);
    if (model && field) return { model, field };
  }
  const words = cleanModelPhrase(text).split(/\s+/);
  for (let k = 1; k < words.length; k++) {
    const model = modelOf(ctx, words.slice(0, k).join(' '));
    const field = model && resolveField(model, words.slice(k).join(' '));
    if (model && field) return { model, field };
  }
  const owners = ctx.def.models.flatMap((m) => {
    const field = resolveField(m, text);
    return field ? [{ model: m, field }] : [];
  });
  if (owners.length === 1) return owners[0];
  if (owners.length > 1) throw new Unclear(`Several models have a field '${owners[0].field.name}' (${owners.map((o) => o.model.name).join(', ')}); say which one.`);
  return undefined;
}

/** `text` split before the first " to|on|for|in <model>" whose model resolves. */
export function splitAtModel(ctx: Context, text: string): { before: string; model: Model; after: string } | undefined {
  for (const match of text.matchAll(/\s+(?:to|on|for|in|of)\s+/gi)) {
    const tail = text.slice(match.index + match[0].length);
    const phrase = /^(.+?)(?=\s*[:,(]|\s+(?:as|with|that|which|default|defaulting|of type|so|one of|either|can|must|should|where)\b|$)/i.exec(tail);
    if (!phrase) continue;
    const model = modelOf(ctx, phrase[1]);
    if (model) return { before: text.slice(0, match.index), model, after: tail.slice(phrase[1].length) };
  }
  return undefined;
}

export function slugWords(text: string): string {
  return wordsOf(text).join('-');
}
