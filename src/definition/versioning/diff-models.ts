/** Differences of models and fields, rated by what they do to the generated API (see `bump.ts`). */
import { isPrimitiveType, type AppDefinition, type EnumValue, type Field, type Model } from '../schema.ts';
import { matchBy, ordered, sameJson, type Bump, type RatedChange } from './change.ts';
import { indexChanges } from './diff-indexes.ts';

export function modelChanges(a: AppDefinition, b: AppDefinition): RatedChange[] {
  const gone: RatedChange[] = [];
  const rest: { index: number; change: RatedChange }[] = [];
  const { removed, added, kept } = matchBy(a.models, b.models, (m) => m.id);
  for (const { item, index } of removed) {
    gone.push({ kind: 'removed', path: `/models/${index}`, summary: `model ${item.name} removed`, bump: 'major' });
  }
  for (const { item, index } of added) {
    const required = item.fields.filter(isRequiredOnCreate).length;
    const note = `${item.fields.length} field(s)${required ? `, ${required} required` : ''}`;
    rest.push({ index, change: { kind: 'added', path: `/models/${index}`, summary: `model ${item.name} added (${note})`, bump: 'minor' } });
  }
  for (const { before, after, index } of kept) {
    // The same object (an edit shares what it does not change): nothing changed.
    if (before === after) continue;
    const at = `/models/${index}`;
    const out: RatedChange[] = [];
    if (before.name !== after.name) {
      out.push({ kind: 'changed', path: `${at}/name`, summary: `model ${before.name} renamed to ${after.name}`, bump: 'major' });
    }
    if (!sameJson(before.accessControl, after.accessControl)) {
      out.push({ kind: 'changed', path: `${at}/accessControl`, summary: `model ${after.name} access control changed`, bump: 'patch' });
    }
    if (!sameJson(before.referenceRequirements ?? [], after.referenceRequirements ?? [])) {
      out.push({ kind: 'changed', path: `${at}/referenceRequirements`, summary: `model ${after.name} requirement references changed`, bump: 'patch' });
    }
    out.push(...fieldChanges(a, b, before, after, at));
    out.push(...indexChanges(before, after, at));
    rest.push(...out.map((change) => ({ index, change })));
  }
  return ordered(gone, rest);
}

function fieldChanges(a: AppDefinition, b: AppDefinition, modelA: Model, modelB: Model, at: string): RatedChange[] {
  const gone: RatedChange[] = [];
  const rest: { index: number; change: RatedChange }[] = [];
  const atA = `/models/${a.models.indexOf(modelA)}`;
  const { removed, added, kept } = matchBy(modelA.fields, modelB.fields, (f) => f.id);
  for (const { item, index } of removed) {
    gone.push({ kind: 'removed', path: `${atA}/fields/${index}`, summary: `field ${modelA.name}.${item.name} removed`, bump: 'major' });
  }
  for (const { item, index } of added) {
    const required = isRequiredOnCreate(item);
    const summary = `field ${modelB.name}.${item.name} added (${typeLabel(b, item)}${required ? ', required' : ''})`;
    rest.push({ index, change: { kind: 'added', path: `${at}/fields/${index}`, summary, bump: required ? 'major' : 'minor' } });
  }
  for (const { before, after, index } of kept) {
    if (before === after) continue;
    const name = `${modelB.name}.${before.name}`;
    const change = (member: string, summary: string, bump: Bump) =>
      rest.push({ index, change: { kind: 'changed', path: `${at}/fields/${index}/${member}`, summary: `field ${name} ${summary}`, bump } });
    if (before.name !== after.name) change('name', `renamed to ${after.name}`, 'major');
    if (before.to !== after.to) change('to', `type changed from ${typeLabel(a, before)} to ${typeLabel(b, after)}`, 'major');
    if (before.min !== after.min) change('min', `min ${before.min} → ${after.min}`, after.min > before.min ? 'major' : 'minor');
    if (before.max !== after.max) change('max', `max ${before.max ?? 'unbounded'} → ${after.max ?? 'unbounded'}`, maxBump(before.max, after.max));
    enumChange(before.enum, after.enum, change);
    if (before.computed !== after.computed) {
      if (before.computed === undefined) change('computed', 'becomes computed (read-only)', 'major');
      else if (after.computed === undefined) {
        // Writable again; with min ≥ 1 and no default a create request must now carry it.
        const required = isRequiredOnCreate(after);
        change('computed', `is no longer computed (writable${required ? ', required on create' : ''})`, required ? 'major' : 'minor');
      }
      else change('computed', 'computed expression changed', 'patch');
    }
    if (!sameJson(before.defaultValue, after.defaultValue)) {
      const required = after.min >= 1 && after.computed === undefined;
      const bump: Bump = !required ? 'patch' : after.defaultValue === undefined ? 'major' : before.defaultValue === undefined ? 'minor' : 'patch';
      change('defaultValue', `default ${show(before.defaultValue)} → ${show(after.defaultValue)}`, bump);
    }
    if (before.relationshipOwner !== after.relationshipOwner) {
      change('relationshipOwner', `relationshipOwner ${before.relationshipOwner} → ${after.relationshipOwner}`, 'patch');
    }
    if (!sameJson(before.accessControl, after.accessControl)) change('accessControl', 'access control changed', 'patch');
  }
  return ordered(gone, rest);
}

/** A value a create request must carry: min ≥ 1, no default, not computed. */
function isRequiredOnCreate(field: Field): boolean {
  return field.min >= 1 && field.defaultValue === undefined && field.computed === undefined;
}

const isMany = (max: number | null): boolean => max === null || max > 1;

/** One value ↔ a list changes the member's JSON type (major); within lists, a lower bound is stricter. */
function maxBump(before: number | null, after: number | null): Bump {
  if (isMany(before) !== isMany(after)) return 'major';
  if (after === null) return 'minor';
  return before === null || after < before ? 'major' : 'minor';
}

function enumChange(
  before: EnumValue[] | undefined,
  after: EnumValue[] | undefined,
  change: (member: string, summary: string, bump: Bump) => void,
): void {
  if (sameJson(before, after)) return;
  if (before === undefined) return change('enum', `restricted to ${list(after ?? [])}`, 'major');
  if (after === undefined) return change('enum', 'no longer restricted to an enum', 'minor');
  const lost = before.filter((v) => !after.includes(v));
  const gained = after.filter((v) => !before.includes(v));
  if (lost.length > 0) change('enum', `enum values removed: ${list(lost)}${gained.length ? `; added: ${list(gained)}` : ''}`, 'major');
  else if (gained.length > 0) change('enum', `enum values added: ${list(gained)}`, 'minor');
  else change('enum', 'enum values reordered', 'patch');
}

/** `p_TEXT`, `p_TEXT[]`, `User`, `User[]`. */
function typeLabel(def: AppDefinition, field: Field): string {
  const base = isPrimitiveType(field.to) ? field.to : (def.models.find((m) => m.id === field.to)?.name ?? field.to);
  return isMany(field.max) ? `${base}[]` : base;
}

const list = (values: EnumValue[]): string => values.map((v) => JSON.stringify(v)).join(', ');
const show = (value: unknown): string => (value === undefined ? 'none' : JSON.stringify(value));
