/**
 * The primitive type of a domain-model field type string. Case, spaces, `-` and
 * `_` are ignored (`Date-Time`, `date_time`, `datetime` are one); a primitive
 * name itself (`p_NUMBER`) is taken as is; anything unknown is text.
 */
import { isPrimitiveType, type PrimitiveType } from '../schema.ts';

const ALIASES: Record<string, PrimitiveType> = {
  string: 'p_TEXT',
  text: 'p_TEXT',
  email: 'p_TEXT',
  number: 'p_NUMBER',
  int: 'p_NUMBER',
  integer: 'p_NUMBER',
  float: 'p_NUMBER',
  double: 'p_NUMBER',
  decimal: 'p_NUMBER',
  boolean: 'p_BOOLEAN',
  bool: 'p_BOOLEAN',
  date: 'p_DATE',
  datetime: 'p_DATE_TIME',
  timestamp: 'p_DATE_TIME',
  time: 'p_TIME',
  phone: 'p_PHONE_NUMBER',
  phonenumber: 'p_PHONE_NUMBER',
  url: 'p_LINK',
  link: 'p_LINK',
  image: 'p_IMAGE',
  video: 'p_VIDEO',
  file: 'p_FILE',
  address: 'p_ADDRESS',
  money: 'p_CURRENCY_AMOUNT',
  currency: 'p_CURRENCY_AMOUNT',
  currencyamount: 'p_CURRENCY_AMOUNT',
  rating: 'p_STAR_RATING',
  starrating: 'p_STAR_RATING',
};

export function primitiveTypeOf(type: string): PrimitiveType {
  const trimmed = type.trim();
  if (isPrimitiveType(trimmed)) return trimmed;
  return ALIASES[trimmed.toLowerCase().replace(/[\s_-]+/g, '')] ?? 'p_TEXT';
}

/** A type written as a list (`string[]`, `User[]`): the element type and `true`. */
export function listType(type: string): { element: string; many: boolean } {
  const match = /^(.*?)\s*\[\]$/.exec(type.trim());
  return match ? { element: match[1], many: true } : { element: type.trim(), many: false };
}
