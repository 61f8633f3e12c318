/** Type words of plain English → primitive types; a field's type guessed from its name. */
import type { PrimitiveType } from '../../../definition/schema.ts';

/** Longest first: "date and time" before "date". */
const TYPE_WORDS: ReadonlyArray<readonly [RegExp, PrimitiveType]> = [
  [/\b(?:date[- ]?(?:and[- ])?times?|datetimes?|timestamps?)\b/i, 'p_DATE_TIME'],
  [/\b(?:dates?|days?)\b/i, 'p_DATE'],
  [/\b(?:times? of day|times?)\b/i, 'p_TIME'],
  [/\b(?:star ratings?|ratings?|stars?)\b/i, 'p_STAR_RATING'],
  [/\b(?:money|currency(?: amounts?)?|prices?)\b/i, 'p_CURRENCY_AMOUNT'],
  [/\b(?:phone numbers?|phones?)\b/i, 'p_PHONE_NUMBER'],
  [/\b(?:numbers?|numeric|integers?|decimals?|counts?)\b/i, 'p_NUMBER'],
  [/\b(?:booleans?|yes\/no|yes or no|true\/false|flags?|checkbox(?:es)?|toggles?)\b/i, 'p_BOOLEAN'],
  [/\b(?:addresses|address)\b/i, 'p_ADDRESS'],
  [/\b(?:links?|urls?|web ?sites?)\b/i, 'p_LINK'],
  [/\b(?:images?|pictures?|photos?)\b/i, 'p_IMAGE'],
  [/\b(?:videos?)\b/i, 'p_VIDEO'],
  [/\b(?:files?|attachments?|documents?)\b/i, 'p_FILE'],
  [/\b(?:text|strings?)\b/i, 'p_TEXT'],
];

/** The type a type phrase names (`date`, `a number`, `yes/no`), or undefined. */
export function typeOfPhrase(phrase: string): PrimitiveType | undefined {
  const trimmed = phrase.trim().replace(/^(?:an?|the|of type|type)\s+/i, '');
  for (const [pattern, type] of TYPE_WORDS) {
    const match = pattern.exec(trimmed);
    if (match && match.index === 0) return type;
  }
  return undefined;
}

/** A type named anywhere in a phrase (for "(date, required)"). */
export function typeInPhrase(phrase: string): PrimitiveType | undefined {
  for (const [pattern, type] of TYPE_WORDS) if (pattern.test(phrase)) return type;
  return undefined;
}

const NAME_HINTS: ReadonlyArray<readonly [RegExp, PrimitiveType]> = [
  [/(?:^|\s)at$|timestamp|date ?time/i, 'p_DATE_TIME'],
  [/date|deadline|birthday|\bdue\b|\bday\b|(?:^|\s)on$/i, 'p_DATE'],
  [/(?:^|\s)time$/i, 'p_TIME'],
  [/\b(?:price|cost|budget|salary|fee|revenue|amount|value)\b/i, 'p_CURRENCY_AMOUNT'],
  [/rating|stars/i, 'p_STAR_RATING'],
  [/phone|mobile/i, 'p_PHONE_NUMBER'],
  [/address/i, 'p_ADDRESS'],
  [/website|url|link|homepage/i, 'p_LINK'],
  [/photo|image|picture|avatar|logo|cover/i, 'p_IMAGE'],
  [/video/i, 'p_VIDEO'],
  [/attachment|file|document|resume/i, 'p_FILE'],
  [/\b(?:count|number of|quantity|pages|copies|estimate|hours|minutes|points|score|age|year|size|weight|height|stock|seats|capacity|probability|percent)\b/i, 'p_NUMBER'],
  [/^(?:is|has|can|should) |^(?:active|archived|done|completed|paid|published|verified|pinned|flagged|urgent)$/i, 'p_BOOLEAN'],
];

/** The type a field's name suggests; text when nothing does. */
export function typeFromName(name: string): PrimitiveType {
  for (const [pattern, type] of NAME_HINTS) if (pattern.test(name.trim())) return type;
  return 'p_TEXT';
}
