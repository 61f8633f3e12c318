// The hand-written baseline: a plain Fastify server with `pg` queries written for the to-do
// tables, answering the same requests with the same JSON as the generated API, each in ONE SQL
// statement that builds the JSON text inside PostgreSQL (json_build_object/json_agg), passed
// through as it is (DESIGN §3: the fast way a competent developer writes it by hand):
//   GET /toDos?limit&offset   an end user's to-dos (JWT verified with the app's key) or, with the
//                             baseline's admin token, all to-dos; each with its user embedded, whose
//                             `todos` are the first 10 ids (the bounded shape, DESIGN §6); the
//                             total by `count(*)` in the same statement, on every request
//   GET /toDos?fields=title,deadline,user.name   the same narrowed: {id, title, deadline, user: {id, name}}
//   GET /toDos/:id            one of the caller's to-dos, user embedded
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { DEFAULT_EMBEDDED_ID_LIMIT } from '../../src/runtime/data/record-json.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import type { Query } from '../support/baseline.ts';

export interface BaselineOptions {
  app: CompiledApp;
  query: Query;
  /** The app's end-user signing key (the same tokens as the generated API). */
  endUserKey: Uint8Array;
  /** The key of the baseline's own administrator tokens. */
  adminKey: Uint8Array;
  /** Entries of an embedded user's `todos` (APPBUILDER_EMBEDDED_ID_LIMIT of the service). */
  embeddedIdLimit?: number;
}

interface Caller {
  admin: boolean;
  userId: string | null;
}

/** The narrowed list the bench asks for (`fields=`), and the only one the baseline serves. */
export const NARROW_FIELDS = 'title,deadline,user.name';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export function statements(app: CompiledApp, embeddedIdLimit: number) {
  const user = app.userModel!;
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
  const u = (name: string) => quoteIdent(user.fieldsByName.get(name)!.column!);
  const todos = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
  const users = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
  const deadline = (alias: string) => `to_char(${alias}.${t('deadline')} at time zone 'UTC', ${ISO})`;
  const fullUser = (alias: string) => `(select json_build_object('id', u.id, 'name', u.${u('name')}, 'email', u.${u('email')},
      'todos', coalesce((select json_agg(b.id order by b.id) from (select x.id from ${todos} x where x.${t('user')} = u.id order by x.id limit ${embeddedIdLimit}) b), '[]'::json))
    from ${users} u where u.id = ${alias}.${t('user')})`;
  const full = (alias: string) => `json_build_object('id', ${alias}.id, 'title', ${alias}.${t('title')}, 'description', ${alias}.${t('description')},
      'deadline', ${deadline(alias)}, 'status', ${alias}.${t('status')}, 'user', ${fullUser(alias)})`;
  const narrow = (alias: string) => `json_build_object('id', ${alias}.id, 'title', ${alias}.${t('title')}, 'deadline', ${deadline(alias)},
      'user', (select json_build_object('id', u.id, 'name', u.${u('name')}) from ${users} u where u.id = ${alias}.${t('user')}))`;
  const page = (record: (alias: string) => string, where: string, limit: string, offset: string, total: string) =>
    `select json_build_object('items', coalesce((select json_agg(${record('p')} order by p.id)
        from (select * from ${todos} t ${where} order by t.id limit ${limit} offset ${offset}) p), '[]'::json),
      'total', (select count(*) from ${todos} t ${total}), 'offset', ${offset})::text as body`;
  const own = `where t.${t('user')} = $1`;
  return {
    ownPage: page(full, own, '$2', '$3::bigint', own),
    ownNarrow: page(narrow, own, '$2', '$3::bigint', own),
    allPage: page(full, '', '$1', '$2::bigint', ''),
    one: `select ${full('t')}::text as body from ${todos} t where t.id = $1 and t.${t('user')} = $2`,
  };
}

function paging(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = Number(query.limit ?? 20);
  const offset = Number(query.offset ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) throw Object.assign(new Error('bad paging'), { statusCode: 400 });
  return { limit, offset };
}

/** Starts the baseline on a free port of 127.0.0.1; returns its URL. */
export async function startBaseline(options: BaselineOptions): Promise<{ url: string; close(): Promise<void> }> {
  const q = statements(options.app, options.embeddedIdLimit ?? DEFAULT_EMBEDDED_ID_LIMIT);
  const audience = `app:${options.app.applicationId}`;
  const callerOf = async (authorization: string | undefined): Promise<Caller> => {
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
  server.get('/toDos', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const query = request.query as Record<string, string | undefined>;
    const { limit, offset } = paging(query);
    if (!caller.admin && !caller.userId) return { items: [], total: 0, offset };
    const narrow = query.fields === NARROW_FIELDS;
    if (query.fields !== undefined && !narrow) return reply.status(400).send({ status: 400 });
    const rows = caller.admin
      ? await options.query(q.allPage, [limit, offset])
      : await options.query(narrow ? q.ownNarrow : q.ownPage, [caller.userId, limit, offset]);
    return reply.type('application/json; charset=utf-8').serializer(json).send(rows[0].body);
  });
  server.get('/toDos/:id', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const { id } = request.params as { id: string };
    if (!caller.userId || !/^[0-9a-f-]{36}$/i.test(id)) return reply.status(404).send({ status: 404 });
    const rows = await options.query(q.one, [id, caller.userId]);
    if (rows.length === 0) return reply.status(404).send({ status: 404 });
    return reply.type('application/json; charset=utf-8').serializer(json).send(rows[0].body);
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => server.close() };
}
