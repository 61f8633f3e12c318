// `GET /{resource}/export` over real HTTP on PGlite and PostgreSQL: 10,000 records exported as
// NDJSON and CSV hold exactly the items the list pages answer (the same JSON, member for member,
// in id order), an end user's export only the rows they may read, and bad parameters are 400s.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type As, type Page, type ProblemBody, type Rec } from './served-app.ts';

const RECORDS = 10_000;

describe.each(await availableDrivers())('export on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  let adminItems: Promise<Rec[]> | undefined;

  /** Every item a list answers, in id order, page by page. */
  const listAll = async (as: As, query = ''): Promise<Rec[]> => {
    const items: Rec[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await api.get<Page>(`/toDos?sort=id&limit=1000&offset=${offset}${query}`, as);
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      if (page.body.items.length < 1000) return items;
    }
  };
  const exported = async (as: As, query: string) => {
    const headers: Record<string, string> = {};
    if (as === 'admin') Object.assign(headers, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
    else if (as) headers.authorization = `Bearer ${as}`;
    const response = await fetch(`${api.base}/toDos/export?${query}`, { headers });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Export');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    // 10,000 to-dos in batches of 100: two in three Ann's, the rest Bob's; text with commas, quotes and line breaks.
    for (let start = 0; start < RECORDS; start += 100) {
      const requests = Array.from({ length: 100 }, (_, k) => {
        const i = start + k;
        const body: Record<string, unknown> = { title: `to-do ${i}, "quoted"`, status: i % 2 ? 'open' : 'done', user: i % 3 === 2 ? bob.user.id : ann.user.id };
        if (i % 7 === 0) body.description = `line one\nline two ${i}`;
        if (i % 5 === 0) body.deadline = new Date(Date.UTC(2030, 0, 1 + (i % 300))).toISOString();
        return { method: 'POST', path: '/toDos', body };
      });
      const reply = await api.post('/batch', { requests }, 'admin');
      if (reply.status !== 200) throw new Error(`batch answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    }
  }, 600_000);
  afterAll(() => t?.close());

  it('exports 10,000 records as NDJSON, each line the same JSON as the list item', async () => {
    const items = await (adminItems ??= listAll('admin'));
    expect(items).toHaveLength(RECORDS);
    const reply = await exported('admin', 'format=ndjson');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('application/x-ndjson');
    expect(reply.text.endsWith('\n')).toBe(true);
    const lines = reply.text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(RECORDS);
    // Parsed and serialised again, member order kept: the same bytes as the list's item.
    expect(lines.map((line) => JSON.stringify(JSON.parse(line)))).toEqual(items.map((item) => JSON.stringify(item)));
  }, 300_000);

  it('exports the same records as CSV: a header of the members, one row each, values as the list answers them', async () => {
    const items = await (adminItems ??= listAll('admin'));
    const reply = await exported('admin', 'format=csv');
    expect(reply.status).toBe(200);
    expect(reply.contentType).toContain('text/csv');
    const rows = parse(reply.text, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual(['id', 'title', 'description', 'deadline', 'status', 'user']);
    const cell = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
    expect(rows).toHaveLength(RECORDS);
    expect(rows).toEqual(items.map((item) => Object.fromEntries(Object.keys(rows[0]).map((name) => [name, cell(item[name])]))));
    expect(rows.some((row) => row.description.includes('\n') && row.title.includes('"quoted"'))).toBe(true);
  }, 300_000);

  it("exports only an end user's own rows under the read rule, with filter and fields as a list takes them", async () => {
    const annItems = await listAll(ann.token);
    const bobItems = await listAll(bob.token);
    expect(annItems.length + bobItems.length).toBe(RECORDS);
    const annLines = (await exported(ann.token, 'format=ndjson')).text.trim().split('\n').map((line) => JSON.parse(line) as Rec);
    expect(annLines.map((r) => JSON.stringify(r))).toEqual(annItems.map((r) => JSON.stringify(r)));
    expect(annLines.every((r) => (r.user as Rec).id === ann.user.id)).toBe(true);

    const query = `&filter=${encodeURIComponent("record.status == 'open'")}&fields=title,status`;
    const narrowList = await listAll(bob.token, query);
    const narrow = await exported(bob.token, `format=ndjson${query}`);
    expect(narrow.status).toBe(200);
    const narrowLines = narrow.text.trim().split('\n').map((line) => JSON.parse(line) as Rec);
    expect(narrowLines).toEqual(narrowList);
    expect(narrowLines.length).toBeGreaterThan(0);
    expect(Object.keys(narrowLines[0])).toEqual(['id', 'title', 'status']);
    const narrowCsv = await exported(bob.token, `format=csv${query}`);
    expect(narrowCsv.text.split('\r\n')[0]).toBe('id,title,status');

    const anonymous = await exported(null, 'format=ndjson');
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toBe('');
  }, 300_000);

  it('refuses an unknown format, a bad filter or an unknown field with a 400 naming it', async () => {
    const format = await exported(ann.token, 'format=xml');
    expect(format.status).toBe(400);
    expect((JSON.parse(format.text) as ProblemBody).errors[0].path).toBe('/format');
    const filter = await exported(ann.token, 'filter=record.nope%20%3D%3D%201');
    expect(filter.status).toBe(400);
    expect((JSON.parse(filter.text) as ProblemBody).errors[0].path).toBe('/filter');
    const fields = await exported(ann.token, 'fields=nope');
    expect(fields.status).toBe(400);
    expect((JSON.parse(fields.text) as ProblemBody).errors[0].path).toBe('/fields');
  });
});
