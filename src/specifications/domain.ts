/**
 * From merged drafts to a `domainModel` that `definition/generate.ts` turns into models (ids,
 * partners, relationship owners): this module only decides which relationships the definition
 * can hold and names their partners.
 *
 * - A join table (`joinOf`) becomes a many-to-many between its two models and is left out.
 * - A single relationship between two models gets its partner on the other side: the name the
 *   document gives, else `films` (for a to-one `Film.language`) or `pet` (for a to-many `Pet.tags`).
 * - Several relationships between the same two models (`Flight.origin` and `Flight.destination`
 *   to `Airport`, or `Staff.store` and `Store.manager`): each gets its own partner, named by the
 *   document or after the field (`flightsAsOrigin`), and the pairs are stated by id (`partner`),
 *   said in a warning.
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
  /** Relationships between two models joined by several: each with its partner, to be paired by id. */
  pairs: StatedPair[];
}

/** `model.field` and its partner `target.partner`, by name. */
export interface StatedPair {
  model: string;
  field: string;
  target: string;
  partner: string;
}

/** The partner of one of several relationships between two models: `Flight.origin` → `flightsAsOrigin`. */
function statedPartnerName(from: string, field: string, many: boolean): string {
  const base = many ? toManyName(from) : toOneName(from);
  return `${base}As${field[0]!.toUpperCase()}${field.slice(1)}`;
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

  // Links by the pair of models they join. One link alone gets its partner from generate.ts (the one
  // field pointing back); several in one pair each get their own, paired by explicit ids (`pairs`).
  const groups = new Map<string, Link[]>();
  for (const link of links) {
    const key = pairKey(link.from, link.to);
    groups.set(key, [...(groups.get(key) ?? []), link]);
  }
  const stated = new Set<Link>();
  for (const group of groups.values()) {
    if (group.length === 1) continue;
    for (const link of group) stated.add(link);
    relaxRequiredCycle(group, warnings);
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
  const pairs: StatedPair[] = [];
  // Declared relationships first, so a partner's name never takes a name the document gives a field.
  const names = links.map((link) => freeName(link.field.name, taken.get(link.from)!));
  links.forEach((link, i) => {
    const { from, to, field } = link;
    const name = names[i]!;
    const type: RelationshipType = link.manyToMany ? 'manyToMany' : field.many ? 'hasMany' : 'belongsToOne';
    add(from, { name, type: `${to}${field.many ? '[]' : ''}`, relationshipType: type }, field.source, { ...field, name });
    const partnerType: RelationshipType = link.manyToMany ? 'manyToMany' : field.many ? 'belongsToOne' : 'hasMany';
    const partnerMany = partnerType !== 'belongsToOne';
    const wanted = stated.has(link) ? (field.partner ?? statedPartnerName(from, name, partnerMany)) : (field.partner ?? (partnerMany ? toManyName(from) : toOneName(from)));
    const partner = freeName(from === to && wanted === name ? `${wanted}Of` : wanted, taken.get(to)!);
    add(to, { name: partner, type: `${from}${partnerMany ? '[]' : ''}`, relationshipType: partnerType }, field.source);
    if (stated.has(link)) pairs.push({ model: from, field: name, target: to, partner });
  });
  if (pairs.length > 0) {
    const byModels = new Map<string, StatedPair[]>();
    for (const pair of pairs) byModels.set(pairKey(pair.model, pair.target), [...(byModels.get(pairKey(pair.model, pair.target)) ?? []), pair]);
    for (const group of byModels.values()) {
      const first = links.find((l) => l.from === group[0]!.model && names[links.indexOf(l)] === group[0]!.field)!;
      warnings.push({
        ...first.field.source,
        message: `${group.length} relationships join ${group[0]!.model} and ${group[0]!.target}: each has its own partner, paired by id (${group.map((p) => `${p.model}.${p.field} ↔ ${p.target}.${p.partner}`).join(', ')}).`,
      });
    }
  }

  const domain: DomainModels = kept.map((m) => ({ name: m.name, fields: fields.get(m.name)!, requirements: [], isUserModel: m.name === userModel }));
  return { models: domain, sources, declared, warnings, pairs };
}

/**
 * Two models whose required to-one relationships point at each other (`Staff.store`, `Store.manager`):
 * neither record could be created first. The one not named after its target is made optional (a
 * data import sets it in its second pass, once both records exist), said in a warning.
 */
function relaxRequiredCycle(group: Link[], warnings: SpecWarning[]): void {
  const required = group.filter((l) => !l.manyToMany && !l.field.many && l.field.required && l.from !== l.to);
  const forth = required.filter((l) => l.from === required[0]?.from);
  const back = required.filter((l) => l.from !== required[0]?.from);
  if (forth.length === 0 || back.length === 0) return;
  const namedForTarget = (links: Link[]) => links.some((l) => l.field.name === toOneName(l.to));
  const relaxed = namedForTarget(forth) && !namedForTarget(back) ? back : forth;
  const kept = relaxed === forth ? back : forth;
  for (const link of relaxed) {
    link.field = { ...link.field, required: false };
    warnings.push({
      ...link.field.source,
      message: `${link.from}.${link.field.name} and ${kept.map((l) => `${l.from}.${l.field.name}`).join(', ')} each require a record of the other model, so neither could be created first: ${link.from}.${link.field.name} is optional (a data import sets it once both records exist).`,
    });
  }
}
