// Explain: one request to a published version, judged as an end user or nobody, run for real by
// the version's own route handlers on a transaction that is always rolled back (rolled-back.ts),
// so a write is refused or accepted exactly as it would be and still changes nothing. Beside the
// answer's status: each rule check with what it used, the rows the caller sees and does not, and
// the fields hidden from them.
import { Problem, badRequest, notFound, type ProblemDetail } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import type { AppValues } from '../secrets/app-values.ts';
import { withEnv } from '../secrets/current-env.ts';
import type { Trigger } from '../definition/schema.ts';
import type { Caller } from '../runtime/caller.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import type { ServedApp } from '../runtime/registry.ts';
import { AfterCommit } from '../runtime/http/after-commit.ts';
import { resourceRoutes } from '../runtime/http/resource-routes.ts';
import { buildAppRouter, type RouteSource } from '../runtime/http/router.ts';
import type { AppRequest, AppResponse } from '../runtime/http/types.ts';
import { EndUserAuth } from '../runtime/http/end-user-auth.ts';
import { AppKeys } from '../runtime/app-keys.ts';
import { endUserCache } from '../runtime/end-user-cache.ts';
import { listRecords } from '../runtime/data/read.ts';
import { fieldVisibility } from '../runtime/data/rule-sql.ts';
import { readPlainRecord } from '../runtime/writes/plain-record.ts';
import { ruleCondition, ruleHolds } from '../runtime/writes/rules.ts';
import { failedValidations, selectorsMatch, type TriggerVariables } from '../runtime/runs/trigger-inputs.ts';
import { withRolledBackDb } from './rolled-back.ts';
import { modelChecks, type Check } from './explain-checks.ts';
import { probeCreate, probeUpdate } from './probe-writes.ts';
import type { Known, Operation } from './residuals.ts';

export type { Check } from './explain-checks.ts';

export interface ExplainInput {
  version?: string;
  as: { userId: string } | 'anonymous';
  request: { method: string; path: string; query?: Record<string, string>; body?: unknown };
}

export interface Explanation {
  status: number;
  decision: 'allow' | 'deny' | 'filtered';
  checks: Check[];
  rows: { visible: number; hidden: number };
  fieldsHidden: string[];
}

export interface ExplainDependencies {
  db: Db;
  masterKey: Buffer;
}

/** What the route is about, from its template. */
type Target =
  | { kind: 'list'; model: CompiledModel }
  | { kind: 'one'; model: CompiledModel; operation: Exclude<Operation, 'create'> }
  | { kind: 'create'; model: CompiledModel }
  | { kind: 'signup'; model: CompiledModel }
  | { kind: 'trigger'; trigger: Trigger }
  | { kind: 'other' };

const ONE_OPERATION: Record<string, Exclude<Operation, 'create'>> = { GET: 'read', PATCH: 'update', DELETE: 'delete' };
const SIGNUP = '/auth/signup';

function targetOf(app: CompiledApp, method: string, template: string): Target {
  if (method === 'POST' && template === SIGNUP && app.userModel) return { kind: 'signup', model: app.userModel };
  for (const model of app.models) {
    if (template === `/${model.resource}`) return method === 'GET' ? { kind: 'list', model } : method === 'POST' ? { kind: 'create', model } : { kind: 'other' };
    if (template === `/${model.resource}/:id` && ONE_OPERATION[method]) return { kind: 'one', model, operation: ONE_OPERATION[method] };
  }
  const trigger = app.definition.triggers.find((t) => t.trigger.type === 'http' && t.trigger.method === method && t.trigger.path === template);
  return trigger ? { kind: 'trigger', trigger } : { kind: 'other' };
}

/** The end user explained as: their record as a request of theirs would carry it (auth-reads.ts). */
async function callerOf(db: Db, app: CompiledApp, as: ExplainInput['as']): Promise<Caller> {
  if (as === 'anonymous') return { kind: 'anonymous' };
  if (!app.userModel) throw badRequest('This application has no user model: explain it as "anonymous".', [{ path: '/as', message: 'has no end users' }]);
  const user = /^[0-9a-f-]{36}$/i.test(as.userId) ? await endUserCache.load(db.kysely, app, as.userId) : undefined;
  if (!user) throw notFound(`No ${app.userModel.name} ${as.userId} in version ${app.serverVersion}.`, '/as/userId');
  return { kind: 'user', user };
}

/** The trigger judged: signed-in requirement, selectors, validations; the action itself is not run. */
function triggerAnswer(app: CompiledApp, trigger: Trigger, request: AppRequest, checks: Check[]): AppResponse {
  if (trigger.isPublic === false && request.caller.kind === 'anonymous') throw new Problem(401, 'This endpoint needs a signed-in user.');
  const vars: TriggerVariables = {
    request: { method: request.method, path: request.path, params: request.params, query: request.query, headers: {}, body: request.body ?? null },
    auth: request.caller.kind === 'user' ? request.caller.user : null,
    env: request.values?.env ?? {},
    now: new Date(),
  };
  const selectors = trigger.trigger.type === 'http' ? (trigger.trigger.matchSelectors ?? []) : [];
  if (!selectorsMatch(app, selectors, vars)) throw notFound(`No trigger for ${request.method} ${request.path} matches this request.`);
  const failed: ProblemDetail[] = failedValidations(app, trigger, vars);
  const failedPaths = new Set(failed.map((f) => f.path));
  trigger.validation.forEach((source, i) => {
    const result = !failedPaths.has(`/validation/${i}`);
    checks.push({ model: trigger.trigger.id, operation: 'validation', ruleIndex: i, expression: source, result, values: vars.auth ? { 'auth.id': vars.auth.id } : { auth: null } });
  });
  if (failed.length > 0) throw new Problem(422, 'The request does not pass the trigger validation.', failed);
  return { status: 200, body: { wouldRun: trigger.actionId } };
}

/** The routes explain runs: the version's resources on the rolled-back handle, sign-up, and its HTTP triggers (judged, not run). */
function explainSources(rdb: Db, masterKey: Buffer, checks: Check[]): RouteSource[] {
  const auth = new EndUserAuth(rdb, new AppKeys(rdb, masterKey), new AfterCommit());
  return [
    resourceRoutes(rdb, new AfterCommit()),
    (app) => (app.userModel ? [{ method: 'POST', path: SIGNUP, handler: async (request) => ({ status: 201, body: await auth.createUser(app, request.body) }) }] : []),
    (app) =>
      app.definition.triggers.flatMap((trigger) =>
        trigger.trigger.type === 'http' ? [{ method: trigger.trigger.method, path: trigger.trigger.path, handler: async (request: AppRequest) => triggerAnswer(app, trigger, request, checks) }] : [],
      ),
  ];
}

function parsed(response: AppResponse): unknown {
  return response.json !== undefined ? JSON.parse(response.json) : response.body;
}

/** Fields hidden from the caller: hidden outright, or hidden on some record they were answered. */
function hiddenFields(app: CompiledApp, model: CompiledModel, known: Known, answered: Array<Record<string, unknown>>, sparse: boolean): string[] {
  const visibility = fieldVisibility(app, model, { auth: known.auth, operation: 'read', now: known.now ?? new Date(), env: known.env ?? {} });
  const out: string[] = [];
  for (const [name, access] of visibility) {
    if (access.kind === 'hidden') out.push(name);
    else if (access.kind === 'row' && !sparse && answered.some((item) => !Object.hasOwn(item, name))) out.push(name);
  }
  return out;
}

export async function explainRequest(deps: ExplainDependencies, served: ServedApp, values: AppValues, input: ExplainInput): Promise<Explanation> {
  const app = served.compiled;
  const method = input.request.method.toUpperCase();
  const [rawPath, rawQuery] = input.request.path.split('?', 2);
  const path = `/${rawPath.replace(/^\/+/, '')}`.replace(/\/+$/, '') || '/';
  const query: Record<string, string> = { ...Object.fromEntries(new URLSearchParams(rawQuery ?? '')), ...(input.request.query ?? {}) };
  const caller = await callerOf(deps.db, app, input.as);
  const now = new Date();
  const env = values.env;
  const auth = caller.kind === 'user' ? caller.user : null;
  const known = (operation: Operation): Known => ({ auth, operation, now, env });

  const judge = async (rdb: Db): Promise<Explanation> => {
    const checks: Check[] = [];
    const route = buildAppRouter(app, explainSources(rdb, deps.masterKey, checks)).find(method, path);
    if (!route) return { status: 404, decision: 'deny', checks, rows: { visible: 0, hidden: 0 }, fieldsHidden: [] };
    const target = targetOf(app, method, route.template);
    const executor = rdb.kysely;
    const id = route.params.id;
    const body = input.request.body;

    // Before the request: the record it is about, and whether the caller may read it.
    let exists = false;
    let readable = false;
    if (target.kind === 'one' && /^[0-9a-f-]{36}$/i.test(id ?? '')) {
      exists = (await readPlainRecord(executor, app, target.model, id)) !== undefined;
      const condition = ruleCondition(app, target.model, caller, 'read');
      readable = exists && condition !== null && (await ruleHolds(executor, app, target.model, id, condition));
      if (target.operation !== 'read' && !readable) checks.push(...(await modelChecks(executor, app, target.model, known('read'), exists ? { id } : null)));
      checks.push(...(await modelChecks(executor, app, target.model, known(target.operation), exists ? { id } : null)));
    } else if (target.kind === 'list') {
      checks.push(...(await modelChecks(executor, app, target.model, known('read'), null)));
    } else if (target.kind === 'create' || target.kind === 'signup') {
      const sent = target.kind === 'signup' && body && typeof body === 'object' ? Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'password')) : body;
      checks.push(...(await probeCreate(rdb, app, target.model, sent, target.kind === 'signup' ? { ...known('create'), auth: null } : known('create'))));
    }

    // Every row the request could show, counted as an administrator (started now: beside the request when it reads).
    const everything =
      target.kind === 'list'
        ? listRecords(executor, app, target.model, { ctx: { auth: null, operation: 'read', now, env, bypassRules: true }, limit: 0, ...(query.filter ? { filter: query.filter } : {}) }).then(
            (page) => page.total,
            () => null,
          )
        : null;
    const request: AppRequest = { app, method, path, params: route.params, query, body, headers: {}, caller, values, customerId: served.customerId, onOwnOrigin: false };
    let status: number;
    let answer: unknown;
    try {
      // A write in a savepoint of its own: a statement that fails leaves the transaction usable for
      // what follows. A read needs none (one round trip less each way).
      const handle = () => withEnv(env, () => route.handler(request));
      const response = method === 'GET' ? await handle() : await rdb.kysely.transaction().execute(handle);
      status = response.status;
      answer = parsed(response);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      status = error.status;
      answer = null;
    }

    const ok = status >= 200 && status < 300;
    // An update refused although the rule held on the record: the change would take it out of the
    // caller's reach; the rule's checks on the record as changed say so.
    if (target.kind === 'one' && target.operation === 'update' && status === 403 && checks.some((c) => c.operation === 'update' && c.result === true)) {
      checks.push(...(await probeUpdate(rdb, app, target.model, id, body, known('update'))));
    }
    let rows = { visible: 0, hidden: 0 };
    let fieldsHidden: string[] = [];
    const sparse = query.fields !== undefined;
    if (target.kind === 'list') {
      const page = answer as { items?: Array<Record<string, unknown>>; total?: number } | null;
      const visible = ok ? Number(page?.total ?? 0) : 0;
      const all = ok ? ((await everything) ?? visible) : visible;
      rows = { visible, hidden: Math.max(0, all - visible) };
      if (ok) fieldsHidden = hiddenFields(app, target.model, known('read'), page?.items ?? [], sparse);
    } else if (target.kind === 'one') {
      rows = { visible: readable ? 1 : 0, hidden: exists && !readable ? 1 : 0 };
      if (ok && answer && typeof answer === 'object') fieldsHidden = hiddenFields(app, target.model, known('read'), [answer as Record<string, unknown>], sparse);
    } else if (target.kind === 'create' || target.kind === 'signup') {
      rows = { visible: ok ? 1 : 0, hidden: 0 };
      if (ok && answer && typeof answer === 'object' && target.kind === 'create') fieldsHidden = hiddenFields(app, target.model, known('read'), [answer as Record<string, unknown>], sparse);
    }
    const decision = !ok ? 'deny' : rows.hidden > 0 || fieldsHidden.length > 0 ? 'filtered' : 'allow';
    return { status, decision, checks, rows, fieldsHidden };
  };
  // A write runs in a transaction always rolled back. A read changes nothing (the runtime's GET
  // routes never write; triggers are judged, not run): it runs as it is, on the pool, where the
  // count of every row runs beside it rather than after it.
  return method === 'GET' ? judge(deps.db) : withRolledBackDb(deps.db, judge);
}
