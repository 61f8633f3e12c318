/** Consistency of relationships: at most one partner, and a pair that says where the foreign key is. */
import type { ProblemDetail } from '../../errors.ts';
import { isRelationship, pairProblem, partnerCandidates } from '../relationships.ts';
import type { AppDefinition, Field, Model } from '../schema.ts';
import { pointer } from './pointer.ts';

/**
 * A relationship without a partner is allowed (a one-way pointer: a to-one is
 * a foreign key on its own table, a to-many gets its own join table).
 * A pair is reported once, at the field that comes first in the definition.
 */
export function checkRelationships(def: AppDefinition): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const reported = new Set<string>();
  // An index by id for this check: looking each target up in the list made it quadratic in the models.
  const byId = new Map<string, Model>();
  for (const model of def.models) if (!byId.has(model.id)) byId.set(model.id, model);
  def.models.forEach((model, i) => checkModelRelationships(byId, model, i, reported, problems));
  return problems;
}

/**
 * The relationship problems of one model's fields (`i`: its index; `byId`: the first model of
 * each id). A pair's problem is reported once, at the field that comes first: `reported` holds
 * the fields already reported. What they depend on beyond the model: the models its
 * relationships name.
 */
export function checkModelRelationships(byId: ReadonlyMap<string, Model>, model: Model, i: number, reported: Set<string>, problems: ProblemDetail[]): void {
  const indexed = { models: [] as Model[], find: (id: string) => byId.get(id) };
  model.fields.forEach((field, k) => {
    if (!isRelationship(field)) return;
    const at = () => pointer('models', i, 'fields', k);
    if (field.partner !== undefined) {
      const problem = statedPartnerProblem(byId, model, field);
      if (problem) {
        problems.push({ path: `${at()}/partner`, message: problem });
        return;
      }
    }
    const candidates = partnerCandidates(indexed, model, field);
    if (candidates.length > 1) {
      problems.push({
        path: `${at()}/to`,
        message: `The relationship has ${candidates.length} partner fields pointing back (${candidates.map((c) => c.id).join(', ')}); at most one is allowed.`,
      });
      return;
    }
    const partner = candidates[0];
    if (!partner || reported.has(partner.id)) return;
    reported.add(field.id);
    const problem = pairProblem(field, partner);
    if (problem) problems.push({ path: `${at()}/relationshipOwner`, message: problem });
  });
}

/**
 * A stated partner must be a field of the target model pointing back at this model whose own
 * `partner`, when it states one, is this field.
 */
function statedPartnerProblem(byId: ReadonlyMap<string, Model>, model: Model, field: Field): string | undefined {
  if (!isRelationship(field)) return `${field.id} is not a relationship: it can have no partner.`;
  const partner = byId.get(field.to)?.fields.find((f) => f.id === field.partner);
  if (!partner) return `The partner ${field.partner} is not a field of the model ${field.to}.`;
  if (partner.id === field.id) return `${field.id} cannot be its own partner.`;
  if (partner.to !== model.id) return `The partner ${partner.id} does not point back at ${model.id}.`;
  if (partner.partner !== undefined && partner.partner !== field.id) return `The partner ${partner.id} names another partner (${partner.partner}).`;
  return undefined;
}
