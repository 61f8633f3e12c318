// The workflow engine (DESIGN §7): runs an action's effects from startEffectId along `next`,
// binds params just before each effect, stores outputs at results.{actionEffectId}, routes every
// failure the same way (effect onError → action onError → the run fails) and enforces the limits.
// Pure: data and events go through the ports; the caller owns the transaction and the outbox.
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TObject } from '@sinclair/typebox';
import { effectParamsSchema } from '../../definition/effect-catalogue.ts';
import type { Action, ActionEffect } from '../../definition/schema.ts';
import { toJson, type JsonValue } from '../../expressions/index.ts';
import { EFFECTS } from './effects/index.ts';
import { ActionError, RunAbort, toRunError } from './errors.ts';
import { bindParams, evaluateExpression } from './expressions.ts';
import { allowListFromEnv } from './http/address-guard.ts';
import { hopsOf } from './http/hops.ts';
import type {
  ActionPorts,
  BodyResult,
  EffectContext,
  HttpResponse,
  ResponseDraft,
  RunError,
  RunInput,
  RunLimits,
  RunRecord,
  StepRecord,
} from './types.ts';

export const DEFAULT_MAX_STEPS = 1_000;
export const DEFAULT_WALL_TIME_MS = 30_000;
export const DEFAULT_MAX_FOREACH_DEPTH = 3;

export async function runAction(input: RunInput, ports: ActionPorts, limits: RunLimits = {}): Promise<RunRecord> {
  return new Run(input, ports, limits).execute();
}

/** An unhandled failure: unwinds every chain up to the run (no second routing on the way). */
class RunFailed extends Error {
  constructor(readonly error: RunError) {
    super(error.message);
  }
}

type Control = { kind: 'next' } | { kind: 'goto'; effectId: string } | { kind: 'end' };
type StepOutcome = { ok: true; output: JsonValue; control: Control } | { ok: false; error: RunError };
/** How a chain ended: `returned` when flow.return ended the whole run. */
type ChainEnd = { returned: boolean; last: JsonValue };

class Run {
  readonly #effects: Map<string, ActionEffect>;
  readonly #state: Record<string, unknown>;
  readonly #results: Record<string, JsonValue> = {};
  readonly #steps: StepRecord[] = [];
  readonly #maxSteps: number;
  readonly #maxDepth: number;
  readonly #deadline: number;
  readonly #wallTimeMs: number;
  readonly #abort = new AbortController();
  readonly #httpAllow: readonly string[];
  #error: RunError | null = null;
  #response: ResponseDraft | null = null;
  #stepCount = 0;

  constructor(
    readonly input: RunInput,
    readonly ports: ActionPorts,
    limits: RunLimits,
  ) {
    this.#effects = new Map(input.action.effects.map((e) => [e.actionEffectId, e]));
    this.#state = { ...input.initialState };
    this.#maxSteps = limits.maxSteps ?? DEFAULT_MAX_STEPS;
    this.#maxDepth = limits.maxForEachDepth ?? DEFAULT_MAX_FOREACH_DEPTH;
    this.#wallTimeMs = limits.wallTimeMs ?? DEFAULT_WALL_TIME_MS;
    this.#deadline = performance.now() + this.#wallTimeMs;
    this.#httpAllow = limits.httpAllow ?? allowListFromEnv();
  }

  get action(): Action {
    return this.input.action;
  }

  async execute(): Promise<RunRecord> {
    const timer = setTimeout(() => this.#abort.abort(), this.#wallTimeMs);
    timer.unref();
    try {
      await this.#chain(this.action.startEffectId, 0, false);
      const response = this.#response;
      const result = response ? toJson(response.body) : this.#returnValue();
      return {
        status: 'succeeded',
        result,
        ...(response ? { response: settle(response, result) } : {}),
        steps: this.#steps,
      };
    } catch (error) {
      const failure = error instanceof RunFailed ? error.error : toRunError(error, null);
      return { status: 'failed', result: null, steps: this.#steps, error: failure };
    } finally {
      clearTimeout(timer);
    }
  }

  #returnValue(): JsonValue {
    const source = this.action.bindReturnValue;
    if (source === undefined) return null;
    try {
      const vars = this.#vars(false);
      return evaluateExpression(this.input.definition, 'returnValue', source, vars, this.#remainingMs(), 'bindReturnValue');
    } catch (error) {
      throw new RunFailed({ ...toRunError(error, null), code: 'return_value_error' });
    }
  }

  /** Runs effects from `startId` until one has no next, ends the chain, or the run returns. */
  async #chain(startId: string, depth: number, inActionHandler: boolean): Promise<ChainEnd> {
    let id: string | undefined = startId;
    let last: JsonValue = null;
    while (id !== undefined) {
      const effect = this.#effects.get(id);
      if (!effect) {
        // The consistency check refuses dangling ids; a definition that skipped it fails here.
        const message = `The action has no effect '${id}'.`;
        throw new RunFailed({ message, code: 'unknown_effect_id', effectId: id, status: 500 });
      }
      const outcome = await this.#step(effect, depth, inActionHandler);
      if (outcome.ok) {
        last = outcome.output;
        if (this.#response) {
          // "The end" is now: settle the body while loop variables are still in the state.
          if (this.#response.body === undefined) this.#response.body = this.#returnValue();
          return { returned: true, last };
        }
        const control: Control = outcome.control;
        id = control.kind === 'goto' ? control.effectId : control.kind === 'end' ? undefined : effect.next;
        continue;
      }
      // Error routing, once for every effect: its own handler, else the action's. While the
      // action's handler runs, its own failures are not routed to it again (no recursion).
      const handler = effect.onError ?? (inActionHandler ? undefined : this.action.onError);
      if (!handler) throw new RunFailed(outcome.error);
      const previous = this.#error;
      this.#error = outcome.error;
      const handled = await this.#chain(handler.nextId, depth, inActionHandler || effect.onError === undefined);
      this.#error = previous;
      if (handled.returned) return handled;
      last = handled.last;
      if (!handler.continueOriginalFlow) return { returned: false, last };
      id = effect.next;
    }
    return { returned: false, last };
  }

  async #step(effect: ActionEffect, depth: number, inActionHandler: boolean): Promise<StepOutcome> {
    const effectId = effect.actionEffectId;
    if (++this.#stepCount > this.#maxSteps) {
      throw new RunFailed({
        message: `The action ran more than ${this.#maxSteps} effects (stopped at '${effectId}'); does its 'next' chain loop?`,
        code: 'step_limit',
        effectId,
        status: 500,
      });
    }
    this.#checkTime(effectId);
    const startedAt = new Date().toISOString();
    const record: StepRecord = { actionEffectId: effectId, effect: effect.effect, startedAt, durationMs: 0 };
    this.#steps.push(record);
    const started = performance.now();
    let control: Control = { kind: 'next' };
    try {
      const module = EFFECTS.get(effect.effect);
      if (!module) throw new ActionError(500, 'unknown_effect', `Unknown effect '${effect.effect}'.`);
      const params = bindParams(this.input.definition, effect, this.#vars(true), () => this.#remainingMs());
      checkParams(effect.effect, params);
      const ctx = this.#context(effect, depth, inActionHandler, (next) => (control = next));
      const ran = module.run(params, ctx);
      // An effect that answers at once (flow.*) has nothing to wait for.
      const output = toJson(ran instanceof Promise ? await this.#beforeDeadline(ran, effectId) : ran);
      this.#results[effectId] = output;
      record.output = output;
      return { ok: true, output, control };
    } catch (error) {
      if (error instanceof RunFailed) {
        record.error = error.error;
        throw error;
      }
      if (error instanceof RunAbort) {
        record.error = toRunError(error, effectId);
        throw new RunFailed(record.error);
      }
      record.error = toRunError(error, effectId);
      return { ok: false, error: record.error };
    } finally {
      record.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    }
  }

  #context(effect: ActionEffect, depth: number, inActionHandler: boolean, setControl: (c: Control) => void): EffectContext {
    return {
      ports: this.ports,
      state: this.#state,
      caller: this.input.caller,
      effectId: effect.actionEffectId,
      signal: this.#abort.signal,
      remainingMs: () => this.#remainingMs(),
      httpAllow: this.#httpAllow,
      hops: hopsOf(this.input.request?.headers),
      scope: () => this.#vars(false),
      goto: (effectId) => setControl({ kind: 'goto', effectId }),
      end: () => setControl({ kind: 'end' }),
      respond: (response) => {
        this.#response = response;
      },
      runBody: (bodyId, variable, item) => this.#runBody(effect, bodyId, variable, item, depth, inActionHandler),
    };
  }

  async #runBody(
    loop: ActionEffect,
    bodyId: string,
    variable: string,
    item: unknown,
    depth: number,
    inActionHandler: boolean,
  ): Promise<BodyResult> {
    if (depth + 1 > this.#maxDepth) {
      throw new RunAbort(
        'nesting_limit',
        `flow.forEach '${loop.actionEffectId}' is nested more than ${this.#maxDepth} levels deep.`,
      );
    }
    // An inner loop may reuse the outer loop's variable name: restore it after the iteration.
    const had = Object.hasOwn(this.#state, variable);
    const previous = this.#state[variable];
    this.#state[variable] = item;
    try {
      const end = await this.#chain(bodyId, depth + 1, inActionHandler);
      return { output: end.last, returned: end.returned };
    } finally {
      if (had) this.#state[variable] = previous;
      else delete this.#state[variable];
    }
  }

  /** The variables of the `effect` and `returnValue` scopes; secrets only for bindParams. */
  #vars(withSecrets: boolean): Record<string, unknown> {
    const { input } = this;
    return {
      state: this.#state,
      results: this.#results,
      error: this.#error,
      request: input.request ?? null,
      event: input.event ?? null,
      auth: input.auth,
      env: input.env,
      now: new Date(),
      secrets: withSecrets ? (input.secrets ?? {}) : {},
    };
  }

  #remainingMs(): number {
    return Math.max(0, this.#deadline - performance.now());
  }

  #timeLimit(effectId: string): RunFailed {
    return new RunFailed({
      message: `The action ran longer than its wall time of ${this.#wallTimeMs} ms.`,
      code: 'time_limit',
      effectId,
      status: 500,
    });
  }

  #checkTime(effectId: string): void {
    if (this.#remainingMs() <= 0) throw this.#timeLimit(effectId);
  }

  /** Stops waiting for an effect when the wall time is over (the caller rolls its work back). */
  async #beforeDeadline<T>(promise: Promise<T>, effectId: string): Promise<T> {
    const signal = this.#abort.signal;
    if (signal.aborted) throw this.#timeLimit(effectId);
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.#timeLimit(effectId));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([promise, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/** Each effect's params schema, compiled once (an interpreted check on every step is slow). */
const compiledParams = new Map<string, TypeCheck<TObject> | null>();

function paramsCheck(effectName: string): TypeCheck<TObject> | null {
  let check = compiledParams.get(effectName);
  if (check === undefined) {
    const schema = effectParamsSchema(effectName);
    check = schema ? TypeCompiler.Compile(schema) : null;
    compiledParams.set(effectName, check);
  }
  return check;
}

/** Params must match the catalogue schema before an effect trusts their types. */
function checkParams(effectName: string, params: Record<string, unknown>): void {
  const check = paramsCheck(effectName);
  if (!check || check.Check(params)) return;
  const first = check.Errors(params).First();
  const where = first?.path ? ` at ${first.path}` : '';
  throw new ActionError(400, 'invalid_params', `Invalid params for ${effectName}${where}: ${first?.message ?? 'invalid'}.`);
}

function settle(draft: ResponseDraft, body: JsonValue): HttpResponse {
  return { status: draft.status, headers: draft.headers, body };
}
