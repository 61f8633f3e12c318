/**
 * Whether a `defaultValue` expression's CEL result type fits its field (DESIGN §4): the value
 * is validated again on create like any value sent, so `dyn` (and `null`) pass here.
 */
import { isRelationship, isToMany } from '../relationships.ts';
import type { Field } from '../schema.ts';

const TIMESTAMP = 'google.protobuf.Timestamp';

/** The CEL types one value of a primitive field may come from. */
const SCALAR_TYPES: Readonly<Record<string, readonly string[]>> = {
  p_TEXT: ['string'],
  p_LINK: ['string'],
  p_PHONE_NUMBER: ['string'],
  p_IMAGE: ['string'],
  p_VIDEO: ['string'],
  p_FILE: ['string'],
  p_DATE: ['string'],
  p_TIME: ['string'],
  p_DATE_TIME: [TIMESTAMP, 'string'],
  p_NUMBER: ['int', 'uint', 'double'],
  p_STAR_RATING: ['int', 'uint', 'double'],
  p_BOOLEAN: ['bool'],
  p_ADDRESS: ['map'],
  p_CURRENCY_AMOUNT: ['map'],
};

/** `dyn<string>` → `string`; `map<string, int>` → `map`; `list<int>` stays itself. */
function unwrapDyn(type: string): string {
  const dyn = /^dyn<(.*)>$/.exec(type);
  return dyn ? dyn[1] : type;
}

function fits(type: string, accepted: readonly string[]): boolean {
  const t = unwrapDyn(type);
  if (t === 'dyn' || t === 'null') return true;
  const base = t.replace(/<.*$/, '');
  return accepted.includes(t) || accepted.includes(base);
}

/** A sentence naming the mismatch, or undefined when `type` may be the field's value. */
export function defaultTypeProblem(field: Field, type: string): string | undefined {
  const scalar = isRelationship(field) ? ['string'] : SCALAR_TYPES[field.to];
  if (!scalar) return undefined; // an unknown `to` is reported on its own
  const what = isRelationship(field) ? 'the id (string) of a record' : `${scalar.join(' or ')}`;
  if (isToMany(field)) {
    const t = unwrapDyn(type);
    if (t === 'dyn' || t === 'null' || t === 'list') return undefined;
    const element = /^list<(.*)>$/.exec(t)?.[1];
    if (element !== undefined && fits(element, scalar)) return undefined;
    return `it returns ${type}, but the field ${field.name} holds a list of ${what}.`;
  }
  if (fits(type, scalar)) return undefined;
  return `it returns ${type}, but the field ${field.name} needs ${what}.`;
}
