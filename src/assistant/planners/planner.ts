import type { AppDefinition } from '../../definition/schema.ts';
import type { Plan } from '../proposals.ts';

/** Turns a plain-language request about one application into operations (DESIGN §15). */
export interface Planner {
  readonly name: string;
  /** `applicationId` lets a planner find the application's own settings (its provider key). */
  plan(request: { text: string; definition: AppDefinition; applicationId?: string }): Promise<Plan>;
}
