/** Variables: "set the variable SUPPORT_EMAIL to help@example.com", "SUPPORT_EMAIL should be …". */
import type { Rule } from '../context.ts';

export const variable: Rule = (sentence) => {
  const m =
    /^(?:set|define|add|create)\s+(?:the\s+|a\s+|an\s+)?(?:(?:environment|env|config(?:uration)?)\s+)?(?:variable\s+)?([A-Z][A-Z0-9_]{0,63})\s+(?:to|=|as|with the value)\s+(.+)$/.exec(sentence.replace(/^(\w+)/, (w) => w.toLowerCase())) ??
    /^(?:the\s+)?(?:variable\s+)?([A-Z][A-Z0-9_]{0,63})\s+(?:should be|must be|is|=)\s+(.+)$/.exec(sentence);
  if (!m) return null;
  const value = m[2].trim().replace(/^["'“`]+|["'”`]+$/g, '');
  return { operations: [{ op: 'setVariable', name: m[1], value }], understood: `Set the variable ${m[1]} to "${value}".` };
};
