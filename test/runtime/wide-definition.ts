// Models wider than one `json_build_object` call takes (50 pairs): `Wide`, 300 fields of mixed
// types (some required, some with defaults, some lists), and `Hub`, 60 relationships (to-one and
// to-many, one-way and partnered) plus a title. Field names are neither alphabetical nor sorted by
// length, so an order that `jsonb` imposes (length, then bytes) would show.
import { todoScodeWithoutEvents } from './served-app.ts';

type Field = Record<string, unknown> & { name: string; to: string };
type ModelDef = { id: string; name: string; accessControl: unknown; fields: Field[]; referenceRequirements: string[] };

const TYPES = [
  'p_TEXT', 'p_NUMBER', 'p_BOOLEAN', 'p_DATE', 'p_DATE_TIME', 'p_TIME', 'p_STAR_RATING', 'p_LINK', 'p_PHONE_NUMBER',
  'p_ADDRESS', 'p_CURRENCY_AMOUNT', 'p_TEXT[]', 'p_NUMBER[]',
] as const;
type Kind = (typeof TYPES)[number];

const WORDS = ['zeta', 'alpha', 'mu', 'omicron', 'be', 'kappa', 'x', 'lambda', 'pi'];

const OPEN = { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' };

const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}): Field => ({
  id: `urn:svc:edge:${id}`, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/** The index of Wide's field with a rule on the record (hidden from end users while the first field is 'secret'). */
export const RULED = 5;

/** The name of Wide's field `i` (0-based). */
export const wideName = (i: number) => `${WORDS[i % WORDS.length]}${(i * 37) % 1000}`;
/** The type of Wide's field `i`. */
export const wideKind = (i: number): Kind => TYPES[i % TYPES.length];

/** A value of `kind` that differs per `i` and `round`. */
export function wideValue(kind: Kind, i: number, round = 0): unknown {
  const n = i + round * 1000;
  switch (kind) {
    case 'p_TEXT': return `text ${n} "quoted" ✓`;
    case 'p_NUMBER': return n + 0.5;
    case 'p_BOOLEAN': return (n + round) % 2 === 0;
    case 'p_DATE': return `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}`;
    case 'p_DATE_TIME': return `2025-01-${String((n % 28) + 1).padStart(2, '0')}T10:${String(n % 60).padStart(2, '0')}:00.000Z`;
    case 'p_TIME': return `${String(n % 24).padStart(2, '0')}:30:00`;
    case 'p_STAR_RATING': return n % 6;
    case 'p_LINK': return `https://example.test/${n}`;
    case 'p_PHONE_NUMBER': return `+4420${String(n).padStart(6, '0')}`;
    case 'p_ADDRESS': return { street: `${n} Main St`, city: 'Oslo' };
    case 'p_CURRENCY_AMOUNT': return { amount: n, currency: 'EUR' };
    case 'p_TEXT[]': return [`a${n}`, `b${n}`];
    case 'p_NUMBER[]': return [n, n + 1];
  }
}

/** The 300 fields of Wide: every tenth required, every seventh (not required) with a literal default. */
function wideFields(count: number): Field[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = wideKind(i);
    const many = kind.endsWith('[]');
    const to = many ? kind.slice(0, -2) : kind;
    const extra: Record<string, unknown> = { max: many ? null : 1 };
    if (i % 10 === 0) extra.min = 1;
    else if (i % 7 === 0) extra.defaultValue = wideValue(kind, i, 9);
    // A field rule that depends on the record: read only while the first field is not 'secret'.
    if (i === RULED) extra.accessControl = { rules: [{ access: 'allow', criteria: `record.${wideName(0)} != 'secret'` }], defaultAccess: 'deny' };
    return field(`wide-f${i}`, wideName(i), to, extra);
  });
}

/** Names of Hub's 60 relationships by kind. */
export const HUB = {
  toOne: Array.from({ length: 25 }, (_, i) => `one${(i * 7) % 25}w`),
  toMany: Array.from({ length: 25 }, (_, i) => `many${(i * 11) % 25}w`),
  /** Partnered: Tag i holds a to-one back (i < 5) or a to-many back (i ≥ 5). */
  tags: Array.from({ length: 10 }, (_, i) => `tags${9 - i}`),
};

/**
 * Heavy's fields: numbers, 8 bytes each in a row, so a record with every one of them set is past
 * what one PostgreSQL row holds (8160 bytes): the database refuses it (SQLSTATE 54000).
 */
export const HEAVY = 1100;

/** The to-do example plus Wide (300 fields), Hub (60 relationships), ten Tag models and Heavy. */
export function wideScode(wideCount = 300): ReturnType<typeof todoScodeWithoutEvents> {
  const scode = todoScodeWithoutEvents() as unknown as { models: ModelDef[] };
  const model = (id: string, name: string, fields: Field[]): ModelDef => ({ id: `urn:svc:model:${id}`, name, accessControl: OPEN, fields, referenceRequirements: [] });
  scode.models.push(model('wide', 'Wide', wideFields(wideCount)));
  const hub: Field[] = [field('hub-title', 'title', 'p_TEXT', { min: 1 })];
  HUB.toOne.forEach((name) => hub.push(field(`hub-${name}`, name, 'urn:svc:model:wide')));
  HUB.toMany.forEach((name) => hub.push(field(`hub-${name}`, name, 'urn:svc:model:wide', { max: null })));
  HUB.tags.forEach((name, i) => {
    const tag = `tag${i}`;
    hub.push(field(`hub-${name}`, name, `urn:svc:model:${tag}`, { max: null }));
    const back = i < 5 ? { relationshipOwner: false } : { max: null };
    scode.models.push(model(tag, `Tag${i}`, [field(`${tag}-label`, 'label', 'p_TEXT'), field(`${tag}-hub`, 'hub', 'urn:svc:model:hub', back)]));
  });
  scode.models.push(model('hub', 'Hub', hub));
  scode.models.push(model('heavy', 'Heavy', Array.from({ length: HEAVY }, (_, i) => field(`heavy-n${i}`, `n${i}`, 'p_NUMBER'))));
  return scode as unknown as ReturnType<typeof todoScodeWithoutEvents>;
}

/** A full Wide body for `round` (every field set). */
export function wideBody(count = 300, round = 0): Record<string, unknown> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [wideName(i), wideValue(wideKind(i), i, round)]));
}
