// Aggregates and full-text search over real HTTP, on both drivers: an end user's aggregate counts
// only the rows they may read and refuses fields they may not; grouped counts and sums match
// what the test computes from the rows; search finds and ranks, never shows another user's rows,
// combines with a filter and works on a sub-collection; the migration made the GIN index.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

interface Aggregate {
  items: Array<Record<string, unknown> & { group: Record<string, unknown> }>;
  total: number;
  offset: number;
}

const field = (id: string, name: string, to: string, accessControl: unknown = { rules: [] }) => ({ id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl });

/** The to-do example (each user reads their own to-dos) with a number and a text field nobody but the administrator reads. */
function definition() {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; fields: unknown[] }> };
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  todo.fields.push(field('urn:svc:edge:todo-estimate', 'estimate', 'p_NUMBER'), field('urn:svc:edge:todo-secret', 'secret', 'p_TEXT', { rules: [{ access: 'deny', criteria: 'true' }] }));
  return scode;
}

interface Row {
  title: string;
  description?: string;
  status: 'open' | 'done';
  estimate?: number;
  deadline?: string;
  secret?: string;
}

const ANN_ROWS: Row[] = [
  { title: 'Buy milk', status: 'open', estimate: 1, deadline: '2026-01-05T10:00:00.000Z' },
  { title: 'Milk the cow', description: 'milk milk milk before dawn', status: 'open', estimate: 2.5, deadline: '2026-01-02T10:00:00.000Z' },
  { title: 'Walk the dog', status: 'done', estimate: 4, deadline: '2026-02-01T10:00:00.000Z', secret: 'zebra' },
  { title: 'Write report', description: 'quarterly numbers', status: 'done' },
  { title: 'Call the bank', status: 'open', estimate: 0.5 },
];
const BOB_ROWS: Row[] = [
  { title: 'Buy milk and bread', status: 'open', estimate: 100 },
  { title: 'Sell the cow', description: 'milk is cheap', status: 'done', estimate: 7, secret: 'zebra' },
];

const paths = (body: ProblemBody) => body.errors.map((e) => e.path);

describe.each(await availableDrivers())('aggregates and search on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let appId: string;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Query engine');
    const app = await createTodoApp(tenant, definition());
    appId = app.id;
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    for (const [who, rows] of [[ann, ANN_ROWS], [bob, BOB_ROWS]] as const) {
      for (const { secret, ...row } of rows) {
        const created = await api.post('/toDos', row, who.token);
        expect(created.status).toBe(201);
        if (secret) expect((await api.patch(`/toDos/${created.body.id}`, { secret }, 'admin')).status).toBe(200);
      }
    }
  }, 120_000);
  afterAll(() => t?.close());

  const aggregate = (query: string, as: string | 'admin' | null) => api.get<Aggregate>(`/toDos/aggregate?${query}`, as);

  it('groups an end user\'s own rows only, with counts, sums, averages, extremes and distinct counts as computed here', async () => {
    const metrics = 'count,sum(estimate),avg(estimate),min(deadline),max(deadline),countDistinct(user),count(description),min(title)';
    const reply = await aggregate(`groupBy=status&metrics=${encodeURIComponent(metrics)}`, ann.token);
    expect(reply.status).toBe(200);
    expect(reply.body.total).toBe(2);
    expect(reply.body.offset).toBe(0);
    const expected = (['done', 'open'] as const).map((status) => {
      const rows = ANN_ROWS.filter((r) => r.status === status);
      const estimates = rows.map((r) => r.estimate).filter((e): e is number => e !== undefined);
      const deadlines = rows.map((r) => r.deadline).filter((d): d is string => d !== undefined).sort();
      return {
        group: { status },
        count: rows.length,
        'sum(estimate)': estimates.reduce((a, b) => a + b, 0),
        'avg(estimate)': estimates.reduce((a, b) => a + b, 0) / estimates.length,
        'min(deadline)': deadlines[0] ?? null,
        'max(deadline)': deadlines.at(-1) ?? null,
        'countDistinct(user)': 1,
        'count(description)': rows.filter((r) => r.description !== undefined).length,
        'min(title)': rows.map((r) => r.title).sort()[0],
      };
    });
    expect(reply.body.items).toEqual(expected);
  });

  it('answers one item over every readable row without groupBy, and the administrator sees every row', async () => {
    const mine = await aggregate('metrics=count,sum(estimate)', ann.token);
    expect(mine.body).toEqual({ items: [{ group: {}, count: ANN_ROWS.length, 'sum(estimate)': 8 }], total: 1, offset: 0 });
    const all = await aggregate('metrics=count,countDistinct(user)', 'admin');
    expect(all.body.items).toEqual([{ group: {}, count: ANN_ROWS.length + BOB_ROWS.length, 'countDistinct(user)': 2 }]);
    const byUser = await aggregate('groupBy=user&sort=-count', 'admin');
    expect(byUser.body.items).toEqual([
      { group: { user: ann.user.id }, count: ANN_ROWS.length },
      { group: { user: bob.user.id }, count: BOB_ROWS.length },
    ]);
    // Anonymous callers read no to-do: a zero count, not an error.
    expect((await aggregate('metrics=count', null)).body.items).toEqual([{ group: {}, count: 0 }]);
  });

  it('sorts by a metric, pages the groups and counts them all', async () => {
    const page = await aggregate('groupBy=status,estimate&sort=-estimate&limit=2&offset=1', ann.token);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(5);
    const sorted = [...ANN_ROWS].sort((a, b) => (b.estimate ?? Infinity) - (a.estimate ?? Infinity));
    // PostgreSQL puts nulls first in a descending order.
    expect(page.body.items.map((i) => i.group.estimate)).toEqual(sorted.slice(1, 3).map((r) => r.estimate ?? null));
  });

  it('refuses hidden and unknown fields and bad metrics with a 400 naming them', async () => {
    for (const [query, path, name] of [
      ['groupBy=secret', '/groupBy', 'secret'],
      ['metrics=count(secret)', '/metrics', 'secret'],
      ['groupBy=nope', '/groupBy', 'nope'],
      ['metrics=sum(title)', '/metrics', 'sum(title)'],
      ['metrics=median(estimate)', '/metrics', 'median(estimate)'],
      ['metrics=count&sort=-nope', '/sort', 'nope'],
    ]) {
      const reply = await api.get<ProblemBody>(`/toDos/aggregate?${query}`, ann.token);
      expect(reply.status, query).toBe(400);
      expect(paths(reply.body)).toEqual([path]);
      expect(reply.body.detail).toContain(`'${name}'`);
    }
    // The administrator reads every field.
    expect((await aggregate('groupBy=secret', 'admin')).body.items).toEqual([
      { group: { secret: 'zebra' }, count: 2 },
      { group: { secret: null }, count: 5 },
    ]);
  });

  it('finds and ranks the caller\'s own rows only', async () => {
    const found = await api.get<Page>('/toDos?search=milk', ann.token);
    expect(found.status).toBe(200);
    // Relevance first: "milk" four times before once.
    expect(found.body.items.map((r) => r.title)).toEqual(['Milk the cow', 'Buy milk']);
    expect(found.body.total).toBe(2);
    const bobs = await api.get<Page>('/toDos?search=milk', bob.token);
    expect(bobs.body.items.map((r) => r.title).sort()).toEqual(['Buy milk and bread', 'Sell the cow']);
    // Web search syntax: a phrase, an exclusion.
    expect((await api.get<Page>('/toDos?search=%22buy%20milk%22', ann.token)).body.items.map((r) => r.title)).toEqual(['Buy milk']);
    expect((await api.get<Page>('/toDos?search=milk%20-cow', ann.token)).body.items.map((r) => r.title)).toEqual(['Buy milk']);
    // An explicit sort replaces relevance.
    expect((await api.get<Page>('/toDos?search=milk&sort=title', ann.token)).body.items.map((r) => r.title)).toEqual(['Buy milk', 'Milk the cow']);
  });

  it('never matches a field the caller may not read, and the administrator searches it', async () => {
    expect((await api.get<Page>('/toDos?search=zebra', ann.token)).body).toEqual({ items: [], total: 0, offset: 0 });
    const admin = await api.get<Page>('/toDos?search=zebra&fields=title', 'admin');
    expect(admin.body.items.map((r) => r.title).sort()).toEqual(['Sell the cow', 'Walk the dog']);
  });

  it('combines search with a filter, on a sub-collection and in an aggregate', async () => {
    const filtered = await api.get<Page>(`/toDos?search=milk&filter=${encodeURIComponent("record.estimate > 2")}`, ann.token);
    expect(filtered.body.items.map((r) => r.title)).toEqual(['Milk the cow']);
    const sub = await api.get<Page>(`/users/${ann.user.id}/todos?search=milk`, ann.token);
    expect(sub.status).toBe(200);
    expect(sub.body.items.map((r) => r.title)).toEqual(['Milk the cow', 'Buy milk']);
    // Another user's sub-collection stays closed.
    expect((await api.get(`/users/${bob.user.id}/todos?search=milk`, ann.token)).status).toBe(404);
    const counted = await aggregate('groupBy=status&search=milk', 'admin');
    expect(counted.body.items).toEqual([
      { group: { status: 'done' }, count: 1 },
      { group: { status: 'open' }, count: 3 },
    ]);
  });

  it('searches in the language of the app variable SEARCH_LANGUAGE', async () => {
    const variable = `/v1/applications/${appId}/variables/SEARCH_LANGUAGE`;
    // `simple` keeps words as written: "walking" is not "walk".
    expect((await api.get<Page>('/toDos?search=walking', ann.token)).body.total).toBe(0);
    expect((await tenant.api.request('PUT', variable, { body: { value: 'english' } })).status).toBeLessThan(300);
    try {
      const stemmed = await api.get<Page>('/toDos?search=walking', ann.token);
      expect(stemmed.body.items.map((r) => r.title)).toEqual(['Walk the dog']);
    } finally {
      expect((await tenant.api.request('DELETE', variable)).status).toBeLessThan(300);
    }
  });

  it('refuses sort=relevance without a search', async () => {
    const reply = await api.get<ProblemBody>('/toDos?sort=relevance', ann.token);
    expect(reply.status).toBe(400);
    expect(paths(reply.body)).toEqual(['/sort']);
  });

  it('has the GIN index over the text fields that the search uses', async () => {
    const schema = schemaNameForApp(appId);
    const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${schema} and tablename = ${tableNameForModel('urn:svc:model:todo')}`.execute(t.database.db.kysely);
    const gin = indexes.rows.filter((r) => r.indexdef.includes('USING gin'));
    expect(gin).toHaveLength(1);
    // Over the stored search document, a column generated from the text fields.
    const column = /\((search_[0-9a-f]+)\)/.exec(gin[0].indexdef)?.[1];
    expect(column).toBeDefined();
    const generated = await sql<{ generation_expression: string }>`select generation_expression from information_schema.columns where table_schema = ${schema} and column_name = ${column!}`.execute(t.database.db.kysely);
    expect(generated.rows[0].generation_expression).toContain("to_tsvector('simple'::regconfig");
  });
});
