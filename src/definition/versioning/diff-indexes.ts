/**
 * Differences of a model's `indexes`, rated by what they do to the generated API: a new unique
 * index refuses writes that were accepted (major); one dropped accepts more (minor); a plain
 * index changes only speed (patch). Indexes are matched by their set of field ids.
 */
import type { Model, ModelIndex } from '../schema.ts';
import type { Bump, RatedChange } from './change.ts';

const keyOf = (index: ModelIndex): string => [...new Set(index.fields)].sort().join(' ');

export function indexChanges(before: Model, after: Model, at: string): RatedChange[] {
  const old = new Map((before.indexes ?? []).map((index) => [keyOf(index), index]));
  const now = new Map((after.indexes ?? []).map((index, k) => [keyOf(index), { index, k }]));
  const names = (index: ModelIndex) => index.fields.map((id) => after.fields.find((f) => f.id === id)?.name ?? before.fields.find((f) => f.id === id)?.name ?? id).join(', ');
  const out: RatedChange[] = [];
  const push = (kind: RatedChange['kind'], path: string, summary: string, bump: Bump) => out.push({ kind, path, summary: `${after.name} ${summary}`, bump });
  for (const [key, { index, k }] of now) {
    const previous = old.get(key);
    const unique = index.unique === true;
    if (!previous) push('added', `${at}/indexes/${k}`, `${unique ? 'unique ' : ''}index on (${names(index)}) added`, unique ? 'major' : 'patch');
    else if (unique !== (previous.unique === true)) {
      push('changed', `${at}/indexes/${k}/unique`, `index on (${names(index)}) ${unique ? 'made unique' : 'no longer unique'}`, unique ? 'major' : 'minor');
    }
  }
  (before.indexes ?? []).forEach((index, k) => {
    if (now.has(keyOf(index))) return;
    push('removed', `${at}/indexes/${k}`, `${index.unique === true ? 'unique ' : ''}index on (${names(index)}) removed`, index.unique === true ? 'minor' : 'patch');
  });
  return out;
}
