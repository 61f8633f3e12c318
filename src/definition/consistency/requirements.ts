/** Consistency of requirements and of the references to them. */
import type { ProblemDetail } from '../../errors.ts';
import { REQUIREMENT_ID_PREFIX, type AppDefinition } from '../schema.ts';
import { duplicates, pointer } from './pointer.ts';

export function checkRequirements(def: AppDefinition): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const ids = new Set(def.requirements.map((r) => r.id));

  for (const { index, first } of duplicates(def.requirements, (r) => r.id)) {
    problems.push({
      path: pointer('requirements', index, 'id'),
      message: `Duplicate requirement id '${def.requirements[index].id}' (also ${pointer('requirements', first)}).`,
    });
  }
  def.requirements.forEach((requirement, i) => {
    const parent = requirement.parentId;
    if (typeof parent !== 'string' || !parent.startsWith(REQUIREMENT_ID_PREFIX)) return;
    const at = pointer('requirements', i, 'parentId');
    if (requirement.type === 'userJourneyStep') {
      problems.push({ path: at, message: 'The parent of a userJourneyStep requirement must be a user journey, not a requirement.' });
    } else if (!ids.has(parent)) {
      problems.push({ path: at, message: `No requirement has the id '${parent}'.` });
    } else if (parent === requirement.id) {
      problems.push({ path: at, message: 'A requirement cannot be its own parent.' });
    }
  });

  const check = (refs: readonly string[] | undefined, ...at: (string | number)[]) => {
    refs?.forEach((ref, k) => {
      if (!ids.has(ref)) problems.push({ path: pointer(...at, 'referenceRequirements', k), message: `No requirement has the id '${ref}'.` });
    });
  };
  def.models.forEach((m, i) => check(m.referenceRequirements, 'models', i));
  def.actions.forEach((a, i) => check(a.referenceRequirements, 'actions', i));
  def.triggers.forEach((t, i) => check(t.referenceRequirements, 'triggers', i));
  return problems;
}
