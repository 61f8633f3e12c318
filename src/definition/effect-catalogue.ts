/**
 * The catalogue of effects (DESIGN §7): one TypeBox params schema per effect name.
 *
 * An effect's params are the MERGE of `params` (literal values) and
 * `bindParams` (expression strings evaluated at run time, overriding `params`).
 * So a required param may come from either: required-ness is checked on the
 * union of keys, types only on the literal `params` (and on a literal only when
 * no bind param overrides it). Unknown param names are refused (typos would
 * otherwise silently do nothing).
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ProblemDetail } from '../errors.ts';
import { HttpMethodSchema, type ActionEffect } from './schema.ts';

const ModelRef = Type.String({ minLength: 1, description: 'A model name or model id.' });
const RecordId = Type.String({ minLength: 1 });
const EffectId = Type.String({ minLength: 1, description: 'The actionEffectId of an effect of the same action.' });
/** A CEL expression over `record`, as in the list `filter` query parameter. */
const Filter = Type.String({ minLength: 1 });
const Values = Type.Record(Type.String(), Type.Unknown());
const Headers = Type.Record(Type.String(), Type.String());

const CATALOGUE = {
  'data.get': Type.Object({ model: ModelRef, id: RecordId }),
  'data.find': Type.Object({
    model: ModelRef,
    filter: Type.Optional(Filter),
    /** Like the list `sort` parameter: `-deadline,title`. */
    sort: Type.Optional(Type.String({ pattern: '^-?[A-Za-z_][A-Za-z0-9_]*(,-?[A-Za-z_][A-Za-z0-9_]*)*$' })),
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
  }),
  'data.count': Type.Object({ model: ModelRef, filter: Type.Optional(Filter) }),
  'data.create': Type.Object({ model: ModelRef, values: Values }),
  'data.update': Type.Object({ model: ModelRef, id: RecordId, values: Values }),
  'data.delete': Type.Object({ model: ModelRef, id: RecordId }),
  'flow.if': Type.Object({
    condition: Type.Boolean(),
    /** The effect taken when the condition is false, instead of `next`. */
    else: Type.Optional(EffectId),
  }),
  'flow.forEach': Type.Object({
    items: Type.Array(Type.Unknown()),
    /** The first effect of the loop body, run once per item. */
    body: EffectId,
    /** The state name holding the current item (default `item`). */
    as: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
  }),
  'flow.set': Type.Object({ name: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), value: Type.Unknown() }),
  'flow.fail': Type.Object({
    status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    message: Type.String(),
    code: Type.Optional(Type.String()),
  }),
  'flow.return': Type.Object({
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    headers: Type.Optional(Headers),
    body: Type.Optional(Type.Unknown()),
  }),
  'http.request': Type.Object({
    method: HttpMethodSchema,
    url: Type.String({ minLength: 1 }),
    headers: Type.Optional(Headers),
    body: Type.Optional(Type.Unknown()),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  'event.emit': Type.Object({
    eventName: Type.String({ minLength: 1 }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
  /** Mustache templates over the action's scope; sent after commit from the outbox (DESIGN §7). */
  'email.send': Type.Object({
    to: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { minItems: 1, maxItems: 50 })]),
    subject: Type.String({ minLength: 1, maxLength: 1000 }),
    text: Type.Optional(Type.String({ maxLength: 200_000 })),
    html: Type.Optional(Type.String({ maxLength: 200_000 })),
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    replyTo: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  }),
} satisfies Record<string, TObject>;

export type EffectName = keyof typeof CATALOGUE;
export const EFFECT_NAMES = Object.keys(CATALOGUE) as EffectName[];

export function isEffectName(name: string): name is EffectName {
  return Object.prototype.hasOwnProperty.call(CATALOGUE, name);
}

/** The params schema of an effect, or undefined for an unknown effect name. */
export function effectParamsSchema(name: string): TObject | undefined {
  return isEffectName(name) ? CATALOGUE[name] : undefined;
}

const escapeKey = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Problems of one effect's name and params. Paths are relative to the effect (`/params/model`). */
export function checkEffectParams(effect: Pick<ActionEffect, 'effect' | 'params' | 'bindParams'>): ProblemDetail[] {
  const schema = effectParamsSchema(effect.effect);
  if (!schema) {
    return [{ path: '/effect', message: `Unknown effect '${effect.effect}'. Known effects: ${EFFECT_NAMES.join(', ')}.` }];
  }
  const params = effect.params ?? {};
  const bound = effect.bindParams ?? {};
  const properties = schema.properties as Record<string, TSchema>;
  const required = new Set(schema.required ?? []);
  const problems: ProblemDetail[] = [];

  for (const key of required) {
    if (!(key in params) && !(key in bound)) {
      problems.push({
        path: '/params',
        message: `The effect ${effect.effect} needs the param '${key}' (in params or bindParams).`,
      });
    }
  }
  for (const [where, members] of [
    ['params', params],
    ['bindParams', bound],
  ] as const) {
    for (const key of Object.keys(members)) {
      if (!(key in properties)) {
        problems.push({
          path: `/${where}/${escapeKey(key)}`,
          message: `The effect ${effect.effect} has no param '${key}'. Its params: ${Object.keys(properties).join(', ')}.`,
        });
      }
    }
  }
  for (const [key, value] of Object.entries(params)) {
    const property = properties[key];
    if (!property || key in bound) continue;
    for (const error of Value.Errors(property, value)) {
      problems.push({ path: `/params/${escapeKey(key)}${error.path}`, message: error.message });
    }
  }
  return problems;
}

export interface EffectReference {
  /** JSON pointer of the member, relative to the effect. */
  path: string;
  /** The actionEffectId referred to. */
  id: string;
}

/** Every effect id that an effect points to, with where: next, onError.nextId, flow.if else, flow.forEach body. */
export function effectReferenceEntries(effect: ActionEffect): EffectReference[] {
  const refs: EffectReference[] = [];
  if (effect.next !== undefined) refs.push({ path: '/next', id: effect.next });
  if (effect.onError) refs.push({ path: '/onError/nextId', id: effect.onError.nextId });
  const params = effect.params ?? {};
  if (effect.effect === 'flow.if' && typeof params.else === 'string') refs.push({ path: '/params/else', id: params.else });
  if (effect.effect === 'flow.forEach' && typeof params.body === 'string') {
    refs.push({ path: '/params/body', id: params.body });
  }
  return refs;
}

/** The effect ids an effect points to (next, onError.nextId, flow.if else, flow.forEach body). */
export function effectReferences(effect: ActionEffect): string[] {
  return effectReferenceEntries(effect).map((r) => r.id);
}
