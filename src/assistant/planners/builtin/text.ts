/**
 * Plain-English pieces shared by the rules: sentences, the attributes of a field phrase
 * ("required", "a list of", "low, medium or high", "default medium", "(date)"), values.
 */
import type { EnumValue, PrimitiveType } from '../../../definition/schema.ts';
import { typeInPhrase, typeOfPhrase } from './types.ts';

const POLITE = /^(?:(?:please|also|and|then|now|ok(?:ay)?|so|next|finally|can you|could you|would you|i want to|i'd like to|i would like to|let's|lets|we want to|we need to|i need to|you should|go ahead and)[\s,]+)+/i;

/** Sentences of a request: split at . ! ? followed by a space, at ; and at new lines. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|;\s*|\n+|\s+and then\s+/i)
    .map((s) => s.trim().replace(/[.!?]+$/, '').replace(POLITE, '').trim())
    .filter((s) => s.length > 0);
}

export interface FieldAttributes {
  type?: PrimitiveType;
  required?: boolean;
  list?: boolean;
  enumValues?: string[];
  defaultValue?: string;
}

const DEFAULT = /[,;]?\s*(?:with\s+)?(?:(?:a|the)\s+)?(?:default(?:s|ing)?|by default)(?:\s+(?:value|to|is|of|as|being))*\s*[:=]?\s*["'“]?([^,;)"'”]+?)["'”]?\s*(?=[,;)]|$|\s+and\b)/i;
const REQUIRED = /\b(?:required|mandatory|must be (?:set|given|filled in))\b/i;
const OPTIONAL = /\b(?:optional|not required)\b/i;
const LIST = /\b(?:a list of|lists? of|multiple|several|many|an array of|arrays? of|any number of|one or more)\b/i;

/** Attributes named in a phrase; the phrase is free text around the field's name. */
export function attributesOf(text: string): FieldAttributes {
  const out: FieldAttributes = {};
  let rest = text;
  const def = DEFAULT.exec(rest);
  if (def) {
    out.defaultValue = def[1].trim();
    rest = rest.slice(0, def.index) + rest.slice(def.index + def[0].length);
  }
  if (REQUIRED.test(rest)) out.required = true;
  else if (OPTIONAL.test(rest)) out.required = false;
  if (LIST.test(rest)) out.list = true;
  rest = rest.replace(REQUIRED, '').replace(OPTIONAL, '').replace(LIST, '');
  // Parentheses hold a type, a list of values, or both: "(date)", "(low/medium/high)".
  for (const group of rest.matchAll(/\(([^)]*)\)/g)) {
    const inner = group[1].trim();
    const type = typeOfPhrase(inner);
    if (type) out.type ??= type;
    else if (valuesOf(inner).length >= 2) out.enumValues ??= valuesOf(inner);
  }
  rest = rest.replace(/\([^)]*\)/g, ' ');
  const typed = /\b(?:as|of type|type)\s+(?:an?\s+)?([a-z/ -]+?)(?=\s*(?:[,;:]|$|\s+(?:with|and|that|default)\b))/i.exec(rest);
  if (typed && typeOfPhrase(typed[1])) out.type ??= typeOfPhrase(typed[1]);
  const listed = /(?::|\b(?:one of|can be|either|values?|options?|choices?)\b:?)\s*(.+)$/i.exec(rest);
  if (listed) {
    const values = valuesOf(listed[1]);
    if (values.length >= 2) out.enumValues ??= values;
  }
  return out;
}

/** `low, medium or high` → ['low', 'medium', 'high']; quotes dropped. */
export function valuesOf(text: string): string[] {
  return text
    .split(/\s*(?:,|\/|\bor\b|\band\b|\|)\s*/i)
    .map((v) => v.trim().replace(/^["'“”`]+|["'“”`]+$/g, '').trim())
    .filter((v) => v.length > 0 && v.length <= 100 && !/\s{2,}/.test(v));
}

/** A value as the field's type takes it: numbers and booleans parsed, text kept. */
export function typedValue(text: string, type: string): EnumValue {
  const clean = text.trim().replace(/^["'“”`]+|["'“”`]+$/g, '');
  if (type === 'p_NUMBER' || type === 'p_STAR_RATING') {
    const n = Number(clean);
    if (Number.isFinite(n)) return n;
  }
  if (type === 'p_BOOLEAN') {
    if (/^(?:true|yes|on|checked)$/i.test(clean)) return true;
    if (/^(?:false|no|off|unchecked)$/i.test(clean)) return false;
  }
  return clean;
}

/** A type stated for a field ("a number", "date and time"), explicit words only. */
export function statedType(text: string): PrimitiveType | undefined {
  return typeOfPhrase(text) ?? undefined;
}

export { typeInPhrase };
