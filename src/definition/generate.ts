/**
 * Generating `models` from `domainModel`, deterministically and idempotently.
 *
 * - Types: a field type naming a domain model (exactly) is a relationship to it;
 *   anything else maps to a primitive (`generate/primitive-types.ts`; unknown →
 *   p_TEXT). A trailing `[]` (`string[]`, `Tag[]`) means many values.
 * - Relationships (this side / partner side, as relationshipOwner + max):
 *     hasOne        owner, 1     / belongs-to: not owner, 1
 *     hasMany       owner, null  / belongs-to: not owner, 1
 *     belongsToOne  not owner, 1 / owner, null (the has-many side)
 *     belongsToMany not owner, null / owner, null
 *     manyToMany    owner, null  / not owner, null
 *   Without a relationshipType the type is inferred from the partner's
 *   (hasOne/hasMany → belongsToOne, belongsToOne → hasMany, belongsToMany or
 *   manyToMany → manyToMany), else hasMany for `X[]` and belongsToOne for `X`.
 *   When the target model declares exactly one field pointing back, the two are
 *   partners; when it declares none, the partner is created (named after the
 *   model: `toDo` to-one, `toDos` to-many). With several fields between the same
 *   two models no partner is created. A declared pair is adjusted only where
 *   `relationships.ts#pairProblem` would refuse it (the to-one side of a
 *   one-to-many is the non-owner; in a one-to-one or a both-non-owner pair the
 *   side declared first owns).
 * - Ids are stable: a model matched by name, then a field matched by name in it,
 *   keeps its id, its accessControl, its `min`, unknown members, and (when its
 *   `to` is unchanged) `enum`, `defaultValue`, `computed`. New ids are
 *   `urn:svc:model:<slug>` / `urn:svc:edge:<model-slug>-<field-slug>`, never
 *   one that the definition already uses (columns are named from ids).
 * - New models get `{rules: [], defaultAccess: 'deny'}` (only the administrator
 *   until rules are written), new fields `{rules: []}` and `min` 0.
 * - `referenceRequirements` are the domain model's requirement ids;
 *   `isUserModel` gives `userModelId` (unchanged when no model has it).
 * - The domain model is the source: models (and fields) it lacks are dropped.
 * Running it on its own output gives the same definition.
 */
import { Problem, type ProblemDetail } from '../errors.ts';
import { defaultModelAccess } from './edits/models.ts';
import { fieldIdFor, modelIdFor } from './edits/ids.ts';
import { listType, primitiveTypeOf } from './generate/primitive-types.ts';
import { resourceName } from './naming.ts';
import { REQUIREMENT_ID_PREFIX, RELATIONSHIP_TYPES, type AppDefinition, type DomainModel, type Field, type Model } from './schema.ts';

type DomainModels = NonNullable<DomainModel>['models'];
type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];
interface Side {
  owner: boolean;
  max: number | null;
}

const THIS_SIDE: Record<RelationshipType, Side> = {
  hasOne: { owner: true, max: 1 },
  hasMany: { owner: true, max: null },
  belongsToOne: { owner: false, max: 1 },
  belongsToMany: { owner: false, max: null },
  manyToMany: { owner: true, max: null },
};
const PARTNER_SIDE: Record<RelationshipType, Side> = {
  hasOne: { owner: false, max: 1 },
  hasMany: { owner: false, max: 1 },
  belongsToOne: { owner: true, max: null },
  belongsToMany: { owner: true, max: null },
  manyToMany: { owner: false, max: null },
};
const INVERSE: Record<RelationshipType, RelationshipType> = {
  hasOne: 'belongsToOne',
  hasMany: 'belongsToOne',
  belongsToOne: 'hasMany',
  belongsToMany: 'manyToMany',
  manyToMany: 'manyToMany',
};

/** One field to generate: `to` is a primitive or, for a relationship, the target's domain index. */
interface Plan {
  name: string;
  primitive?: string;
  target?: number;
  many: boolean;
  type?: RelationshipType;
  side?: Side;
}

export function generateModelsFromDomainModel(def: AppDefinition): AppDefinition {
  const domain = def.domainModel?.models;
  if (!domain) {
    throw new Problem(409, 'The definition has no domain model to generate models from.', [
      { path: '/domainModel', message: 'Is null' },
    ]);
  }
  const problems = checkDomain(domain);
  if (problems.length > 0) throw new Problem(409, 'The domain model cannot be turned into models.', problems);

  const plans = planFields(domain);
  const takenModels = new Set(def.models.map((m) => m.id));
  const takenFields = new Set(def.models.flatMap((m) => m.fields.map((f) => f.id)));
  const existing = domain.map((dm) => def.models.find((m) => m.name === dm.name));
  const ids = domain.map((dm, i) => existing[i]?.id ?? modelIdFor(dm.name, takenModels));

  const models = domain.map((dm, i): Model => {
    const old = existing[i];
    const fields = plans[i].map((plan) => {
      const to = plan.target === undefined ? (plan.primitive as string) : ids[plan.target];
      const side = plan.side ?? { owner: true, max: plan.many ? null : 1 };
      return buildField(old?.fields.find((f) => f.name === plan.name), dm.name, plan.name, to, side, takenFields);
    });
    const { id: _id, name: _name, referenceRequirements: _refs, accessControl, fields: _fields, ...rest } = structuredClone(old ?? ({} as Partial<Model>));
    const referenceRequirements = [...new Set(dm.requirements.map((r) => r.id).filter((id) => id.startsWith(REQUIREMENT_ID_PREFIX)))];
    return { id: ids[i], name: dm.name, referenceRequirements, accessControl: accessControl ?? defaultModelAccess(), fields, ...rest };
  });

  const userIndex = domain.findIndex((dm) => dm.isUserModel);
  const next = structuredClone(def);
  next.models = models;
  if (userIndex >= 0) next.userModelId = ids[userIndex];
  return next;
}

function buildField(old: Field | undefined, modelName: string, name: string, to: string, side: Side, taken: Set<string>): Field {
  const { id, min, accessControl, ...rest } = structuredClone(old ?? ({} as Partial<Field>));
  delete rest.name;
  delete rest.relationshipOwner;
  delete rest.max;
  delete rest.to;
  if (old && old.to !== to) {
    delete rest.enum;
    delete rest.defaultValue;
    delete rest.computed;
  }
  return {
    id: id ?? fieldIdFor(modelName, name, taken),
    name,
    relationshipOwner: side.owner,
    min: min ?? 0,
    max: side.max,
    to,
    ...rest,
    accessControl: accessControl ?? { rules: [] },
  };
}

function checkDomain(domain: DomainModels): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const names = new Set<string>();
  let userModels = 0;
  domain.forEach((dm, i) => {
    const at = `/domainModel/models/${i}`;
    if (names.has(dm.name)) problems.push({ path: `${at}/name`, message: `Duplicate model name '${dm.name}'` });
    names.add(dm.name);
    if (dm.isUserModel && ++userModels > 1) problems.push({ path: `${at}/isUserModel`, message: 'Only one model can be the user model' });
    const fieldNames = new Set<string>();
    dm.fields.forEach((f, k) => {
      if (fieldNames.has(f.name)) problems.push({ path: `${at}/fields/${k}/name`, message: `Duplicate field name '${f.name}' in ${dm.name}` });
      fieldNames.add(f.name);
    });
  });
  domain.forEach((dm, i) =>
    dm.fields.forEach((f, k) => {
      if (f.relationshipType && !names.has(listType(f.type).element)) {
        problems.push({
          path: `/domainModel/models/${i}/fields/${k}/type`,
          message: `A ${f.relationshipType} relationship needs the name of a domain model, not '${f.type}'`,
        });
      }
    }),
  );
  return problems;
}

/** The fields of each domain model: declared ones, then the created partners. */
function planFields(domain: DomainModels): Plan[][] {
  const index = new Map(domain.map((dm, i) => [dm.name, i]));
  const plans: Plan[][] = domain.map((dm) =>
    dm.fields.map((f) => {
      const { element, many } = listType(f.type);
      const target = index.get(element);
      if (target === undefined) return { name: f.name, primitive: primitiveTypeOf(element), many };
      return { name: f.name, target, many, type: f.relationshipType };
    }),
  );
  const declared = plans.map((list) => [...list]);
  const towards = (from: number, to: number): Plan[] => declared[from].filter((p) => p.target === to);

  declared.forEach((list, i) =>
    list.forEach((plan) => {
      if (plan.target === undefined || plan.side) return;
      const j = plan.target;
      const forward = towards(i, j);
      const back = towards(j, i).filter((p) => p !== plan);
      const pairable = i === j ? forward.length <= 2 : forward.length === 1 && back.length <= 1;
      const partner = pairable ? back[0] : undefined;
      const type = plan.type ?? (partner?.type ? INVERSE[partner.type] : plan.many ? 'hasMany' : 'belongsToOne');
      plan.side = { ...THIS_SIDE[type] };
      if (partner) {
        const partnerType = partner.type ?? INVERSE[type];
        partner.side = { ...THIS_SIDE[partnerType] };
        settlePair(plan.side, partner.side);
      } else if (pairable) {
        const name = uniqueName(partnerName(domain[i].name, PARTNER_SIDE[type].max), plans[j]);
        plans[j].push({ name, target: i, many: PARTNER_SIDE[type].max === null, side: { ...PARTNER_SIDE[type] } });
      }
    }),
  );
  return plans;
}

/** Adjusts a declared pair that `pairProblem` would refuse; `first` is the side declared first. */
function settlePair(first: Side, second: Side): void {
  const firstMany = first.max === null || first.max > 1;
  const secondMany = second.max === null || second.max > 1;
  if (firstMany !== secondMany) {
    (firstMany ? second : first).owner = false;
    (firstMany ? first : second).owner = true;
  } else if (first.owner === second.owner && (!firstMany || !first.owner)) {
    first.owner = true;
    second.owner = false;
  }
}

/** `ToDo` → `toDo` (to-one) or `toDos` (to-many). */
function partnerName(modelName: string, max: number | null): string {
  if (max === null) return resourceName(modelName) || 'items';
  const camel = modelName.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase());
  return camel ? camel[0].toLowerCase() + camel.slice(1) : 'item';
}

function uniqueName(base: string, fields: Plan[]): string {
  let name = base;
  for (let n = 2; fields.some((f) => f.name === name) || name === 'id'; n++) name = `${base}${n}`;
  return name;
}
