// PostgreSQL writes `json_build_object` and `json_agg` with spaces (`{"items" : [{"id" : …}, …]}`);
// the answers built in JavaScript are compact. Lists and reads answer PostgreSQL's text as is (no
// parse and stringify on the hot path), so its spacing is taken out here: every whitespace run
// outside a string. Strings are JSON-escaped in that text (no raw control character in them), so
// a quote ends a string only when it is not escaped, which the pattern follows.
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|[ \n\r\t]+/g;

/** `text` (valid JSON) without whitespace between its tokens: what `JSON.stringify(JSON.parse(text))` gives. */
export function compactJson(text: string): string {
  return text.replace(TOKENS, (token) => (token.charCodeAt(0) === 34 ? token : ''));
}
