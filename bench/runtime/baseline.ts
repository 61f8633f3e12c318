// The hand-written baseline: a plain Fastify server with `pg` queries written for the to-do
// tables, answering the same three requests with the same JSON as the generated API:
//   GET /toDos?limit&offset   an end user's to-dos (JWT verified with the app's key) or, with the
//                             baseline's admin token, all to-dos; each with its user embedded
//                             (`todos` as ids); the total by `count(*)` on every request
//   GET /toDos/:id            one of the caller's to-dos, user embedded
// It is what a competent developer writes by hand: one query for the page (join + array
// subquery) and the count beside it, JSON built by JSON.stringify.
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import { todoFields, type Query, type Row } from '../support/baseline.ts';

export interface BaselineOptions {
  app: CompiledApp;
  query: Query;
  /** The app's end-user signing key (the same tokens as the generated API). */
  endUserKey: Uint8Array;
  /** The key of the baseline's own administrator tokens. */
  adminKey: Uint8Array;
}

interface Caller {
  admin: boolean;
  userId: string | null;
}

function names(app: CompiledApp) {
  const user = app.userModel!;
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
  const u = (name: string) => quoteIdent(user.fieldsByName.get(name)!.column!);
  const todos = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
  const users = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
  const select = `select t.id, t.${t('title')} as title, t.${t('description')} as description, t.${t('deadline')} as deadline,
      t.${t('status')} as status, u.id as user_id, u.${u('name')} as user_name, u.${u('email')} as user_email,
      array(select x.id from ${todos} x where x.${t('user')} = u.id order by x.id) as user_todos
    from ${todos} t join ${users} u on u.id = t.${t('user')}`;
  return {
    ownPage: `${select} where t.${t('user')} = $1 order by t.id limit $2 offset $3`,
    ownCount: `select count(*) as total from ${todos} where ${t('user')} = $1`,
    allPage: `${select} order by t.id limit $1 offset $2`,
    allCount: `select count(*) as total from ${todos}`,
    one: `${select} where t.id = $1 and t.${t('user')} = $2`,
  };
}

function shape(row: Row) {
  return { ...todoFields(row), user: { id: row.user_id, name: row.user_name, email: row.user_email, todos: row.user_todos } };
}

function paging(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = Number(query.limit ?? 20);
  const offset = Number(query.offset ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) throw Object.assign(new Error('bad paging'), { statusCode: 400 });
  return { limit, offset };
}

/** Starts the baseline on a free port of 127.0.0.1; returns its URL. */
export async function startBaseline(options: BaselineOptions): Promise<{ url: string; close(): Promise<void> }> {
  const q = names(options.app);
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
  server.get('/toDos', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const { limit, offset } = paging(request.query as Record<string, string | undefined>);
    if (!caller.admin && !caller.userId) return { items: [], total: 0, offset };
    const [rows, count] = caller.admin
      ? await Promise.all([options.query(q.allPage, [limit, offset]), options.query(q.allCount, [])])
      : await Promise.all([options.query(q.ownPage, [caller.userId, limit, offset]), options.query(q.ownCount, [caller.userId])]);
    return reply.send({ items: rows.map(shape), total: Number(count[0].total), offset });
  });
  server.get('/toDos/:id', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const { id } = request.params as { id: string };
    if (!caller.userId || !/^[0-9a-f-]{36}$/i.test(id)) return reply.status(404).send({ status: 404 });
    const rows = await options.query(q.one, [id, caller.userId]);
    if (rows.length === 0) return reply.status(404).send({ status: 404 });
    return reply.send(shape(rows[0]));
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => server.close() };
}
