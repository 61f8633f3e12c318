// Models wider than one `json_build_object` call takes (50 key-value pairs), over real HTTP on both
// drivers: a 300-field model and a model with 60 relationships are created, read, listed (also
// with `fields=`), updated, exported and announced over realtime, members in the definition's order.
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { SseClient, until } from '../realtime/clients.ts';
import { publish, ServedApi, type Page, type ProblemBody, type Rec } from './served-app.ts';
import { HEAVY, HUB, RULED, wideBody, wideKind, wideName, wideScode, wideValue } from './wide-definition.ts';

const WIDE = 300;
const names = Array.from({ length: WIDE }, (_, i) => wideName(i));
const hubNames = ['title', ...HUB.toOne, ...HUB.toMany, ...HUB.tags];

/** The values as answered: jsonb objects come back with their own key order, so compared by value. */
function expectWide(record: Rec, body: Record<string, unknown>): void {
  expect(Object.keys(record)).toEqual(['id', ...names]);
  expect(record).toEqual({ id: record.id, ...body });
}

describe.each(await availableDrivers())('models wider than 50 fields on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let stream: SseClient;
  const open: SseClient[] = [];
  const log: string[] = [];

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    t = await startTestPlatform(driver, {}, logStream);
    tenant = await createTenant(t, 'Wide');
    const app = await createTodoApp(tenant, wideScode(WIDE));
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    stream = await SseClient.open(`${api.base}/realtime?subscribe=wides,hubs`, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
    open.push(stream);
    expect(stream.status).toBe(200);
  }, 180_000);
  const exported = async (query: string) => {
    const headers = { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    const response = await fetch(`${api.base}/wides/export?${query}`, { headers });
    return { status: response.status, text: await response.text() };
  };
  afterAll(async () => {
    for (const s of open) s.close();
    await t?.close();
  });

  it('creates, reads, lists, narrows, updates and exports a 300-field record, members in the definition order', { timeout: 120_000 }, async () => {
    const body = wideBody(WIDE);
    const created = await api.post('/wides', body, 'admin');
    expect(created.status, JSON.stringify(created.body).slice(0, 500)).toBe(201);
    expectWide(created.body, body);
    const id = created.body.id;

    const read = await api.get(`/wides/${id}`, 'admin');
    expect(read.status).toBe(200);
    expectWide(read.body, body);

    const list = await api.get<Page>(`/wides?filter=${encodeURIComponent(`record.id == '${id}'`)}`, 'admin');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expectWide(list.body.items[0], body);

    // A few wide ones, asked out of order: answered in the definition's order.
    const few = [names[299], names[150], names[3], names[51]];
    const narrow = await api.get(`/wides/${id}?fields=${few.join(',')}`, 'admin');
    expect(narrow.status).toBe(200);
    expect(Object.keys(narrow.body)).toEqual(['id', names[3], names[51], names[150], names[299]]);
    expect(narrow.body[names[150]]).toEqual(body[names[150]]);
    // A selection itself wider than 50 members.
    const sixty = names.filter((_, i) => i % 5 === 0);
    const wideSelection = await api.get<Page>(`/wides?fields=${sixty.join(',')}&limit=5`, 'admin');
    expect(wideSelection.status).toBe(200);
    const item = wideSelection.body.items.find((r) => r.id === id)!;
    expect(Object.keys(item)).toEqual(['id', ...sixty]);
    expect(item).toEqual({ id, ...Object.fromEntries(sixty.map((n) => [n, body[n]])) });

    const next = wideBody(WIDE, 1);
    const updated = await api.patch(`/wides/${id}`, next, 'admin');
    expect(updated.status, JSON.stringify(updated.body).slice(0, 500)).toBe(200);
    expectWide(updated.body, next);
    const after = (await api.get(`/wides/${id}`, 'admin')).body;
    expectWide(after, next);

    // Export: NDJSON, the line the same JSON as the read, member order kept; CSV, a header of all 301 members.
    const filter = encodeURIComponent(`record.id == '${id}'`);
    const ndjson = await exported(`format=ndjson&filter=${filter}`);
    expect(ndjson.status).toBe(200);
    const lines = ndjson.text.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(JSON.parse(lines[0]))).toBe(JSON.stringify(after));
    expectWide(JSON.parse(lines[0]) as Rec, next);
    const csv = await exported(`format=csv&filter=${filter}`);
    expect(csv.status).toBe(200);
    const rows = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0])).toEqual(['id', ...names]);
    const cell = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
    expect(rows[0]).toEqual(Object.fromEntries(['id', ...names].map((n) => [n, cell(after[n])])));

    // Realtime: the create and the update, each the record as a read answers it.
    await until(() => stream.changes().filter((c) => c.id === id).length >= 2, 'the wide changes', 20_000);
    const changes = stream.changes().filter((c) => c.id === id);
    expect(changes.map((c) => c.action)).toEqual(['create', 'update']);
    expectWide(changes[0].record as Rec, body);
    expectWide(changes[1].record as Rec, next);
  });

  it('applies a field rule on the record to an end user reading a wide record', async () => {
    const reader = await api.signup('Reader', 'reader@example.test');
    const open = await api.post('/wides', wideBody(WIDE, 5), 'admin');
    const secret = await api.post('/wides', { ...wideBody(WIDE, 6), [names[0]]: 'secret' }, 'admin');
    expect([open.status, secret.status]).toEqual([201, 201]);
    const seen = (await api.get(`/wides/${open.body.id}`, reader.token)).body;
    expect(seen).toEqual(open.body);
    const hidden = (await api.get(`/wides/${secret.body.id}`, reader.token)).body;
    const { [names[RULED]]: ruled, ...others } = secret.body;
    expect(ruled).toEqual(wideValue(wideKind(RULED), RULED, 6));
    expect(hidden).toEqual(others);
    const listed = (await api.get<Page>(`/wides?filter=${encodeURIComponent(`record.${names[0]} == 'secret'`)}`, reader.token)).body;
    expect(listed.items).toEqual([others]);
  });

  it('applies defaults and names every missing required field of a wide model (422)', async () => {
    const required = Object.fromEntries(names.map((n, i) => [n, i] as const).filter(([, i]) => i % 10 === 0).map(([n, i]) => [n, wideValue(wideKind(i), i)]));
    const created = await api.post('/wides', required, 'admin');
    expect(created.status, JSON.stringify(created.body).slice(0, 500)).toBe(201);
    expect(Object.keys(created.body)).toEqual(['id', ...names]);
    // Every seventh field not required has its default; the others are empty.
    expect(created.body[names[7]]).toEqual(wideValue(wideKind(7), 7, 9));
    expect(created.body[names[14]]).toEqual(wideValue(wideKind(14), 14, 9));
    expect(created.body[names[1]]).toBeNull();
    const missing = await api.post<ProblemBody>('/wides', { [names[13]]: 'x' }, 'admin');
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e) => e.path).sort()).toEqual(Object.keys(required).map((n) => `/${n}`).sort());
  });

  // Each read embeds 75 records of 300 members: slow on a loaded machine, hence its own timeout.
  it('creates, reads, lists, narrows and updates a record with 60 relationships', { timeout: 240_000 }, async () => {
    const wides: string[] = [];
    for (let round = 2; round < 4; round++) {
      const reply = await api.post('/wides', wideBody(WIDE, round), 'admin');
      expect(reply.status).toBe(201);
      wides.push(reply.body.id);
    }
    const tags: string[] = [];
    for (let i = 0; i < 10; i++) {
      const reply = await api.post(`/tag${i}s`, { label: `tag ${i}` }, 'admin');
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      tags.push(reply.body.id);
    }
    const body: Record<string, unknown> = { title: 'hub' };
    HUB.toOne.forEach((n, i) => (body[n] = wides[i % 2]));
    HUB.toMany.forEach((n) => (body[n] = wides));
    HUB.tags.forEach((n, i) => (body[n] = [tags[i]]));
    const created = await api.post('/hubs', body, 'admin');
    expect(created.status, JSON.stringify(created.body).slice(0, 500)).toBe(201);
    const id = created.body.id;
    expect(Object.keys(created.body)).toEqual(['id', ...hubNames]);

    const read = await api.get(`/hubs/${id}`, 'admin');
    expect(read.status).toBe(200);
    expect(Object.keys(read.body)).toEqual(['id', ...hubNames]);
    // Expanded one level: to-one the related (300-field) record, to-many the records.
    const one = read.body[HUB.toOne[1]] as Rec;
    expect(one.id).toBe(wides[1]);
    expect(Object.keys(one)).toEqual(['id', ...names]);
    expect(one[names[0]]).toEqual(wideValue(wideKind(0), 0, 3));
    const many = read.body[HUB.toMany[0]] as Rec[];
    expect(many.map((r) => r.id)).toEqual([...wides].sort());
    expect((read.body[HUB.tags[0]] as Rec[]).map((r) => r.id)).toEqual([tags[0]]);
    // Inside an embedded record relationships are ids: Tag4 holds a to-one back, Tag9 a to-many.
    expect((read.body[HUB.tags[4]] as Rec[])[0]).toEqual({ id: tags[4], label: 'tag 4', hub: id });
    expect((read.body[HUB.tags[9]] as Rec[])[0]).toEqual({ id: tags[9], label: 'tag 9', hub: [id] });

    const list = await api.get<Page>('/hubs', 'admin');
    expect(list.status).toBe(200);
    expect(list.body.items.find((r) => r.id === id)).toEqual(read.body);

    const narrow = await api.get(`/hubs/${id}?fields=${HUB.tags[3]},${HUB.toOne[0]}.${names[2]},${HUB.toMany[4]}`, 'admin');
    expect(narrow.status).toBe(200);
    expect(narrow.body).toEqual({
      id,
      [HUB.toOne[0]]: { id: wides[0], [names[2]]: wideValue(wideKind(2), 2, 2) },
      [HUB.toMany[4]]: [...wides].sort(),
      [HUB.tags[3]]: [tags[3]],
    });
    expect(Object.keys(narrow.body)).toEqual(['id', HUB.toOne[0], HUB.toMany[4], HUB.tags[3]]);

    const change: Record<string, unknown> = { title: 'hub 2' };
    HUB.toOne.forEach((n) => (change[n] = null));
    HUB.toMany.forEach((n) => (change[n] = [wides[1]]));
    const updated = await api.patch(`/hubs/${id}`, change, 'admin');
    expect(updated.status, JSON.stringify(updated.body).slice(0, 500)).toBe(200);
    expect(Object.keys(updated.body)).toEqual(['id', ...hubNames]);
    expect(updated.body.title).toBe('hub 2');
    expect(HUB.toOne.every((n) => updated.body[n] === null)).toBe(true);
    expect(HUB.toMany.every((n) => (updated.body[n] as Rec[]).map((r) => r.id).join() === wides[1])).toBe(true);
    const after = await api.get(`/hubs/${id}`, 'admin');
    expect(after.body).toEqual(updated.body);

    await until(() => stream.changes().filter((c) => c.id === id).length >= 2, 'the hub changes', 20_000);
    const changes = stream.changes().filter((c) => c.id === id);
    expect(changes.map((c) => c.action)).toEqual(['create', 'update']);
    expect(changes[1].record).toEqual(after.body);
    expect(Object.keys(changes[0].record)).toEqual(['id', ...hubNames]);
  });

  it('answers a database limit with 500 and logs its cause, never a 400 about the request', async () => {
    // 1100 numbers fit a table, and a record with a hundred of them set is stored and read back.
    const some = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`n${i * 11}`, i]));
    const stored = await api.post('/heavies', some, 'admin');
    expect(stored.status, JSON.stringify(stored.body).slice(0, 300)).toBe(201);
    expect(Object.keys(stored.body)).toHaveLength(HEAVY + 1);
    expect(stored.body).toMatchObject(some);
    // Every one of them set is a row past 8160 bytes: PostgreSQL's limit (SQLSTATE 54000), not the request's fault.
    const all = Object.fromEntries(Array.from({ length: HEAVY }, (_, i) => [`n${i}`, i + 0.5]));
    const refused = await api.post<ProblemBody>('/heavies', all, 'admin');
    expect(refused.status).toBe(500);
    expect(refused.contentType).toContain('application/problem+json');
    expect(JSON.stringify(refused.body)).not.toMatch(/row is too big|54000/);
    await until(() => log.join('').includes('"code":"54000"'), 'the logged cause');
    const line = log.join('').split('\n').find((l) => l.includes('"code":"54000"'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, msg: 'request failed', err: { code: '54000' } });
    expect((await api.get<Page>('/heavies?limit=0', 'admin')).body.total).toBe(1);
  });
});
