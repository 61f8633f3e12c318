/**
 * From merged drafts to a `domainModel` that `definition/generate.ts` turns into models (ids,
 * partners, relationship owners): this module only decides which relationships the definition
 * can hold and names their partners.
 *
 * - A join table (`joinOf`) becomes a many-to-many between its two models and is left out.
 * - A single relationship between two models gets its partner on the other side: the name the
 *   document gives, else `films` (for a to-one `Film.language`) or `pet` (for a to-many `Pet.tags`).
 * - Several relationships between the same two models: the definition allows a field only one
 *   partner, so they stay one-way pointers without partners, all in one direction; those in the
 *   other direction are left out with a warning.
 */
import type { DomainModel, RELATIONSHIP_TYPES } from '../definition/schema.ts';
import type { MergedField, MergedModel, Source, SpecWarning } from './merge.ts';
import { freeName, toManyName, toOneName } from './names.ts';

type DomainModels = NonNullable<DomainModel>['models'];
type DomainField = DomainModels[number]['fields'][number];
type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];

interface Link {
  from: string;
  to: string;
  field: MergedField;
  manyToMany: boolean;
}

/** What the domain model is made of, with where each of its fields came from. */
export interface PlannedDomain {
  models: DomainModels;
  /** Per model name: per field name, the source of the field (partners carry the source of their pair). */
  sources: Map<string, Map<string, Source>>;
  /** Per model name: the merged field behind each declared field (min, enum, defaultValue come from it). */
  declared: Map<string, Map<string, MergedField>>;
  warnings: SpecWarning[];
}

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

export function planDomain(models: MergedModel[], userModel: string | null): PlannedDomain {
  const warnings: SpecWarning[] = [];
  const byName = new Map(models.map((m) => [m.name, m]));
  const joins = models.filter((m) => m.joinOf && byName.has(m.joinOf[0]) && byName.has(m.joinOf[1]) && m.joinOf[0] !== m.joinOf[1]);
  const kept = models.filter((m) => !joins.includes(m));
  const keptNames = new Set(kept.map((m) => m.name));

  const links: Link[] = [];
  for (const join of joins) {
    const [a, b] = join.joinOf!;
    const field: MergedField = { name: toManyName(b), type: { model: b }, many: true, required: false, partner: toManyName(a), source: join.source };
    links.push({ from: a, to: b, field, manyToMany: true });
  }
  for (const model of kept) {
    for (const field of model.fields) {
      if (typeof field.type === 'string') continue;
      if (!keptNames.has(field.type.model)) {
        warnings.push({ ...field.source, message: `${model.name}.${field.name} points at ${field.type.model}, a join table turned into a many-to-many; the field is left out.` });
        continue;
      }
      links.push({ from: model.name, to: field.type.model, field, manyToMany: false });
    }
  }

  // Links by the pair of models they join; several in one pair keep one direction and no partners.
  const groups = new Map<string, Link[]>();
  for (const link of links) {
    const key = pairKey(link.from, link.to);
    groups.set(key, [...(groups.get(key) ?? []), link]);
  }
  const withPartner = new Set<Link>();
  const dropped = new Set<Link>();
  for (const group of groups.values()) {
    if (group.length === 1) {
      withPartner.add(group[0]);
      continue;
    }
    const directions = new Map<string, Link[]>();
    for (const link of group) directions.set(link.from, [...(directions.get(link.from) ?? []), link]);
    // The direction with most links; on a tie the one whose field is named after its target (`Staff.store`).
    const ranked = [...directions.values()].sort(
      (x, y) => y.length - x.length || Number(y.some((l) => l.field.name === toOneName(l.to))) - Number(x.some((l) => l.field.name === toOneName(l.to))),
    );
    for (const other of ranked.slice(1)) {
      for (const link of other) {
        dropped.add(link);
        warnings.push({
          ...link.field.source,
          message: `${link.from}.${link.field.name} is left out: ${link.to} already points at ${link.from} (${ranked[0].map((l) => `${l.to === link.from ? l.from : l.to}.${l.field.name}`).join(', ')}), and a definition cannot hold relationships both ways between two models without pairing them.`,
        });
      }
    }
    if (ranked[0].length === 1) withPartner.add(ranked[0][0]);
  }

  const fields = new Map<string, DomainField[]>(kept.map((m) => [m.name, []]));
  const sources = new Map<string, Map<string, Source>>(kept.map((m) => [m.name, new Map()]));
  const declared = new Map<string, Map<string, MergedField>>(kept.map((m) => [m.name, new Map()]));
  const taken = new Map<string, Set<string>>(kept.map((m) => [m.name, new Set(m.fields.filter((f) => typeof f.type === 'string').map((f) => f.name))]));
  const add = (model: string, field: DomainField, source: Source, merged?: MergedField) => {
    fields.get(model)!.push(field);
    sources.get(model)!.set(field.name, source);
    if (merged) declared.get(model)!.set(field.name, merged);
  };

  for (const model of kept) {
    for (const field of model.fields) {
      if (typeof field.type !== 'string') continue;
      add(model.name, { name: field.name, type: `${field.type}${field.many ? '[]' : ''}` }, field.source, field);
    }
  }
  for (const link of links) {
    if (dropped.has(link)) continue;
    const { from, to, field } = link;
    const type: RelationshipType = link.manyToMany ? 'manyToMany' : field.many ? 'hasMany' : 'belongsToOne';
    const name = freeName(field.name, taken.get(from)!);
    add(from, { name, type: `${to}${field.many ? '[]' : ''}`, relationshipType: type }, field.source, { ...field, name });
    if (!withPartner.has(link)) continue;
    const partnerType: RelationshipType = link.manyToMany ? 'manyToMany' : field.many ? 'belongsToOne' : 'hasMany';
    const partnerMany = partnerType !== 'belongsToOne';
    const wanted = field.partner ?? (partnerMany ? toManyName(from) : toOneName(from));
    const partner = freeName(from === to && wanted === name ? `${wanted}Of` : wanted, taken.get(to)!);
    add(to, { name: partner, type: `${from}${partnerMany ? '[]' : ''}`, relationshipType: partnerType }, field.source);
  }

  const domain: DomainModels = kept.map((m) => ({ name: m.name, fields: fields.get(m.name)!, requirements: [], isUserModel: m.name === userModel }));
  return { models: domain, sources, declared, warnings };
}
