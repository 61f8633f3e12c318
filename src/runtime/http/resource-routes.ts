import { badRequest, notFound } from '../../errors.ts';
import type { Db } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { getRecord, listRecords, type ReadContext } from '../data/read.ts';
import { createRecord, deleteRecord, updateRecord } from '../writes/records.ts';
import type { AfterCommit } from './after-commit.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppRoute } from './types.ts';

function readContext(caller: Caller, env: Record<string, string> = {}): ReadContext {
  return { auth: authOf(caller), operation: 'read', now: new Date(), env, bypassRules: bypassesRules(caller) };
}

function intParam(request: AppRequest, name: string, fallback: number, max: number): number {
  const raw = request.query[name];
  if (raw === undefined) return fallback;
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isInteger(value) || value < 0 || value > max) throw badRequest(`${name} must be a whole number from 0 to ${max}.`, [{ path: `/${name}`, message: 'is not valid' }]);
  return value;
}

function textParam(request: AppRequest, name: string): string | undefined {
  const raw = request.query[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** The five routes of one model: list, read, create, update, delete (DESIGN §6). */
function modelRoutes(db: Db, app: CompiledApp, model: CompiledModel, afterCommit: AfterCommit): AppRoute[] {
  const base = `/${model.resource}`;
  const readBack = async (request: AppRequest, id: string, status: number) => {
    const record = await getRecord(db, app, model, id, readContext(request.caller, request.values?.env));
    return { status, body: record ?? { id } };
  };
  return [
    {
      method: 'GET',
      path: base,
      handler: async (request) => {
        const page = await listRecords(db, app, model, {
          ctx: readContext(request.caller, request.values?.env),
          limit: Math.max(1, intParam(request, 'limit', 20, 1000)),
          offset: intParam(request, 'offset', 0, Number.MAX_SAFE_INTEGER),
          sort: textParam(request, 'sort'),
          filter: textParam(request, 'filter'),
        });
        return { status: 200, body: page };
      },
    },
    {
      method: 'GET',
      path: `${base}/:id`,
      handler: async (request) => {
        checkId(model, request.params.id);
        const record = await getRecord(db, app, model, request.params.id, readContext(request.caller, request.values?.env));
        if (!record) throw recordNotFound(model, request.params.id);
        return { status: 200, body: record };
      },
    },
    {
      method: 'POST',
      path: base,
      handler: async (request) => {
        const created = await afterCommit.run(db, (trx) => createRecord(trx, app, model, request.body, request.caller));
        return readBack(request, created.id, 201);
      },
    },
    {
      method: 'PATCH',
      path: `${base}/:id`,
      handler: async (request) => {
        checkId(model, request.params.id);
        const updated = await afterCommit.run(db, (trx) => updateRecord(trx, app, model, request.params.id, request.body, request.caller));
        return readBack(request, updated.id, 200);
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      handler: async (request) => {
        checkId(model, request.params.id);
        await afterCommit.run(db, (trx) => deleteRecord(trx, app, model, request.params.id, request.caller));
        return { status: 204 };
      },
    },
  ];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function recordNotFound(model: CompiledModel, id: string) {
  return notFound(`${model.name} ${id} was not found.`, '/id');
}

function checkId(model: CompiledModel, id: string): void {
  if (!UUID.test(id)) throw recordNotFound(model, id);
}

export function resourceRoutes(db: Db, afterCommit: AfterCommit): RouteSource {
  return (app) => app.models.flatMap((model) => modelRoutes(db, app, model, afterCommit));
}
