// The text of a visibility statement (visibility.ts) for groups of audiences: per group of one
// fragment text, one select over the changed row (`t`, and `p` before) with the audiences' differing
// values as columns of an `unnest` (one array per distinct column, each typed as the fragment casts
// it: `auth.id` cast to uuid three times is one uuid[]), numbered `with ordinality`. The arrays are
// parameters, or, for a statement kept as a named prepared statement, literals of its text:
// PostgreSQL then parses them once per connection (parsing 10,000 uuids costs some 10 ms; reading
// them again ~1 ms), not once per change.
import type { RecordJson } from '../runtime/data/record-json.ts';
import type { Audience } from './visibility.ts';

/**
 * One audience's part of the statement: `ok, was, body` over the rows `t` (now) and `p` (before);
 * `post`: what JS completes in the body (computed fields left to JS), null when SQL builds it all.
 * Only that is kept of the audience's RecordJson: a fragment lives as long as its subscriber.
 */
export interface Fragment {
  text: string;
  params: unknown[];
  post: Pick<RecordJson, 'jsComputed' | 'extras'> | null;
}

export type Member = { audience: Audience; fragment: Fragment };

/** Selects to join with `union all` after the head, their parameters, and their audiences. */
export interface Selects {
  tail: string;
  params: unknown[];
  /** Per select (`g`), its audiences in the order of its rows (`k`, from 1; 0: every one alike). */
  groups: Member[][];
}

const isScalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * The selects for `members`, numbered from parameter `firstParam` and group `firstGroup`;
 * `inline`: differing values as literals of the text rather than parameters.
 */
export function buildSelects(members: Member[], options: { firstParam: number; firstGroup: number; inline: boolean }): Selects {
  const byText = new Map<string, Member[]>();
  for (const member of members) {
    const group = byText.get(member.fragment.text);
    if (group) group.push(member);
    else byText.set(member.fragment.text, [member]);
  }
  const params: unknown[] = [];
  const bind = (value: unknown) => `$${params.push(value) + options.firstParam - 1}`;
  const selects: string[] = [];
  const groups: Member[][] = [];
  for (const [text, sameText] of byText) {
    for (const group of splitByShape(sameText)) {
      selects.push(groupSelect(text, group, options.firstGroup + groups.length, bind, options.inline));
      groups.push(group);
    }
  }
  return { tail: selects.join(' union all '), params, groups };
}

/**
 * Audiences of one text whose differing values are all scalars share a select; a differing array
 * or object (an `in` list of `auth` values, say) cannot be a column: such audiences get a select each.
 */
function splitByShape(members: Member[]): Member[][] {
  const first = members[0].fragment.params;
  for (let i = 0; i < first.length; i++) {
    const differs = members.some((m) => m.fragment.params[i] !== first[i]);
    if (differs && members.some((m) => !isScalar(m.fragment.params[i]))) return members.map((m) => [m]);
  }
  return [members];
}

/** A PostgreSQL array literal of the values as text (null as NULL). */
function arrayLiteral(values: unknown[]): string {
  return `{${values.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
}

/** The type every use of `$n` in `text` casts it to (`cast($n as uuid)`), or null when some use is not such a cast. */
function castTypeOf(text: string, n: number): string | null {
  const uses = text.match(new RegExp(`\\$${n}(?![0-9])`, 'g'))?.length ?? 0;
  const casts = [...text.matchAll(new RegExp(`cast\\(\\$${n} as ([a-z][a-z0-9_ ]*)\\)`, 'g'))].map((m) => m[1]);
  return casts.length === uses && casts.length > 0 && casts.every((t) => t === casts[0]) ? casts[0] : null;
}

/**
 * `select g, k, ok, was, body` for group `g`: values shared by every member bound once, differing
 * ones as columns of an `unnest`, `k` the member's row; a group whose members do not differ is one row, k = 0.
 */
function groupSelect(text: string, group: Member[], g: number, bind: (value: unknown) => string, inline: boolean): string {
  const first = group[0].fragment.params;
  const arrays: string[] = [];
  const columnOf = new Map<string, string>();
  let body = text;
  const placeholders = first.map((value, i) => {
    if (!group.some((m) => m.fragment.params[i] !== value)) return bind(value);
    const type = castTypeOf(text, i + 1);
    const literal = arrayLiteral(group.map((m) => m.fragment.params[i]));
    const key = `${type ?? 'text'} ${literal}`;
    let column = columnOf.get(key);
    if (column === undefined) {
      column = `c${arrays.length}`;
      columnOf.set(key, column);
      const array = inline ? `'${literal.replace(/'/g, "''")}'` : bind(literal);
      arrays.push(`cast(${array} as ${type ?? 'text'}[])`);
    }
    // A typed column stands for the whole cast.
    if (type !== null) body = body.replace(new RegExp(`cast\\(\\$${i + 1} as ${type}\\)`, 'g'), `v.${column}`);
    return `v.${column}`;
  });
  body = body.replace(/\$(\d+)/g, (_, n: string) => placeholders[Number(n) - 1]);
  if (arrays.length === 0) return `select ${g} as g, 0 as k, q.ok, q.was, q.body from (select ${body} from t0 t, p0 p) q where q.ok or q.was`;
  const columns = [...columnOf.values(), 'k'].join(', ');
  return `select ${g} as g, q.k, q.ok, q.was, q.body from (select v.k, ${body} from t0 t, p0 p, unnest(${arrays.join(', ')}) with ordinality as v(${columns})) q where q.ok or q.was`;
}
