/**
 * Replacing a whole section of the definition: `requirements`, `personas`,
 * `appOverview`, `appDraft`, `domainModel` (the drafting stages; models, actions
 * and triggers have their own edits).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import {
  AppDraftSchema,
  AppOverviewSchema,
  DomainModelSchema,
  MAX_LIST,
  MAX_SHORT_LIST,
  PersonaSchema,
  RequirementSchema,
  type AppDefinition,
} from '../schema.ts';

/** The body schema of each replaceable section (the section's own schema from the definition). */
export const SectionBodies = {
  requirements: Type.Array(RequirementSchema, { maxItems: MAX_LIST }),
  personas: Type.Array(PersonaSchema, { maxItems: MAX_SHORT_LIST }),
  appOverview: AppOverviewSchema,
  appDraft: AppDraftSchema,
  domainModel: DomainModelSchema,
} as const;

export type SectionName = keyof typeof SectionBodies;
export const SECTION_NAMES = Object.keys(SectionBodies) as SectionName[];
export type SectionValue<S extends SectionName> = Static<(typeof SectionBodies)[S]>;

export function isSectionName(value: string): value is SectionName {
  return Object.hasOwn(SectionBodies, value);
}

export function replaceSection<S extends SectionName>(def: AppDefinition, section: S, value: SectionValue<S>): AppDefinition {
  if (!isSectionName(section)) {
    throw new Problem(404, `There is no replaceable section '${String(section)}'.`, [
      { path: '/section', message: `Expected one of ${SECTION_NAMES.join(', ')}` },
    ]);
  }
  // Shares every other section (edits/shared.ts).
  const replaced = { [section]: structuredClone(value) } as Pick<AppDefinition, S>;
  return { ...def, ...replaced };
}
