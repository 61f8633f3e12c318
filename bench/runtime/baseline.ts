// The hand-written baseline's SQL (its server, baseline-server.ts, runs it): queries written for the
// to-do tables, answering the same requests with the same JSON as the generated API, each in ONE SQL
// statement that builds the JSON text inside PostgreSQL (json_build_object/json_agg), passed
// through as it is (DESIGN §3: the fast way a competent developer writes it by hand):
//   GET /toDos?limit&offset   an end user's to-dos (JWT verified with the app's key) or, with the
//                             baseline's admin token, all to-dos; each with its user embedded, whose
//                             `todos` are the first 10 ids (the bounded shape, DESIGN §6); the
//                             total by `count(*)` in the same statement, on every request
//   GET /toDos?fields=title,deadline,user.name   the same narrowed: {id, title, deadline, user: {id, name}}
//   GET /toDos/:id            one of the caller's to-dos, user embedded
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { DEFAULT_EMBEDDED_ID_LIMIT } from '../../src/runtime/data/record-json.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import type { BaselineStatements } from './baseline-server.ts';

/** The narrowed list the bench asks for (`fields=`), and the only one the baseline serves. */
export const NARROW_FIELDS = 'title,deadline,user.name';

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export function statements(app: CompiledApp, embeddedIdLimit: number = DEFAULT_EMBEDDED_ID_LIMIT): BaselineStatements {
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
