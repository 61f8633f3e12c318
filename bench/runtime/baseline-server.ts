// The hand-written baseline's server: plain Fastify + `pg` + `jose`, nothing of appbuilder, so that
// it runs as a process of its own (`node bench/runtime/baseline-server.ts`, Node's own type
// stripping: no loader, as the service runs its compiled build) started the way the service is.
// It does the same work as the generated API for the benched requests (baseline.ts writes its SQL):
// it verifies the end user's HS256 JWT with `jose` on every request, takes the user from `sub`, and
// answers each request from ONE SQL statement that applies the owner condition and builds the JSON
// text inside PostgreSQL, passed through as it is:
//   GET /toDos?limit&offset                 the caller's to-dos (the baseline's admin token: all),
//                                           user embedded, the total by count(*) on every request
//   GET /toDos?limit&offset&fields=<narrow> the same narrowed
//   GET /toDos/:id                          one of the caller's to-dos, user embedded
// Run as a script it reads BASELINE_SETTINGS (JSON, BaselineSettings) and DATABASE_URL, listens on
// 127.0.0.1 (PORT, else a free port) and prints `baseline listening <url>`.
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';
// The service answers PostgreSQL's JSON text compacted (no spaces outside strings): the same work here.
import { compactJson } from '../../src/runtime/data/compact-json.ts';

export interface BaselineStatements {
  ownPage: string;
  ownNarrow: string;
  allPage: string;
  one: string;
}

export interface BaselineSettings {
  statements: BaselineStatements;
  /** The app's end-user signing key, base64url (the same tokens as the generated API). */
  endUserKey: string;
  /** The key of the baseline's own administrator tokens, base64url. */
  adminKey: string;
  /** `app:<applicationId>` */
  audience: string;
  /** The `fields=` value the narrowed statement answers. */
  narrowFields: string;
}

export type Query = (text: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>;

interface Caller {
  admin: boolean;
  userId: string | null;
}

function paging(query: Record<string, string | undefined>): { limit: number; offset: number } {
  const limit = Number(query.limit ?? 20);
  const offset = Number(query.offset ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || !Number.isInteger(offset) || offset < 0) throw Object.assign(new Error('bad paging'), { statusCode: 400 });
  return { limit, offset };
}

/** The baseline on `port` (0: a free one) of 127.0.0.1, its SQL run by `query`; returns its URL. */
export async function serveBaseline(settings: BaselineSettings, query: Query, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const q = settings.statements;
  const endUserKey = Buffer.from(settings.endUserKey, 'base64url');
  const adminKey = Buffer.from(settings.adminKey, 'base64url');
  const callerOf = async (authorization: string | undefined): Promise<Caller> => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { admin: false, userId: null };
    try {
      const { payload } = await jwtVerify(token, endUserKey, { audience: settings.audience, algorithms: ['HS256'] });
      return { admin: false, userId: typeof payload.sub === 'string' ? payload.sub : null };
    } catch {
      await jwtVerify(token, adminKey, { audience: 'baseline-admin', algorithms: ['HS256'] });
      return { admin: true, userId: null };
    }
  };
  const server = Fastify({ logger: false });
  const json = (body: unknown) => String(body);
  server.get('/toDos', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const params = request.query as Record<string, string | undefined>;
    const { limit, offset } = paging(params);
    if (!caller.admin && !caller.userId) return { items: [], total: 0, offset };
    const narrow = params.fields === settings.narrowFields;
    if (params.fields !== undefined && !narrow) return reply.status(400).send({ status: 400 });
    const rows = caller.admin ? await query(q.allPage, [limit, offset]) : await query(narrow ? q.ownNarrow : q.ownPage, [caller.userId, limit, offset]);
    return reply.type('application/json; charset=utf-8').serializer(json).send(compactJson(String(rows[0].body)));
  });
  server.get('/toDos/:id', async (request, reply) => {
    const caller = await callerOf(request.headers.authorization);
    const { id } = request.params as { id: string };
    if (!caller.userId || !/^[0-9a-f-]{36}$/i.test(id)) return reply.status(404).send({ status: 404 });
    const rows = await query(q.one, [id, caller.userId]);
    if (rows.length === 0) return reply.status(404).send({ status: 404 });
    return reply.type('application/json; charset=utf-8').serializer(json).send(compactJson(String(rows[0].body)));
  });
  const url = await server.listen({ port, host: '127.0.0.1' });
  return { url, close: () => server.close() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const settings = JSON.parse(process.env.BASELINE_SETTINGS ?? '') as BaselineSettings;
  // A pool of ten, as the service's (openPostgres, src/storage/db.ts).
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const served = await serveBaseline(settings, async (text, values) => (await pool.query(text, values)).rows, Number(process.env.PORT ?? 0));
  process.on('SIGTERM', () => void served.close().then(() => pool.end()).then(() => process.exit(0)));
  console.log(`baseline listening ${served.url}`);
}
