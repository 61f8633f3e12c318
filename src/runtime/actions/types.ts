// The workflow engine's public shapes: what a run takes (input, ports, limits) and what it gives
// back (a RunRecord). The data layer and event delivery are ports, implemented by the runtime.
import type { Action } from '../../definition/schema.ts';
import type { ExpressionDefinition, JsonValue } from '../../expressions/index.ts';
import type { Caller } from '../caller.ts';

/** A record as the data port gives it: fields by name, relationships as ids. */
export type DataRecord = Record<string, unknown>;

export interface FindOptions {
  /** A CEL expression over `record`, like the list `filter` query parameter. */
  filter?: string;
  /** Like the list `sort` parameter: `-deadline,title`. */
  sort?: string;
  limit?: number;
  offset?: number;
}

/**
 * The data layer as actions see it. The runtime implements it over the app's tables inside the
 * action's one transaction, under the caller's access rules. `model` is a model name or id.
 * Returning null means "no such record (for this caller)"; the effects turn it into a 404.
 * Throwing a `Problem` keeps its status (e.g. 403 from a rule, 409 from a constraint).
 */
export interface DataPort {
  get(model: string, id: string): Promise<DataRecord | null>;
  find(model: string, options: FindOptions): Promise<DataRecord[]>;
  count(model: string, options: { filter?: string }): Promise<number>;
  create(model: string, values: Record<string, unknown>): Promise<DataRecord>;
  update(model: string, id: string, values: Record<string, unknown>): Promise<DataRecord | null>;
  /** The deleted record, or null when there was none. */
  delete(model: string, id: string): Promise<DataRecord | null>;
}

export interface ActionPorts {
  data: DataPort;
  /** Queues an event; the caller delivers queued events after commit (outbox), never on failure. */
  emit(eventName: string, payload: Record<string, unknown>): void | Promise<void>;
  /** Queues a mail in the outbox; it is sent after commit, never for a failed run. Absent: the run sends no mail. */
  mail?(message: OutgoingMail): void | Promise<void>;
}

/** A mail of `email.send`, its templates filled. */
export interface OutgoingMail {
  to: string[];
  subject: string;
  text?: string;
  html?: string;
  from?: string;
  replyTo?: string;
}

export interface RequestInfo {
  method?: string;
  path?: string;
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  body?: unknown;
}

export interface EventInfo {
  name: string;
  payload: Record<string, unknown>;
}

export interface RunInput {
  /** The models (an AppDefinition fits); expressions are compiled against it. */
  definition: ExpressionDefinition;
  action: Action;
  /** The trigger's initialState, already evaluated. */
  initialState: Record<string, unknown>;
  /** The end user's record, or null. */
  auth: Record<string, unknown> | null;
  request?: RequestInfo;
  event?: EventInfo;
  env: Record<string, string>;
  /** Readable only from effect bindParams (`secrets.NAME`). */
  secrets?: Record<string, string>;
  caller: Caller;
}

export interface RunLimits {
  /** Effects executed per run, handlers and loop bodies included (default 1,000). */
  maxSteps?: number;
  /** Wall time of the whole run (default 30 s). */
  wallTimeMs?: number;
  /** flow.forEach inside flow.forEach (default 3 levels). */
  maxForEachDepth?: number;
  /** Hosts and CIDRs http.request may reach although private (default: APPBUILDER_HTTP_ALLOW). */
  httpAllow?: readonly string[];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: JsonValue;
}

/** flow.return's response before its body is settled. */
export interface ResponseDraft {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

/** What handlers see as `error`, and what a failed run reports. */
export interface RunError {
  message: string;
  code: string;
  /** The effect that failed; null when the failure is not an effect's (limits, return value). */
  effectId: string | null;
  /** The HTTP status the failure maps to (flow.fail's status, 404 for a missing record, ...). */
  status: number;
}

export interface StepRecord {
  actionEffectId: string;
  effect: string;
  /** ISO timestamp. */
  startedAt: string;
  durationMs: number;
  output?: JsonValue;
  error?: RunError;
}

export interface RunRecord {
  status: 'succeeded' | 'failed';
  /** bindReturnValue (or flow.return's body); null when failed or none. */
  result: JsonValue;
  /** Set when flow.return ended the run. */
  response?: HttpResponse;
  steps: StepRecord[];
  error?: RunError;
}

/** What a loop body iteration gives back. */
export interface BodyResult {
  /** The output of the last effect of the iteration (null when none ran). */
  output: JsonValue;
  /** True when flow.return ended the run inside the body: the loop must stop. */
  returned: boolean;
}

/** What an effect module gets besides its params. */
export interface EffectContext {
  readonly ports: ActionPorts;
  /** The run's state; flow.set and flow.forEach write to it. */
  readonly state: Record<string, unknown>;
  readonly caller: Caller;
  readonly effectId: string;
  /** Aborted when the run's wall time is over. */
  readonly signal: AbortSignal;
  /** Milliseconds left of the run's wall time. */
  remainingMs(): number;
  readonly httpAllow: readonly string[];
  /** The hop count of the request that started the run (0 without one); http.request sends one more. */
  readonly hops: number;
  /** The action's variables as expressions see them (state, results, event, auth, env, ...), without secrets. */
  scope(): Record<string, unknown>;
  /** Continue at another effect instead of `next`. */
  goto(effectId: string): void;
  /** End the current chain here (ignore `next`). */
  end(): void;
  /** End the whole run with this HTTP response; without a body, bindReturnValue gives it. */
  respond(response: ResponseDraft): void;
  /** Run a loop body chain with `state[variable] = item`, one flow.forEach level deeper. */
  runBody(effectId: string, variable: string, item: unknown): Promise<BodyResult>;
}

/**
 * One effect of the catalogue. The engine validates params against the catalogue schema before
 * `run`, so `run` may trust their types. The resolved value is the effect's output.
 */
export interface EffectModule<P = Record<string, unknown>> {
  readonly name: string;
  run(params: P, ctx: EffectContext): Promise<unknown> | unknown;
}
