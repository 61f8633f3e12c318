/**
 * Relationships an API document states without a `$ref`: a key property beside a model of
 * that name (`Order.petId` beside `Pet`, `Invoice.BrandingThemeID`) points at it; and a list of
 * shared records (`Pet.tags: [Tag]`, where a Tag has its own id and is no part of one Pet) is a
 * many-to-many, written as a join draft model that build.ts turns into one.
 */
import { fieldName, modelName } from '../names.ts';
import type { DraftField, DraftModel, DraftWarning } from './types.ts';

const SHOWN = 20;
/** Fields of a record that only names or labels something: a tag, a category, a label. */
const NAMING = new Set(['id', 'uid', 'uuid', 'name', 'title', 'label', 'description', 'color', 'colour', 'code', 'slug', 'url', 'key', 'value']);
const MAX_TAG_FIELDS = 6;

const flat = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function listed(items: string[]): string {
  const more = items.length > SHOWN ? ` and ${items.length - SHOWN} more` : '';
  return `${items.slice(0, SHOWN).join(', ')}${more}`;
}

/** `petId`, `pet_id`, `AccountID` → `pet`, `pet`, `Account`; anything else → undefined. */
function keyBase(name: string): string | undefined {
  // `id` ends a word only after a separator (`pet_id`) or capitalised (`petId`, `AccountID`): never `paid`.
  const match = /^(.+?)(?:[_-](?:id|Id|ID)|Id|ID)$/.exec(name);
  return match && /[A-Za-z]/.test(match[1]!) ? match[1] : undefined;
}

export function linkModels(models: DraftModel[], collections: ReadonlySet<string>): DraftWarning[] {
  const warnings: DraftWarning[] = [];
  const byKey = new Map(models.map((m) => [modelName(m.name), m]));
  const keyed: string[] = [];
  let firstKey: string | undefined;
  for (const model of models) {
    const own = modelName(model.name);
    const related = new Set(model.fields.filter((f) => typeof f.type !== 'string').map((f) => fieldName(f.name)));
    model.fields = model.fields.map((field) => {
      const base = typeof field.type === 'string' && !field.many && !field.enum && (field.type === 'p_NUMBER' || field.type === 'p_TEXT') ? keyBase(field.name) : undefined;
      const target = base ? byKey.get(modelName(base)) : undefined;
      if (!base || !target || modelName(base) === own || related.has(fieldName(base))) return field;
      keyed.push(`${model.name}.${field.name} → ${target.name}`);
      firstKey ??= field.locator;
      const { enum: _enum, defaultValue: _default, ...rest } = field;
      return { ...rest, type: { model: target.name } };
    });
  }
  if (keyed.length > 0) {
    warnings.push({ locator: firstKey!, message: `key properties beside a model of their name made relationships to it: ${listed(keyed)}.` });
  }

  // Per model: its relationship fields by target, to-one and to-many apart (linear in the fields, whatever their number).
  const links = new Map<DraftModel, { one: Set<string>; many: Map<string, DraftField[]> }>();
  for (const m of models) {
    const index = { one: new Set<string>(), many: new Map<string, DraftField[]>() };
    for (const f of m.fields) {
      if (typeof f.type === 'string') continue;
      const target = modelName(f.type.model);
      if (!f.many) index.one.add(target);
      else if (index.many.has(target)) index.many.get(target)!.push(f);
      else index.many.set(target, [f]);
    }
    links.set(m, index);
  }
  const hasIdentity = (m: DraftModel) => m.fields.some((f) => ['id', 'uid', 'uuid', `${flat(m.name)}id`].includes(flat(f.name)));
  const tagLike = (m: DraftModel) =>
    m.fields.length <= MAX_TAG_FIELDS && m.fields.every((f) => typeof f.type === 'string' && NAMING.has(flat(f.name)));
  const joins: DraftModel[] = [];
  const shared: string[] = [];
  const removed = new Set<DraftField>();
  const taken = new Set(byKey.keys());
  for (const model of models) {
    const source = modelName(model.name);
    for (const [targetKey, lists] of links.get(model)!.many) {
      const target = byKey.get(targetKey);
      // Several lists of one model (`writers`, `artists` of Staff) are roles a many-to-many cannot tell apart.
      if (!target || targetKey === source || lists.length > 1 || removed.has(lists[0]!)) continue;
      const targetLinks = links.get(target)!;
      if (targetLinks.one.has(source) || !hasIdentity(target)) continue;
      if (!collections.has(targetKey) && !tagLike(target)) continue;
      const field = lists[0]!;
      removed.add(field);
      // The other side's list of these records is the many-to-many's partner, not a relationship of its own.
      const back = targetLinks.many.get(source);
      if (back?.length === 1) removed.add(back[0]!);
      let name = `${source}${targetKey}Link`;
      for (let n = 2; taken.has(modelName(name)); n++) name = `${source}${targetKey}Link${n}`;
      taken.add(modelName(name));
      joins.push({ name, fields: [], joinOf: [model.name, target.name], locator: field.locator });
      shared.push(`${model.name}.${field.name} (${target.name})`);
    }
  }
  if (removed.size > 0) for (const m of models) m.fields = m.fields.filter((f) => !removed.has(f));
  if (shared.length > 0) {
    warnings.push({
      locator: joins[0]!.locator,
      message: `lists of shared records with their own identity made many-to-many relationships (a record is listed by many): ${listed(shared)}.`,
    });
  }
  models.push(...joins);
  return warnings;
}
