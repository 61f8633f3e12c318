// Runs actions for real (DESIGN §7): the engine over the app's tables in ONE transaction, under
// the caller's rules. `event.emit` writes to the outbox in that transaction, so events exist only
// if the run committed. An unhandled failure rolls everything back and the failed run is stored
// afterwards, on its own. Every run is stored and counted; test runs are always rolled back and
// never stored.
import type { Action, Trigger } from '../../definition/schema.ts';
import type { ProblemDetail } from '../../errors.ts';
import type { Db, Executor } from '../../storage/db.ts';
import { uuidv7 } from '../../tools/ids.ts';
import { runAction } from '../actions/engine.ts';
import type { EventInfo, RequestInfo, RunError, RunLimits, RunRecord } from '../actions/types.ts';
import { authOf, type Caller } from '../caller.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { AfterCommit } from '../http/after-commit.ts';
import type { ServedApp } from '../registry.ts';
import { recordEvent } from '../writes/outbox.ts';
import { MAIL_EVENT } from '../events/mail.ts';
import { TransactionData } from './data-port.ts';
import { actionRunsTotal } from './metrics.ts';
import type { Run, RunInputRecord, RunStore } from './store.ts';
import { storedError, storedRun } from './stored-run.ts';
import { buildInitialState, failedValidations, type TriggerVariables } from './trigger-inputs.ts';
import { NO_VALUES, type AppValues, type AppValuesSource } from '../../secrets/app-values.ts';
import { redactValues } from '../../secrets/redaction.ts';
import { withEnv } from '../../secrets/current-env.ts';

/** An event as the dispatcher hands it over (`previous` on `{Model}.updated`). */
export interface TriggerEvent {
  name: string;
  payload: Record<string, unknown>;
  previous?: Record<string, unknown>;
}

/** What the event dispatcher and schedules use. Throws only for infrastructure errors (retry). */
export interface EventRunner {
  runEventTrigger(served: ServedApp, trigger: Trigger, event: TriggerEvent): Promise<{ id: string; status: 'succeeded' | 'failed' }>;
}

/** One run to make: which action, for whom, with what. */
export interface RunSpec {
  app: CompiledApp;
  triggerId: string | null;
  actionId: string;
  caller: Caller;
  initialState: Record<string, unknown>;
  request?: RequestInfo;
  event?: EventInfo & { previous?: Record<string, unknown> };
  /** The app's variables and secrets as the request read them; else read when the run starts. */
  values?: AppValues;
}

/** Thrown inside the transaction to roll it back once the run record is safe outside. */
class Rollback extends Error {}

/** Request headers that carry credentials never reach the stored run. */
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'x-svc-api-client', 'proxy-authorization']);

function storedRequest(request: RequestInfo | undefined): Record<string, unknown> | undefined {
  if (!request) return undefined;
  const headers = Object.fromEntries(Object.entries(request.headers ?? {}).filter(([name]) => !SECRET_HEADERS.has(name.toLowerCase())));
  return { ...request, headers };
}

function usesHandlers(action: Action): boolean {
  return action.onError !== undefined || action.effects.some((effect) => effect.onError !== undefined);
}

export class ActionRunner implements EventRunner {
  constructor(
    private readonly db: Db,
    private readonly afterCommit: AfterCommit,
    private readonly store: RunStore,
    private readonly limits: RunLimits = {},
    /** The apps' variables and secrets (DESIGN §11); none when left out (test runs of the management API). */
    private readonly values: AppValuesSource = { forApplication: async () => NO_VALUES },
  ) {}

  async runEventTrigger(served: ServedApp, trigger: Trigger, event: TriggerEvent): Promise<{ id: string; status: 'succeeded' | 'failed' }> {
    const app = served.compiled;
    const eventInfo = { name: event.name, payload: event.payload, ...(event.previous ? { previous: event.previous } : {}) };
    const values = await this.values.forApplication(app.applicationId);
    const vars: TriggerVariables = { event: eventInfo, auth: null, env: values.env, now: new Date() };
    const spec: RunSpec = { app, triggerId: trigger.trigger.id, actionId: trigger.actionId, caller: { kind: 'system' }, initialState: {}, event: eventInfo, values };
    const prepared = await this.prepare(spec, trigger, vars);
    const run = prepared.ok ? await this.run(prepared.spec) : prepared.run;
    return { id: run.id, status: run.status };
  }

  /**
   * Evaluates the trigger's validation and initial state: the state to run with, or the failed
   * run (stored) when one of them does not hold.
   */
  async prepare(spec: RunSpec, trigger: Trigger, vars: TriggerVariables): Promise<{ ok: true; spec: RunSpec } | { ok: false; run: Run; errors: ProblemDetail[] }> {
    const invalid = failedValidations(spec.app, trigger, vars);
    if (invalid.length > 0) {
      const error = { message: 'The trigger validation failed.', code: 'validation_failed', effectId: null, status: 422, errors: invalid };
      return { ok: false, run: await this.refuse(spec, error), errors: invalid };
    }
    const state = buildInitialState(spec.app, trigger, vars);
    if (!state.ok) {
      const error = { message: 'The trigger initial state could not be built.', code: 'initial_state_failed', effectId: null, status: 422, errors: state.errors };
      return { ok: false, run: await this.refuse(spec, error), errors: state.errors };
    }
    return { ok: true, spec: { ...spec, initialState: state.state } };
  }

  /** Runs, commits (or rolls back a failure), stores the run and counts it. */
  async run(spec: RunSpec): Promise<Run> {
    const run = await this.#execute(spec, 'commit');
    actionRunsTotal.inc({ action: spec.actionId, status: run.status });
    return run;
  }

  /** Runs in a transaction that is always rolled back; the run is returned as stored runs are shown, never stored. */
  async test(spec: RunSpec): Promise<Run> {
    return storedRun(await this.#execute(spec, 'rollback'));
  }

  /** A run that never started (its trigger refused the input): stored as failed, with no steps. */
  async refuse(spec: RunSpec, error: RunError & { errors?: ProblemDetail[] }): Promise<Run> {
    const now = new Date();
    const { errors, ...runError } = error;
    spec = { ...spec, values: spec.values ?? (await this.values.forApplication(spec.app.applicationId)) };
    const run = this.#record(spec, uuidv7(), now, 0, {
      status: 'failed',
      result: null,
      steps: [],
      error: errors ? { ...runError, message: `${runError.message} ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}` } : runError,
    });
    // A refused request is stored off its path, like the runs of HTTP triggers (reads flush first).
    if (spec.request) this.store.add(run);
    else await this.store.insert(run);
    actionRunsTotal.inc({ action: spec.actionId, status: 'failed' });
    return run;
  }

  async #execute(spec: RunSpec, mode: 'commit' | 'rollback'): Promise<Run> {
    const id = uuidv7();
    const startedAt = new Date();
    const started = performance.now();
    const action = spec.app.definition.actions.find((a) => a.id === spec.actionId);
    const values = spec.values ?? (await this.values.forApplication(spec.app.applicationId));
    spec = { ...spec, values };
    const elapsed = () => Math.round((performance.now() - started) * 1000) / 1000;
    if (!action) {
      const error = { message: `The application has no action '${spec.actionId}'.`, code: 'unknown_action', effectId: null, status: 500 };
      const run = this.#record(spec, id, startedAt, 0, { status: 'failed', result: null, steps: [], error });
      if (mode === 'commit') await this.store.insert(run);
      return run;
    }
    const env = values.env;
    const deferred = mode === 'commit' && spec.request !== undefined;
    let run: Run | undefined;
    let data: TransactionData | undefined;
    const work = async (trx: Executor) => {
      data = new TransactionData(trx, spec.app, spec.caller, { env, savepoints: usesHandlers(action) });
      const port = data;
      const record = await withEnv(env, () => runAction(
        {
          definition: spec.app.definition,
          action,
          initialState: spec.initialState,
          auth: authOf(spec.caller),
          ...(spec.request ? { request: spec.request } : {}),
          ...(spec.event ? { event: spec.event } : {}),
          env,
          secrets: values.secrets,
          caller: spec.caller,
        },
        {
          data: port,
          emit: (name, payload) => recordEvent(trx, spec.app, name, payload),
          // A mail is a row of the outbox too: sent after commit (events/mail.ts), never for a rollback.
          mail: (message) => recordEvent(trx, spec.app, MAIL_EVENT, { ...message }),
        },
        this.limits,
      ));
      run = this.#record(spec, id, startedAt, elapsed(), record);
      if (record.status === 'failed' || mode === 'rollback') throw new Rollback();
      // A succeeded event run is stored with its writes: both or neither (a delivery whose run cannot
      // be stored is retried). An HTTP trigger's run is stored just after the commit, off the request path.
      if (!deferred) await this.store.insert(run, trx);
    };
    try {
      if (mode === 'commit') await this.afterCommit.run(this.db, work);
      else await this.db.kysely.transaction().execute(work);
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
    }
    if (!run) throw new Error('The run ended without a record');
    // The database failed, not the action: nothing is stored, the caller retries (events) or answers 500.
    if (run.status === 'failed' && data?.infrastructureError) throw data.infrastructureError;
    if (mode === 'commit' && run.status === 'failed') await this.store.insert(run);
    else if (deferred) this.store.add(run);
    return run;
  }

  #record(spec: RunSpec, id: string, startedAt: Date, durationMs: number, record: RunRecord): Run {
    const auth = authOf(spec.caller);
    const input: RunInputRecord = {
      initialState: spec.initialState,
      ...(spec.request ? { request: storedRequest(spec.request) } : {}),
      ...(spec.event ? { event: spec.event as unknown as Record<string, unknown> } : {}),
      authId: auth ? auth.id : null,
      caller: spec.caller.kind,
    };
    // Secret values never leave the run: not in its record's data, its answer, its error (docs/security.md).
    // Only the data is redacted, value by value: ids, status, effect names and times are the
    // record's shape, and a short secret value must not rewrite them.
    const secrets = spec.values?.secretValues ?? [];
    const clean = <T>(value: T): T => redactValues(value, secrets);
    return {
      id,
      applicationId: spec.app.applicationId,
      serverVersion: spec.app.serverVersion,
      triggerId: spec.triggerId,
      actionId: spec.actionId,
      status: record.status,
      input: { ...input, initialState: clean(input.initialState), ...(input.request ? { request: clean(input.request) } : {}), ...(input.event ? { event: clean(input.event) } : {}) },
      steps: record.steps.map((step) => ({
        ...step,
        ...(step.output !== undefined ? { output: clean(step.output) } : {}),
        ...(step.error ? { error: { ...step.error, message: clean(step.error.message) } } : {}),
      })),
      result: clean(record.result),
      ...(record.response ? { response: { ...record.response, headers: clean(record.response.headers), body: clean(record.response.body) } } : {}),
      // Error messages are cut to ~1 KB wherever they go (the trigger's answer too).
      // Redacted before the cut, so a cut cannot leave part of a secret.
      ...(record.error ? { error: storedError({ ...record.error, message: clean(record.error.message) }) } : {}),
      startedAt: startedAt.toISOString(),
      completedAt: new Date(startedAt.getTime() + durationMs).toISOString(),
      durationMs,
    } satisfies Run;
  }
}
