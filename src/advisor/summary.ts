// Who may do what, in short, and the advice: what the specification, apply and publish answers
// and the deployment job's metadata carry.
import type { AppDefinition } from '../definition/schema.ts';
import { compileApp, type CompiledApp } from '../runtime/compiled-app.ts';
import { accessMatrix, matrixSummary, type MatrixSummary } from './access-matrix.ts';
import { adviceFor, type Advice } from './advice.ts';

export interface AccessSummary {
  access: MatrixSummary[];
  advice: Advice[];
}

export function accessSummaryOf(app: CompiledApp): AccessSummary {
  const matrix = accessMatrix(app);
  return { access: matrixSummary(matrix), advice: adviceFor(app, matrix) };
}

/** The summary of a definition not yet compiled (a version, a proposal); empty when it does not compile. */
export function accessSummaryOfDefinition(applicationId: string, serverVersion: string, definition: AppDefinition): AccessSummary {
  try {
    return accessSummaryOf(compileApp(applicationId, serverVersion, definition));
  } catch {
    return { access: [], advice: [] };
  }
}

