import { badRequest, notFound } from '../../errors.ts';
import type { Db } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { getRecord, getRecordJson, listRecordsJson, type ListOptions, type ReadContext } from '../data/read.ts';
import { listRelatedJson, subCollectionFields } from '../data/related.ts';
import { createRecord, deleteRecord, updateRecord } from '../writes/records.ts';
import { fileUrlsAsKeys } from '../writes/file-keys.ts';
import type { AfterCommit } from './after-commit.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppRoute } from './types.ts';

export interface ResourceRouteOptions {
  /** APPBUILDER_RELATION_LIMIT: entries of a to-many id array or expansion (DESIGN §6). */
  relationLimit?: number;
  /** APPBUILDER_EMBEDDED_ID_LIMIT: ids of a to-many id array inside an embedded record. */
  embeddedIdLimit?: number;
}

export function readContext(caller: Caller, env: Record<string, string> = {}, bounds: ResourceRouteOptions = {}, filesUrl?: string): ReadContext {
  return { auth: authOf(caller), operation: 'read', now: new Date(), env, bypassRules: bypassesRules(caller), ...bounds, ...(filesUrl ? { filesUrl } : {}) };
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

/** The query parameters of a list (and of a sub-collection): limit 0-1000 (0: the total alone), offset, sort, filter, fields. */
function listOptions(request: AppRequest, bounds: ResourceRouteOptions): ListOptions {
  return {
    ctx: readContext(request.caller, request.values?.env, bounds, request.filesUrl),
    limit: intParam(request, 'limit', 20, 1000),
    offset: intParam(request, 'offset', 0, Number.MAX_SAFE_INTEGER),
    sort: textParam(request, 'sort'),
    filter: textParam(request, 'filter'),
    fields: textParam(request, 'fields'),
  };
}

/** `GET /{resource}/{id}/{field}` for each to-many relationship: its whole set, paged (data/related.ts). */
function subCollectionRoutes(db: Db, app: CompiledApp, model: CompiledModel, bounds: ResourceRouteOptions): AppRoute[] {
  return subCollectionFields(model).map((field) => ({
    method: 'GET',
    path: `/${model.resource}/:id/${field.name}`,
    handler: async (request) => {
      checkId(model, request.params.id);
      const json = await listRelatedJson(db, app, model, request.params.id, field, listOptions(request, bounds));
      if (json === undefined) throw recordNotFound(model, request.params.id);
      return { status: 200, json };
    },
  }));
}

/** The five routes of one model: list, read, create, update, delete (DESIGN §6). */
function modelRoutes(db: Db, app: CompiledApp, model: CompiledModel, afterCommit: AfterCommit, bounds: ResourceRouteOptions): AppRoute[] {
  const base = `/${model.resource}`;
  const readBack = async (request: AppRequest, id: string, status: number) => {
    const record = await getRecord(db, app, model, id, readContext(request.caller, request.values?.env, bounds, request.filesUrl));
    return { status, body: record ?? { id } };
  };
  return [
    {
      method: 'GET',
      path: base,
      handler: async (request) => ({ status: 200, json: await listRecordsJson(db, app, model, listOptions(request, bounds)) }),
    },
    {
      method: 'GET',
      path: `${base}/:id`,
      handler: async (request) => {
        checkId(model, request.params.id);
        const ctx = readContext(request.caller, request.values?.env, bounds, request.filesUrl);
        const json = await getRecordJson(db, app, model, request.params.id, ctx, textParam(request, 'fields'));
        if (json === undefined) throw recordNotFound(model, request.params.id);
        return { status: 200, json };
      },
    },
    {
      method: 'POST',
      path: base,
      handler: async (request) => {
        const body = fileUrlsAsKeys(model, request.body, request.filesUrl);
        const created = await afterCommit.run(db, (trx) => createRecord(trx, app, model, body, request.caller));
        return readBack(request, created.id, 201);
      },
    },
    {
      method: 'PATCH',
      path: `${base}/:id`,
      handler: async (request) => {
        checkId(model, request.params.id);
        const body = fileUrlsAsKeys(model, request.body, request.filesUrl);
        const updated = await afterCommit.run(db, (trx) => updateRecord(trx, app, model, request.params.id, body, request.caller));
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

export function resourceRoutes(db: Db, afterCommit: AfterCommit, options: ResourceRouteOptions = {}): RouteSource {
  return (app) => app.models.flatMap((model) => [...modelRoutes(db, app, model, afterCommit, options), ...subCollectionRoutes(db, app, model, options)]);
}
