/**
 * The last step of a build: the content made usable by the app's end users. Secret-like fields
 * become write-only, the user model is made ready for sign-up, and access is proposed from the
 * shape of the data (access-proposal.ts). A proposal the definition refuses (it should not) is
 * taken back, leaving that model closed, with a warning; the content still validates.
 */
import { Problem, type ProblemDetail } from '../errors.ts';
import { validateDefinition } from '../definition/validate.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { proposeAccess, signupReady, type AccessMode } from './access-proposal.ts';
import type { SpecWarning } from './merge.ts';
import { markWriteOnly } from './secret-fields.ts';
import { settle, type SourceOf } from './settle.ts';

const MAX_ROUNDS = 20;

function problemsOf(def: AppDefinition): ProblemDetail[] {
  try {
    validateDefinition(def);
    return [];
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return error.errors.length > 0 ? error.errors : [{ path: '', message: error.message }];
  }
}

export function proposeEndUserAccess(def: AppDefinition, mode: AccessMode, sourceOf: SourceOf): SpecWarning[] {
  const warnings = [...markWriteOnly(def, sourceOf), ...signupReady(def, sourceOf)];
  const proposals = proposeAccess(def, mode, sourceOf);
  warnings.push(...proposals.warnings);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const problems = problemsOf(def);
    if (problems.length === 0) return warnings;
    let reverted = false;
    for (const problem of problems) {
      const at = /^\/models\/(\d+)/.exec(problem.path);
      const model = at ? def.models[Number(at[1])] : undefined;
      if (model && proposals.revert(model)) {
        reverted = true;
        warnings.push({ ...sourceOf.get(model), message: `The access proposed for ${model.name} was taken back (${problem.message}): only administrators reach it until rules are written.` });
      }
    }
    if (!reverted) break;
  }
  // What is left is not about the proposals: left out as any build leaves out what does not validate.
  warnings.push(...settle(def, sourceOf));
  return warnings;
}
