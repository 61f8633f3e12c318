// From real SQL documents to a working app with its data: upload → specification (default access:
// owner) → apply with publish and import → end users sign up, create a record of an owned model
// that another end user does not see, anyone reads the reference data, and the app's totals equal
// the rows of the document, counted here from the file itself; foreign keys land on the records
// the document names. On both drivers: Chinook for MySQL (the whole flow), Northwind for
// PostgreSQL (natural text keys, `REFERENCES t` without columns) and the Sakila MySQL pair (schema
// file + Oracle's data-only file of the same database: every table's rows in, none rejected).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { ServedApi, type Page, type Rec } from '../runtime/served-app.ts';
import type { Model } from '../../src/definition/schema.ts';
import { resourceName } from '../../src/definition/naming.ts';
import { FIXTURES, specificationFrom } from '../specifications/support.ts';
import { applyWithData, type ImportReply } from './support.ts';

/**
 * Rows per table of an SQL script: the top-level `(…)` tuples after each `INSERT INTO t … VALUES`,
 * read with quotes (`'…'`, `''` and backslash escapes) and comments skipped.
 */
function insertCounts(file: string): Map<string, number> {
  const backslashEscapes = /mysql/.test(file);
  const text = readFileSync(`${FIXTURES}/${file}`, 'utf8');
  const counts = new Map<string, number>();
  let at = 0;
  while (at < text.length) {
    const found = /INSERT\s+INTO\s+[`"]?(\w+)[`"]?/gi;
    found.lastIndex = at;
    const match = found.exec(text);
    if (!match) break;
    const table = match[1]!.toLowerCase();
    const values = /VALUES/gi;
    values.lastIndex = match.index;
    let i = values.exec(text)!.index + 6;
    let depth = 0;
    let rows = 0;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c === "'") {
        for (i++; i < text.length; i++) {
          if (text[i] === '\\' && backslashEscapes) i++;
          else if (text[i] === "'") {
            if (text[i + 1] === "'") i++;
            else break;
          }
        }
      } else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 1;
      else if (c === '(') {
        if (depth === 0) rows += 1;
        depth += 1;
      } else if (c === ')') depth -= 1;
      else if (c === ';' && depth === 0) break;
    }
    counts.set(table, (counts.get(table) ?? 0) + rows);
    at = i + 1;
  }
  return counts;
}

const idOf = (value: unknown) => (typeof value === 'string' ? value : (value as Rec).id);

/** A value for a required primitive field of a sign-up or a create the test does not set itself. */
function sampleValue(field: Model['fields'][number], n: number): unknown {
  if (field.enum?.length) return field.enum[0];
  switch (field.to) {
    case 'p_NUMBER':
    case 'p_STAR_RATING':
      return 1;
    case 'p_BOOLEAN':
      return true;
    case 'p_DATE':
      return '2024-05-01';
    case 'p_DATE_TIME':
      return '2024-05-01T10:00:00.000Z';
    case 'p_TIME':
      return '10:00:00';
    default:
      return `sample-${n}`;
  }
}

/** `values` plus samples for the other required primitive fields without a default. */
function withRequired(model: Model, values: Record<string, unknown>): Record<string, unknown> {
  const out = { ...values };
  let n = 0;
  for (const field of model.fields) {
    if (field.name in out || field.min < 1 || field.defaultValue !== undefined || field.to.startsWith('urn:svc:model:')) continue;
    out[field.name] = field.max === 1 ? sampleValue(field, ++n) : [sampleValue(field, ++n)];
  }
  return out;
}

async function listed(api: ServedApi, resource: string, as: string | null = 'admin', query = 'limit=0'): Promise<Page> {
  const reply = await api.get<Page>(`/${resource}?${query}`, as);
  if (reply.status !== 200) throw new Error(`GET /${resource} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

const where = (expression: string) => `filter=${encodeURIComponent(expression)}&limit=5`;

/** The end-user checks on a published app with its data: sign-up, an owned record kept apart, reference data for anyone. */
async function endUsers(api: ServedApi, app: AppReply, owned: { model: string; owner: string; values: Record<string, unknown> }, reference: { resource: string; total: number }): Promise<void> {
  const user = app.scode.models.find((m) => m.id === app.scode.userModelId)!;
  const signup = (email: string) => api.post<{ token: string; user: Rec }>('/auth/signup', withRequired(user, { email, password: 'correct horse battery' }));
  const ann = await signup('ann@example.test');
  expect(ann.status, JSON.stringify(ann.body)).toBe(201);
  const bob = await signup('bob@example.test');
  expect(bob.status, JSON.stringify(bob.body)).toBe(201);
  const model = app.scode.models.find((m) => m.name === owned.model)!;
  const path = `/${resourceName(model.name)}`;
  const created = await api.post<Rec>(path, withRequired(model, owned.values), ann.body.token);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(idOf(created.body[owned.owner])).toBe(ann.body.user.id);
  expect((await listed(api, resourceName(model.name), ann.body.token, 'limit=5')).total).toBe(1);
  expect((await listed(api, resourceName(model.name), bob.body.token, 'limit=5')).total).toBe(0);
  expect((await api.get(`${path}/${created.body.id}`, bob.body.token)).status).toBe(404);
  expect((await api.get(`${path}/${created.body.id}`, ann.body.token)).status).toBe(200);
  // anonymous: the reference data, all of it
  expect((await listed(api, reference.resource, null, 'limit=0')).total).toBe(reference.total);
}

describe.each(await availableDrivers())('documents to a working app with their data (%s)', (driver) => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
  }, 120_000);
  afterAll(() => t?.close());

  it('Chinook for MySQL: every row in, foreign keys by value, end users sign up and keep their invoices apart', async () => {
    const music: Tenant = await createTenant(t, 'Chinook with data');
    const spec = await specificationFrom(music.api, music.projectId, ['sql/chinook-mysql.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const { app, report } = await applyWithData(music, spec.id, { name: 'Chinook' });
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    expect(report.errors).toEqual([]);
    const counts = insertCounts('sql/chinook-mysql.sql');
    checkTotals(app, report, counts);
    const api = new ServedApi(t, music, app.id, report.serverVersion!);
    expect((await listed(api, 'tracks')).total).toBe(counts.get('track'));
    expect((await listed(api, 'invoices')).total).toBe(counts.get('invoice'));
    // track 1 is on album 1 "For Those About To Rock We Salute You" by AC/DC, a Rock track
    const track = (await listed(api, 'tracks', 'admin', where('record.name == "For Those About To Rock (We Salute You)"'))).items[0]!;
    const album = await api.get<Rec>(`/albums/${idOf(track.album)}`, 'admin');
    expect(album.body.title).toBe('For Those About To Rock We Salute You');
    expect((await api.get<Rec>(`/artists/${idOf(album.body.artist)}`, 'admin')).body.name).toBe('AC/DC');
    expect((await api.get<Rec>(`/genres/${idOf(track.genre)}`, 'admin')).body.name).toBe('Rock');
    // customer 1 Luís Gonçalves is looked after by employee 3 Jane Peacock
    const luis = (await listed(api, 'customers', 'admin', where('record.email == "luisg@embraer.com.br"'))).items[0]!;
    expect((await api.get<Rec>(`/employees/${idOf(luis.supportRep)}`, 'admin')).body.lastName).toBe('Peacock');

    await endUsers(api, app, { model: 'Invoice', owner: 'customer', values: { invoiceDate: '2024-05-01T10:00:00.000Z', total: 1.98 } }, { resource: 'genres', total: counts.get('genre')! });
  }, 900_000);

  it('Northwind (PostgreSQL): totals per table and foreign keys by value, natural text keys included', async () => {
    const tenant: Tenant = await createTenant(t, 'Northwind with data');
    const spec = await specificationFrom(tenant.api, tenant.projectId, ['sql/northwind-postgres.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const { app, report } = await applyWithData(tenant, spec.id, { name: 'Northwind' });
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    checkTotals(app, report, insertCounts('sql/northwind-postgres.sql'));
    const api = new ServedApi(t, tenant, app.id, report.serverVersion!);
    // product 1 Chai is a Beverage from supplier 8 (this dump's row: `(1, 'Chai', 8, 1, …)`); order 10248 was placed by VINET
    const chai = (await listed(api, 'products', 'admin', where('record.productName == "Chai"'))).items[0]!;
    expect((await api.get<Rec>(`/categories/${idOf(chai.category)}`, 'admin')).body.categoryName).toBe('Beverages');
    expect((await api.get<Rec>(`/suppliers/${idOf(chai.supplier)}`, 'admin')).body.companyName).toBe('Specialty Biscuits, Ltd.');
    const order = (await listed(api, 'orders', 'admin', where('record.shipName == "Vins et alcools Chevalier"'))).items[0]!;
    expect((await api.get<Rec>(`/customers/${idOf(order.customer)}`, 'admin')).body.companyName).toBe('Vins et alcools Chevalier');
  }, 900_000);

  it('Sakila for MySQL (schema + data-only file): every table imports exactly its rows, the served totals equal them, end users sign up and rent', async () => {
    const tenant: Tenant = await createTenant(t, 'Sakila with data');
    const spec = await specificationFrom(tenant.api, tenant.projectId, ['sql/sakila-mysql-schema.sql', 'sql/sakila-mysql-data.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const { app, report } = await applyWithData(tenant, spec.id, { name: 'Sakila' });
    expect(report.status, JSON.stringify(report.errors.slice(0, 3))).toBe('succeeded');
    expect(report.errors).toEqual([]);
    const counts = insertCounts('sql/sakila-mysql-data.sql');
    expect(counts.size).toBe(15);
    checkTotals(app, report, counts);
    // customer included: the schema's 9 columns, the data's 9 values
    const customers = report.models.find((m) => m.model === 'Customer')!;
    expect(customers).toMatchObject({ rows: counts.get('customer'), imported: counts.get('customer'), rejected: 0 });
    const api = new ServedApi(t, tenant, app.id, report.serverVersion!);
    for (const model of app.scode.models) {
      const table = [...counts.keys()].find((name) => name.replace(/_/g, '') === model.name.toLowerCase());
      if (table) expect((await listed(api, resourceName(model.name))).total, table).toBe(counts.get(table));
    }
    // film ACADEMY DINOSAUR is in English; city A Coruña (La Coruña) is in Spain
    const film = (await listed(api, 'films', 'admin', where('record.title == "ACADEMY DINOSAUR"'))).items[0]!;
    expect((await api.get<Rec>(`/languages/${idOf(film.language)}`, 'admin')).body.name).toMatch(/^English\s*$/);
    const city = (await listed(api, 'cities', 'admin', where('record.city == "A Coruña (La Coruña)"'))).items[0]!;
    expect((await api.get<Rec>(`/countries/${idOf(city.country)}`, 'admin')).body.country).toBe('Spain');

    // an end user signs up (a Customer) and rents a copy: an owned model, kept apart from another end user
    const inventory = (await listed(api, resourceName('Inventory'), 'admin', 'limit=1')).items[0]!;
    const staff = (await listed(api, resourceName('Staff'), 'admin', 'limit=1')).items[0]!;
    await endUsers(api, app, { model: 'Rental', owner: 'customer', values: { rentalDate: '2024-05-01T10:00:00.000Z', inventory: inventory.id, staff: staff.id } }, { resource: 'languages', total: counts.get('language')! });
  }, 900_000);
});

/** Each table of the document with rows: its model (or many-to-many) imported exactly that many. */
function checkTotals(app: AppReply, report: ImportReply, counts: Map<string, number>): void {
  expect(counts.size).toBeGreaterThan(3);
  for (const [table, rows] of counts) {
    const name = table.replace(/_/g, '').replace(/s$/, '').replace(/ie$/, 'y');
    const found = app.scode.models.find((m) => m.name.toLowerCase() === name || m.name.toLowerCase() === table.replace(/_/g, ''));
    const imported = found
      ? report.models.find((m) => m.model === found.name)?.imported
      : report.models.find((m) => m.model.includes('.') && m.model.toLowerCase().split('.').every((part) => table.replace(/_/g, '').includes(part.replace(/ies$/, 'y').replace(/s$/, '').replace(/y$/, ''))))?.imported;
    expect(imported, `${table}: ${JSON.stringify(report.models)}`).toBe(rows);
  }
}
