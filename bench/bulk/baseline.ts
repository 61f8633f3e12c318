// The hand-written export baseline: a plain node:http server on a `pg` pool answering
// `GET /toDos/export` with every to-do as NDJSON, each line the JSON a list item of the generated API
// is (user embedded, its `todos` the first ids, deadline in ISO UTC), built by PostgreSQL and
// streamed in keyset pages of 1,000 by id, the next page read once the client took the last one.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { DEFAULT_EMBEDDED_ID_LIMIT } from '../../src/runtime/data/record-json.ts';
import { quoteIdent } from '../../src/storage/sql.ts';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const PAGE = 1000;

/** One page of items after an id: the same statement every page. */
export function exportStatement(app: CompiledApp, embeddedIdLimit = DEFAULT_EMBEDDED_ID_LIMIT): string {
  const user = app.userModel!;
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
  const u = (name: string) => quoteIdent(user.fieldsByName.get(name)!.column!);
  const todos = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
  const users = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
  const embedded = `(select json_build_object('id', u.id, 'name', u.${u('name')}, 'email', u.${u('email')},
      'todos', coalesce((select json_agg(b.id order by b.id) from (select x.id from ${todos} x where x.${t('user')} = u.id order by x.id limit ${embeddedIdLimit}) b), '[]'::json))
    from ${users} u where u.id = p.${t('user')})`;
  return `select json_build_object('id', p.id, 'title', p.${t('title')}, 'description', p.${t('description')},
      'deadline', to_char(p.${t('deadline')} at time zone 'UTC', ${ISO}), 'status', p.${t('status')}, 'user', ${embedded})::text as body, p.id::text as id
    from (select * from ${todos} t where t.id > $1::uuid order by t.id limit ${PAGE}) p order by p.id`;
}

export async function startExportBaseline(app: CompiledApp, connectionString: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString, max: 4 });
  const text = exportStatement(app);
  const server: Server = createServer((request, response) => {
    void (async () => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8' });
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const rows = (await pool.query<{ body: string; id: string }>({ name: 'export-page', text, values: [after] })).rows;
        if (rows.length === 0) break;
        const chunk = `${rows.map((row) => row.body.replaceAll('\n', '')).join('\n')}\n`;
        if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1].id;
      }
      response.end();
    })().catch((error: unknown) => response.destroy(error as Error));
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}
