import { describe, expect, it } from 'vitest';
import { compactJson } from '../../src/runtime/data/compact-json.ts';

// PostgreSQL's spacing, as `json_build_object(...)::text` and `json_agg` write it, with strings
// that hold what the spacing looks like: they are kept byte for byte.
const spaced = [
  '{"items" : [{"id" : "a", "title" : "x : y, z", "tags" : ["a b", "c\\" : d"], "n" : 1.5, "o" : {"k": "v \\\\", "e": []}}, ',
  ' {"id" : "b", "title" : "tab\\tnew\\nline é", "quote" : "\\"", "none" : null, "yes" : true}], "total" : 2, "offset" : 0}',
].join('\n');

describe('compactJson', () => {
  it('takes out the whitespace between tokens and keeps every string as it was: JSON.stringify(JSON.parse(text))', () => {
    const compact = compactJson(spaced);
    expect(compact).toBe(JSON.stringify(JSON.parse(spaced)));
    expect(compact.startsWith('{"items":[{"id":"a","title":"x : y, z"')).toBe(true);
  });

  it('reads a long string and an empty one', () => {
    const long = `{"a" : ${JSON.stringify('x \\" '.repeat(200_000))}, "b" : ""}`;
    expect(compactJson(long)).toBe(JSON.stringify(JSON.parse(long)));
  });
});
