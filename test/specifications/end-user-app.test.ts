// The app built from a real document works for its end users, on both databases: Pagila's schema
// uploaded, a specification generated with the default access (owner), applied and published;
// an end user signs up as a Customer, rents a film (an owned model: the owner field defaults to
// them), a second end user does not see the rental, anyone reads the reference data. Staff's
// password is a write-only field: stored, never read back. Sakila with `access: "private"` keeps
// the closed app (sign-up refused), with `public-read` anyone reads the rentals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish } from '../support/publish.ts';
import { ServedApi, type Page, type ProblemBody, type Rec } from '../runtime/served-app.ts';
import { SseClient, until } from '../realtime/clients.ts';
import type { Field, Model } from '../../src/definition/schema.ts';
import { resourceName } from '../../src/definition/naming.ts';
import { fixture, settledSpecification, uploadAttachment, type SpecificationReply } from './support.ts';

/** A specification of `file` with `access` (the default when undefined). */
async function specificationOf(tenant: Tenant, file: string, access?: string): Promise<SpecificationReply> {
  const uploaded = await uploadAttachment(tenant.api, tenant.projectId, file.split('/').pop()!, fixture(file));
  if (uploaded.status !== 201) throw new Error(`upload answered ${uploaded.status}`);
  const created = await tenant.api.post<{ id: string }>(`/v1/projects/${tenant.projectId}/specifications`, { attachmentIds: [uploaded.body.id], ...(access ? { access } : {}) });
  if (created.status !== 202) throw new Error(`create specification answered ${created.status}: ${created.text}`);
  return settledSpecification(tenant.api, tenant.projectId, created.body.id);
}

async function appOf(tenant: Tenant, spec: SpecificationReply, name: string): Promise<AppReply> {
  const created = await tenant.api.post<AppReply>(`/v1/projects/${tenant.projectId}/specifications/${spec.id}/apply`, { name });
  if (created.status !== 201) throw new Error(`apply answered ${created.status}: ${created.text}`);
  return publish(tenant, created.body.id);
}

let counter = 0;

/** A value of a primitive type for a required field the test does not set itself (texts unique). */
function sampleValue(field: Field): unknown {
  if (field.enum?.length) return field.enum[0];
  switch (field.to) {
    case 'p_NUMBER':
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
      return `sample-${++counter}`;
  }
}

/** Creates records of a published app as its administrator, with whatever their required relationships need first. */
class Records {
  private readonly made = new Map<string, string>();
  constructor(
    private readonly app: AppReply,
    private readonly api: ServedApi,
  ) {}

  model(name: string): Model {
    const found = this.app.scode.models.find((m) => m.name === name);
    if (!found) throw new Error(`no model ${name}`);
    return found;
  }

  path(name: string): string {
    return `/${resourceName(name)}`;
  }

  /** `values` plus a sample for every other required primitive field without a default, and `related` ids. */
  valuesOf(model: Model, values: Record<string, unknown>, related: Record<string, string> = {}): Record<string, unknown> {
    const out = { ...values };
    for (const field of model.fields) {
      if (field.name in out || field.min < 1 || field.defaultValue !== undefined || field.to.startsWith('urn:svc:model:')) continue;
      out[field.name] = field.max === 1 ? sampleValue(field) : [sampleValue(field)];
    }
    return { ...out, ...related };
  }

  /** The id of one record of `name` (made once): its required to-one relationships made first. */
  async one(name: string, seen: string[] = []): Promise<string> {
    const known = this.made.get(name);
    if (known) return known;
    if (seen.includes(name)) throw new Error(`required relationships loop through ${[...seen, name].join(' → ')}`);
    const model = this.model(name);
    const related = await this.requiredRelated(model, [...seen, name]);
    const created = await this.api.post(this.path(name), this.valuesOf(model, {}, related), 'admin');
    if (created.status !== 201) throw new Error(`creating a ${name} answered ${created.status}: ${JSON.stringify(created.body)}`);
    this.made.set(name, created.body.id);
    return created.body.id;
  }

  /** An id for each required to-one relationship of `model` without a default. */
  async requiredRelated(model: Model, seen: string[] = [model.name]): Promise<Record<string, string>> {
    const related: Record<string, string> = {};
    for (const field of model.fields) {
      if (field.min < 1 || field.max !== 1 || field.defaultValue !== undefined || !field.to.startsWith('urn:svc:model:')) continue;
      const target = this.app.scode.models.find((m) => m.id === field.to)!;
      related[field.name] = await this.one(target.name, seen);
    }
    return related;
  }
}

describe.each(await availableDrivers())('an app from a real document works for its end users (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let api: ServedApi;
  let records: Records;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Rental shop');
    const spec = await specificationOf(tenant, 'sql/pagila-schema.sql');
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    app = await appOf(tenant, spec, 'Rentals');
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    records = new Records(app, api);
  }, 180_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  const signup = async (email: string) => {
    const customer = records.model('Customer');
    const reply = await api.post<{ token: string; user: Rec }>('/auth/signup', records.valuesOf(customer, { email, password: 'correct horse battery', firstName: email.split('@')[0], lastName: 'Test' }));
    return reply;
  };

  it('lets an end user sign up as a Customer (201), though the document requires a store and an address', async () => {
    const reply = await signup('ann@example.test');
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    ann = reply.body;
    expect(ann.user.email).toBe('ann@example.test');
    const second = await signup('bob@example.test');
    expect(second.status).toBe(201);
    bob = second.body;
    // Each reads their own record, not the other's.
    expect((await api.get(`${records.path('Customer')}/${ann.user.id}`, ann.token)).status).toBe(200);
    expect((await api.get(`${records.path('Customer')}/${ann.user.id}`, bob.token)).status).toBe(404);
    // And sets the relationship sign-up could not, on their own record.
    const store = await records.one('Store');
    const moved = await api.patch(`${records.path('Customer')}/${ann.user.id}`, { store }, ann.token);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  }, 60_000);

  it('lets the end user rent a film (an owned model) without naming themselves; the other end user does not see it', async () => {
    const rental = records.model('Rental');
    const related = await records.requiredRelated(rental);
    expect(Object.keys(related)).not.toContain('customer');
    const created = await api.post(records.path('Rental'), records.valuesOf(rental, {}, related), ann.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const customerOf = (r: Rec) => (typeof r.customer === 'string' ? r.customer : (r.customer as Rec).id);
    expect(customerOf(created.body)).toBe(ann.user.id);

    const mine = await api.get<Page>(records.path('Rental'), ann.token);
    expect(mine.body.total).toBe(1);
    expect((await api.get(`${records.path('Rental')}/${id}`, ann.token)).status).toBe(200);
    const theirs = await api.get<Page>(records.path('Rental'), bob.token);
    expect(theirs.status).toBe(200);
    expect(theirs.body.total).toBe(0);
    expect((await api.get(`${records.path('Rental')}/${id}`, bob.token)).status).toBe(404);
    // Nobody else changes it, and an end user cannot make one in another's name.
    expect((await api.patch(`${records.path('Rental')}/${id}`, { returnDate: '2024-05-03T10:00:00.000Z' }, bob.token)).status).toBe(404);
    const forged = await api.post(records.path('Rental'), records.valuesOf(rental, { customer: ann.user.id }, related), bob.token);
    expect(forged.status).toBe(403);
    // Anonymous: nothing.
    expect((await api.get<Page>(records.path('Rental'))).body.total).toBe(0);
  }, 60_000);

  it('lets anyone read the reference data, and nobody but the administrator write it', async () => {
    const language = await records.one('Language');
    const anonymous = await api.get<Page>(records.path('Language'));
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.items.map((l) => l.id)).toContain(language);
    expect((await api.get(`${records.path('Language')}/${language}`)).status).toBe(200);
    expect((await api.post(records.path('Language'), records.valuesOf(records.model('Language'), {}), ann.token)).status).toBe(403);
  }, 60_000);

  it('keeps Staff.password write-only: stored, never in a read, a list, fields=, a filter, a realtime event or the response schemas', async () => {
    const staff = records.model('Staff');
    expect(staff.fields.find((f) => f.name === 'password')).toMatchObject({ writeOnly: true });
    const admin = await SseClient.open(`${api.base}/realtime?subscribe=${resourceName('Staff')}`, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
    streams.push(admin);
    expect(admin.status).toBe(200);
    await until(() => admin.comments > 0 || admin.events.length > 0, 'the stream to open', 30_000).catch(() => undefined);

    const related = await records.requiredRelated(staff);
    const created = await api.post(records.path('Staff'), records.valuesOf(staff, { password: 'hunter2-secret', username: 'mike' }, related), 'admin');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).not.toHaveProperty('password');
    expect(created.body.username).toBe('mike');
    const id = created.body.id;
    // Stored: the administrator may change it, and it still never comes back.
    expect((await api.patch(`${records.path('Staff')}/${id}`, { password: 'another-secret' }, 'admin')).body).not.toHaveProperty('password');
    const read = await api.get(`${records.path('Staff')}/${id}`, 'admin');
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('password');
    expect(JSON.stringify(read.body)).not.toContain('secret');
    const list = await api.get<Page>(records.path('Staff'), 'admin');
    expect(list.body.items.length).toBeGreaterThan(0);
    for (const item of list.body.items) expect(item).not.toHaveProperty('password');
    // Anonymous (reference data): the same.
    expect((await api.get(`${records.path('Staff')}/${id}`)).body).not.toHaveProperty('password');
    // Through an expansion: a rental's staff.
    const rentals = await api.get<Page>(`${records.path('Rental')}?fields=staff.*`, 'admin');
    for (const r of rentals.body.items) if (r.staff && typeof r.staff === 'object') expect(r.staff).not.toHaveProperty('password');

    const asked = await api.get<ProblemBody>(`${records.path('Staff')}?fields=username,password`, 'admin');
    expect(asked.status).toBe(400);
    expect(JSON.stringify(asked.body.errors)).toContain('password');
    expect((await api.get<Page>(`${records.path('Staff')}?fields=username`, 'admin')).status).toBe(200);
    const filtered = await api.get<ProblemBody>(`${records.path('Staff')}?filter=${encodeURIComponent("record.password == 'another-secret'")}`, 'admin');
    expect(filtered.status).toBe(400);
    expect(filtered.body.errors[0]).toMatchObject({ path: '/filter' });
    const sorted = await api.get<ProblemBody>(`${records.path('Staff')}?sort=password`, 'admin');
    expect(sorted.status).toBe(400);
    expect(sorted.body.errors[0]).toMatchObject({ path: '/sort' });

    await until(() => admin.changes().filter((c) => c.id === id).length >= 2, 'the create and update events', 30_000);
    for (const change of admin.changes()) expect(change.record).not.toHaveProperty('password');
    expect(admin.changes().find((c) => c.id === id)?.record.username).toBe('mike');

    const doc = (await api.get<{ components: { schemas: Record<string, { properties: Record<string, { writeOnly?: boolean }> }> } }>('/openapi.json')).body;
    expect(doc.components.schemas.Staff.properties).not.toHaveProperty('password');
    expect(doc.components.schemas.StaffEmbedded.properties).not.toHaveProperty('password');
    expect(doc.components.schemas.StaffCreate.properties.password).toMatchObject({ writeOnly: true });
    expect(doc.components.schemas.StaffUpdate.properties.password).toMatchObject({ writeOnly: true });
  }, 90_000);
});

describe.each(await availableDrivers())('access chosen at generation (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Film club');
  }, 120_000);
  afterAll(() => t?.close());

  it('refuses an access it does not know, naming it', async () => {
    const uploaded = await uploadAttachment(tenant.api, tenant.projectId, 'sakila.sql', fixture('sql/sakila-mysql-schema.sql'));
    const refused = await tenant.api.post<ProblemBody>(`/v1/projects/${tenant.projectId}/specifications`, { attachmentIds: [uploaded.body.id], access: 'everyone' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('access');
  }, 60_000);

  it('private keeps the closed app: sign-up refused, lists empty to end users', async () => {
    const spec = await specificationOf(tenant, 'sql/sakila-mysql-schema.sql', 'private');
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    expect(spec.warnings.some((w) => /^Access: private/.test(w.message))).toBe(true);
    const app = await appOf(tenant, spec, 'Closed');
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const records = new Records(app, api);
    const refused = await api.post<ProblemBody>('/auth/signup', records.valuesOf(records.model('Customer'), { email: 'carl@example.test', password: 'correct horse battery' }));
    expect(refused.status).toBe(403);
    await records.one('Language');
    expect((await api.get<Page>(records.path('Language'))).body.total).toBe(0);
  }, 180_000);

  it('public-read lets anyone read an owned model, while only its owner writes it', async () => {
    const spec = await specificationOf(tenant, 'sql/sakila-mysql-schema.sql', 'public-read');
    const app = await appOf(tenant, spec, 'Open');
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const records = new Records(app, api);
    const dana = await api.post<{ token: string; user: Rec }>('/auth/signup', records.valuesOf(records.model('Customer'), { email: 'dana@example.test', password: 'correct horse battery' }));
    expect(dana.status, JSON.stringify(dana.body)).toBe(201);
    const payment = records.model('Payment');
    const created = await api.post(records.path('Payment'), records.valuesOf(payment, {}, await records.requiredRelated(payment)), dana.body.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const anonymous = await api.get<Page>(records.path('Payment'));
    expect(anonymous.body.total).toBe(1);
    expect((await api.patch(`${records.path('Payment')}/${created.body.id}`, { amount: 2 })).status).toBe(403);
  }, 180_000);
});
