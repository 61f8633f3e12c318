// The hand-written baseline: a plain Fastify server doing the follow-up action's work with SQL
// written for the to-do table, in one transaction, answering the same JSON:
//   POST /toDos/:id/followUps {title}
//     the end user from the JWT (verified with the app's key; 401 without), title required (422);
//     read the caller's to-do (404 when it is not theirs), 409 unless open; insert the follow-up;
//     set the to-do's description; commit; 201 {todo, followUp}.
// It is what a competent developer writes by hand: three statements between begin and commit,
// JSON built by JSON.stringify. On PGlite it runs on the platform's own PGlite instance.
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import { uuidv7 } from '../../src/tools/ids.ts';
import { todoFields, type InTransaction, type Row } from '../support/baseline.ts';

function statements(app: CompiledApp) {
  const todo = app.modelsByResource.get('toDos')!;
  const c = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
  const table = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
  const columns = `id, ${c('title')} as title, ${c('description')} as description, ${c('deadline')} as deadline, ${c('status')} as status, ${c('user')} as "user"`;
  return {
    load: `select ${columns} from ${table} where id = $1 and ${c('user')} = $2`,
    create: `insert into ${table} (id, ${c('title')}, ${c('status')}, ${c('user')}) values ($1, $2, 'open', $3) returning ${columns}`,
    touch: `update ${table} set ${c('description')} = $1, updated_at = now() where id = $2 returning ${columns}`,
  };
}

function shape(row: Row) {
  return { ...todoFields(row), user: row.user };
}

class Refusal extends Error {
  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Starts the baseline on a free port of 127.0.0.1; returns its URL. */
export async function startBaseline(app: CompiledApp, endUserKey: Uint8Array, inTransaction: InTransaction): Promise<{ url: string; close(): Promise<void> }> {
  const q = statements(app);
  const audience = `app:${app.applicationId}`;
  const server = Fastify({ logger: false });
  server.post('/toDos/:id/followUps', async (request, reply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    let userId: string | undefined;
    try {
      if (token) userId = (await jwtVerify(token, endUserKey, { audience, algorithms: ['HS256'] })).payload.sub;
    } catch {
      userId = undefined;
    }
    if (!userId) return reply.status(401).send({ status: 401 });
    const title = (request.body as { title?: unknown } | null)?.title;
    if (typeof title !== 'string' || title.length === 0) return reply.status(422).send({ status: 422 });
    const { id } = request.params as { id: string };
    if (!UUID.test(id)) return reply.status(404).send({ status: 404 });
    try {
      const body = await inTransaction(async (query) => {
        const [todo] = await query(q.load, [id, userId]);
        if (!todo) throw new Refusal(404);
        if (todo.status !== 'open') throw new Refusal(409);
        const [followUp] = await query(q.create, [uuidv7(), title, userId]);
        const [touched] = await query(q.touch, [`Follow-up: ${followUp.id as string}`, id]);
        return { todo: shape(touched), followUp: shape(followUp) };
      });
      return reply.status(201).send(body);
    } catch (error) {
      if (error instanceof Refusal) return reply.status(error.status).send({ status: error.status });
      throw error;
    }
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => server.close() };
}
