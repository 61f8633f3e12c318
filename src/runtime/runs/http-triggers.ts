// HTTP triggers (DESIGN §6): each one a route at its `path` under the served version's prefix.
// matchSelectors choose among triggers sharing a method and path; `isPublic: false` needs a
// signed-in caller (401); each validation must hold (422 naming it); the action then runs as the
// caller and its flow.return (or its return value, 200) is the response. Every run is stored.
// A request that arrives through more than MAX_TRIGGER_HOPS http.request hops (x-appbuilder-hops)
// is refused with 508 Loop Detected before its action runs (stored as a failed run, code hop_limit).
import { Problem, unauthorized, type ProblemDetail } from '../../errors.ts';
import type { Trigger } from '../../definition/schema.ts';
import { HOPS_HEADER, hopsOf, MAX_TRIGGER_HOPS } from '../actions/http/hops.ts';
import type { RequestInfo } from '../actions/types.ts';
import { authOf } from '../caller.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { RouteSource } from '../http/router.ts';
import type { AppRequest, AppResponse, AppRoute } from '../http/types.ts';
import type { ActionRunner } from './runner.ts';
import type { Run } from './store.ts';
import { selectorsMatch, type TriggerVariables } from './trigger-inputs.ts';

/** RFC 5842: what a trigger reached through too many hops answers. */
const LOOP_DETECTED = 508;

/** Response header naming the stored run, to look it up in `GET …/runs/{runId}`. */
export const RUN_ID_HEADER = 'x-run-id';

function requestInfo(request: AppRequest): RequestInfo {
  return {
    method: request.method,
    path: request.path,
    params: request.params,
    query: request.query,
    headers: request.headers as Record<string, unknown>,
    body: request.body ?? null,
  };
}

function variablesOf(request: AppRequest): TriggerVariables {
  return { request: requestInfo(request) as Record<string, unknown>, auth: authOf(request.caller), env: request.values?.env ?? {}, now: new Date() };
}

function problemResponse(status: number, detail: string, errors: ProblemDetail[], extra: Record<string, unknown>, runId: string): AppResponse {
  const body = { ...new Problem(status, detail, errors).toJSON(), ...extra };
  return { status, headers: { 'content-type': 'application/problem+json', [RUN_ID_HEADER]: runId }, body: JSON.stringify(body) };
}

/** What a run answers: flow.return's response, else 200 with the return value, else the run's error. */
export function responseOfRun(run: Run): AppResponse {
  if (run.status === 'succeeded') {
    const response = run.response ?? { status: 200, headers: {}, body: run.result };
    const empty = response.status === 204 || response.status === 304;
    return { status: response.status, headers: { ...response.headers, [RUN_ID_HEADER]: run.id }, ...(empty ? {} : { body: response.body }) };
  }
  const error = run.error ?? { message: 'The action failed.', code: 'effect_error', effectId: null, status: 500 };
  // An unexpected failure inside an effect may carry internals (SQL, stack): not for end users.
  const hidden = error.status >= 500 && error.code === 'effect_error';
  const detail = hidden ? `The action failed; see run ${run.id}.` : error.message;
  const errors = error.effectId ? [{ path: `/effects/${error.effectId}`, message: detail }] : [];
  return problemResponse(error.status, detail, errors, { code: error.code, runId: run.id }, run.id);
}

async function runTrigger(runner: ActionRunner, app: CompiledApp, trigger: Trigger, request: AppRequest): Promise<AppResponse> {
  // Administrators (management credentials) are let through: builders test their endpoints.
  if (trigger.isPublic === false && request.caller.kind === 'anonymous') {
    throw unauthorized('This endpoint needs a signed-in user: send Authorization: Bearer <token>.');
  }
  const info = requestInfo(request);
  const hops = hopsOf(request.headers);
  if (hops > MAX_TRIGGER_HOPS) {
    const message =
      `This request went through ${hops} http.request hops (${HOPS_HEADER}); an HTTP trigger answers at most ${MAX_TRIGGER_HOPS}. ` +
      'Does the action call its own application?';
    const spec = { app, triggerId: trigger.trigger.id, actionId: trigger.actionId, caller: request.caller, initialState: {}, request: info, ...(request.values ? { values: request.values } : {}) };
    const run = await runner.refuse(spec, { message, code: 'hop_limit', effectId: null, status: LOOP_DETECTED });
    const loop = { type: 'https://appbuilder.dev/problems/loop-detected', title: 'Loop Detected', code: 'hop_limit', runId: run.id };
    return problemResponse(LOOP_DETECTED, message, [{ path: `/headers/${HOPS_HEADER}`, message: `is ${hops}, more than ${MAX_TRIGGER_HOPS}` }], loop, run.id);
  }
  const prepared = await runner.prepare(
    { app, triggerId: trigger.trigger.id, actionId: trigger.actionId, caller: request.caller, initialState: {}, request: info, ...(request.values ? { values: request.values } : {}) },
    trigger,
    variablesOf(request),
  );
  if (!prepared.ok) {
    const detail = prepared.run.error?.message ?? 'The request does not pass the trigger validation.';
    return problemResponse(422, detail, prepared.errors, { code: prepared.run.error?.code, runId: prepared.run.id }, prepared.run.id);
  }
  return responseOfRun(await runner.run(prepared.spec));
}

/** The routes of a version's HTTP triggers. */
export function triggerRoutes(runner: ActionRunner): RouteSource {
  return (app) =>
    app.definition.triggers.flatMap((trigger): AppRoute[] => {
      const http = trigger.trigger;
      if (http.type !== 'http') return [];
      const selectors = http.matchSelectors ?? [];
      return [
        {
          method: http.method,
          path: http.path,
          handler: (request) => runTrigger(runner, app, trigger, request),
          ...(selectors.length > 0 ? { select: (request: AppRequest) => selectorsMatch(app, selectors, variablesOf(request)) } : {}),
        },
      ];
    });
}
