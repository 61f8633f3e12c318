// A trigger's own expressions (DESIGN §5): matchSelectors choose the trigger, validation accepts
// the input, initialState builds the action's state. Variables: request, auth, env, now, event.
import { compile, type JsonValue } from '../../expressions/index.ts';
import { evaluate } from '../../expressions/index.ts';
import type { ProblemDetail } from '../../errors.ts';
import type { Trigger } from '../../definition/schema.ts';
import type { CompiledApp } from '../compiled-app.ts';

export interface TriggerVariables {
  request?: Record<string, unknown> | null;
  event?: Record<string, unknown> | null;
  auth: Record<string, unknown> | null;
  env: Record<string, string>;
  now: Date;
}

type TriggerScope = 'validation' | 'matchSelector' | 'initialState';

function evaluateIn(app: CompiledApp, scope: TriggerScope, source: string, vars: TriggerVariables): { ok: true; value: JsonValue } | { ok: false; message: string } {
  // Compiled programs are cached by the expressions module (per definition, scope and source).
  const compiled = compile(source, { definition: app.definition, scope });
  if (!compiled.ok) return { ok: false, message: compiled.message };
  const result = evaluate(compiled.compiled, { request: vars.request ?? null, event: vars.event ?? null, auth: vars.auth, env: vars.env, now: vars.now });
  return result.ok ? result : { ok: false, message: result.message };
}

/** All matchSelectors true (an error counts as false, DESIGN §5). */
export function selectorsMatch(app: CompiledApp, selectors: readonly string[], vars: TriggerVariables): boolean {
  return selectors.every((source) => {
    const result = evaluateIn(app, 'matchSelector', source, vars);
    return result.ok && result.value === true;
  });
}

/** The validations that are not true, each named by its pointer and source; empty when all hold. */
export function failedValidations(app: CompiledApp, trigger: Trigger, vars: TriggerVariables): ProblemDetail[] {
  const failed: ProblemDetail[] = [];
  trigger.validation.forEach((source, i) => {
    const result = evaluateIn(app, 'validation', source, vars);
    if (result.ok && result.value === true) return;
    const why = result.ok ? 'is not true' : `could not be evaluated: ${result.message}`;
    failed.push({ path: `/validation/${i}`, message: `${source} ${why}` });
  });
  return failed;
}

/** The initial state, or the members that could not be evaluated. */
export function buildInitialState(
  app: CompiledApp,
  trigger: Trigger,
  vars: TriggerVariables,
): { ok: true; state: Record<string, unknown> } | { ok: false; errors: ProblemDetail[] } {
  const state: Record<string, unknown> = {};
  const errors: ProblemDetail[] = [];
  for (const [name, source] of Object.entries(trigger.initialState)) {
    const result = evaluateIn(app, 'initialState', source, vars);
    if (result.ok) state[name] = result.value;
    else errors.push({ path: `/initialState/${name}`, message: `${source} could not be evaluated: ${result.message}` });
  }
  return errors.length === 0 ? { ok: true, state } : { ok: false, errors };
}
