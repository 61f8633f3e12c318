// The hand-written baseline of `npm run bench:query`: a plain Fastify server with `pg` queries
// written for the to-do tables, answering the same requests with the same JSON bytes as the
// generated API, each in one SQL statement that builds the JSON inside PostgreSQL:
//   GET /toDos/aggregate?groupBy=status   the caller's to-dos (JWT verified with the app's key)
//                                         counted per status, groups in status order, the number
//                                         of groups in the same statement
//   GET /toDos?search=…&fields=title,deadline,user.name
//                                         the caller's (or, with the baseline's admin token, all)
//                                         to-dos matching a web search over title and description,
//                                         by rank then id, narrowed; the total in the same statement
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import { isSearchText, searchColumnName } from '../../src/compiler/schema/model-indexes.ts';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import type { Query } from '../support/baseline.ts';

export interface QueryBaselineOptions {
  app: CompiledApp;
  query: Query;
  /** The app's end-user signing key (the same tokens as the generated API). */
  endUserKey: Uint8Array;
  /** The key of the baseline's own administrator tokens. */
  adminKey: Uint8Array;
}

/** The narrowed members the search case asks for. */
export const SEARCH_FIELDS = 'title,deadline,user.name';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export function statements(app: CompiledApp) {
  const user = app.userModel!;
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
  const u = (name: string) => quoteIdent(user.fieldsByName.get(name)!.column!);
  const todos = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
  const users = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
  const grouped = `with a as (select t.${t('status')} as g0, count(*) as m0 from ${todos} t where t.${t('user')} = $1 group by g0)
    select json_build_object('items', coalesce((select json_agg(json_build_object('group', json_build_object('status', g.g0), 'count', g.m0) order by g.g0)
        from (select * from a order by a.g0 limit $2 offset $3) g), '[]'::json),
      'total', (select count(*) from a), 'offset', $3::bigint)::text as body`;
  // The document the migration stores per row (over title, description and status) with a GIN index on it.
  const stored = quoteIdent(searchColumnName(todo.fields.filter((f) => isSearchText(f) && f.column !== null).map((f) => f.column!)));
  const document = (alias: string) => `${alias}.${stored}`;
  const query = `websearch_to_tsquery('simple'::regconfig, $1)`;
  const order = (alias: string) => `ts_rank(${document(alias)}, ${query}) desc, ${alias}.id`;
  const narrow = (alias: string) => `json_build_object('id', ${alias}.id, 'title', ${alias}.${t('title')}, 'deadline', to_char(${alias}.${t('deadline')} at time zone 'UTC', ${ISO}),
      'user', (select json_build_object('id', u.id, 'name', u.${u('name')}) from ${users} u where u.id = ${alias}.${t('user')}))`;
  const search = (own: boolean) => {
    const where = `where ${document('t')} @@ ${query}${own ? ` and t.${t('user')} = $4` : ''}`;
    return `select json_build_object('items', coalesce((select json_agg(${narrow('p')} order by ${order('p')})
        from (select * from ${todos} t ${where} order by ${order('t')} limit $2 offset $3) p), '[]'::json),
      'total', (select count(*) from ${todos} t ${where}), 'offset', $3::bigint)::text as body`;
  };
  return { grouped, ownSearch: search(true), allSearch: search(false) };
}

function paging(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = Number(query.limit ?? 20);
  const offset = Number(query.offset ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) throw Object.assign(new Error('bad paging'), { statusCode: 400 });
  return { limit, offset };
}

/** Starts the baseline on a free port of 127.0.0.1; returns its URL. */
export async function startQueryBaseline(options: QueryBaselineOptions): Promise<{ url: string; close(): Promise<void> }> {
  const q = statements(options.app);
  const audience = `app:${options.app.applicationId}`;
  const callerOf = async (authorization: string | undefined): Promise<{ admin: boolean; userId: string | null }> => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { admin: false, userId: null };
    try {
      const { payload } = await jwtVerify(token, options.endUserKey, { audience, algorithms: ['HS256'] });
      return { admin: false, userId: typeof payload.sub === 'string' ? payload.sub : null };
    } catch {
      await jwtVerify(token, options.adminKey, { audience: 'baseline-admin', algorithms: ['HS256'] });
      return { admin: true, userId: null };
    }
  };
  const server = Fastify({ logger: false });
  const json = (body: unknown) => String(body);
  server.get('/toDos/aggregate', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const query = request.query as Record<string, string | undefined>;
    const { limit, offset } = paging(query);
    if (!caller.userId || query.groupBy !== 'status') return reply.status(400).send({ status: 400 });
    const rows = await options.query(q.grouped, [caller.userId, limit, offset]);
    return reply.type('application/json; charset=utf-8').serializer(json).send(rows[0].body);
  });
  server.get('/toDos', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const query = request.query as Record<string, string | undefined>;
    const { limit, offset } = paging(query);
    if ((!caller.admin && !caller.userId) || query.search === undefined || query.fields !== SEARCH_FIELDS) return reply.status(400).send({ status: 400 });
    const rows = caller.admin
      ? await options.query(q.allSearch, [query.search, limit, offset])
      : await options.query(q.ownSearch, [query.search, limit, offset, caller.userId]);
    return reply.type('application/json; charset=utf-8').serializer(json).send(rows[0].body);
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => server.close() };
}
