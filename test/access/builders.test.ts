/**
 * Builders and their tokens (DESIGN §10) over real HTTP: CRUD with the email unique per
 * customer, tokens shown once and stored only as SHA-256 hashes (the table is read), expiry,
 * revocation, deactivation and deletion refused on the next request, another customer's key
 * refused, and a scoped builder's lists filtered with exact totals.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { addBuilder, tokenFor } from './builders-support.ts';

const drivers = await availableDrivers();

describe.each(drivers)('builders (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Builders A');
    b = await createTenant(t, 'Builders B');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, reads, changes and deletes builders; the email is unique per customer (409)', async () => {
    const created = await a.api.post<Record<string, unknown>>('/v1/builders', { name: 'Ada', email: 'ada@example.com', role: 'editor' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Ada', email: 'ada@example.com', role: 'editor', projectIds: null, isActive: true, lastActiveAt: null });
    const id = created.body.id as string;

    const again = await a.api.post('/v1/builders', { name: 'Ada 2', email: 'ADA@example.com', role: 'viewer' });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(again.text).toContain('/email');
    // Another customer may use the same address.
    expect((await b.api.post('/v1/builders', { name: 'Ada', email: 'ada@example.com', role: 'viewer' })).status).toBe(201);

    const bad = await a.api.post('/v1/builders', { name: 'X', email: 'x@example.com', role: 'superuser' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('/role');
    const foreignProject = await a.api.post('/v1/builders', { name: 'X', email: 'x@example.com', role: 'viewer', projectIds: [b.projectId] });
    expect(foreignProject.status).toBe(404);
    expect(foreignProject.text).toContain('/projectIds/0');

    const patched = await a.api.patch<Record<string, unknown>>(`/v1/builders/${id}`, { role: 'admin', projectIds: [a.projectId] });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ role: 'admin', projectIds: [a.projectId] });
    expect((await a.api.get<Record<string, unknown>>(`/v1/builders/${id}`)).body).toMatchObject({ role: 'admin', projectIds: [a.projectId] });

    const list = await a.api.get<{ items: Array<{ id: string }>; metadata: { total: number } }>('/v1/builders');
    expect(list.body.items.map((x) => x.id)).toContain(id);
    expect(list.body.metadata.total).toBe(list.body.items.length);
    // Another customer's builder is not found.
    expect((await b.api.get(`/v1/builders/${id}`)).status).toBe(404);
    expect((await b.api.delete(`/v1/builders/${id}`)).status).toBe(404);

    expect((await a.api.delete(`/v1/builders/${id}`)).status).toBe(204);
    expect((await a.api.get(`/v1/builders/${id}`)).status).toBe(404);
  });

  it('stores only the SHA-256 hash of a token; the secret is shown once', async () => {
    const builder = await addBuilder(a.api, 'viewer');
    expect(builder.token).toMatch(/^abt_[A-Za-z0-9_-]{43}$/);
    const rows = await sql<Record<string, unknown>>`select * from appbuilder.builder_tokens where builder_id = ${builder.id}`.execute(t.database.db.kysely);
    expect(rows.rows).toHaveLength(1);
    const stored = JSON.stringify(rows.rows);
    expect(stored).not.toContain(builder.token);
    expect(stored).not.toContain(builder.token.slice(4));
    expect(rows.rows[0].token_hash).toBe(createHash('sha256').update(builder.token).digest('hex'));
    // Nowhere else in the control plane either.
    const everywhere = await sql<{ n: number }>`
      select count(*)::int as n from appbuilder.builders b where b::text like ${`%${builder.token.slice(4)}%`}`.execute(t.database.db.kysely);
    expect(everywhere.rows[0].n).toBe(0);
    const listed = await a.api.get(`/v1/builders/${builder.id}/tokens`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(builder.token);
    expect(listed.text).toContain(builder.tokenId);
  });

  it('acts as the builder, records its activity, and refuses revoked, expired, deactivated and deleted tokens at once', async () => {
    const builder = await addBuilder(a.api, 'viewer');
    expect((await builder.api.get('/v1/projects')).status).toBe(200);
    const seen = await a.api.get<{ lastActiveAt: string | null }>(`/v1/builders/${builder.id}`);
    expect(seen.body.lastActiveAt).not.toBeNull();
    const tokens = await a.api.get<{ items: Array<{ id: string; lastUsedAt: string | null }> }>(`/v1/builders/${builder.id}/tokens`);
    expect(tokens.body.items.find((x) => x.id === builder.tokenId)?.lastUsedAt).not.toBeNull();

    // With another customer's key: 401.
    const foreign = await builder.api.request('GET', '/v1/projects', { headers: { 'x-svc-api-client': b.api.apiKey! }, auth: false });
    expect(foreign.status).toBe(401);
    const withForeignKey = { authorization: `Bearer ${builder.token}`, 'x-svc-api-client': b.api.apiKey! };
    expect((await fetch(`${t.baseUrl}/v1/projects`, { headers: withForeignKey })).status).toBe(401);

    // Revoked.
    expect((await a.api.delete(`/v1/builders/${builder.id}/tokens/${builder.tokenId}`)).status).toBe(204);
    const revoked = await builder.api.get('/v1/projects');
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('content-type')).toContain('application/problem+json');
    const after = await a.api.get<{ items: Array<{ id: string; revokedAt: string | null }> }>(`/v1/builders/${builder.id}/tokens`);
    expect(after.body.items.find((x) => x.id === builder.tokenId)?.revokedAt).not.toBeNull();

    // Expired: a token whose expiry is moved into the past.
    const second = await tokenFor(a.api, builder.id, { name: 'ci', expiresIn: 3600 });
    expect((await second.api.get('/v1/projects')).status).toBe(200);
    await sql`update appbuilder.builder_tokens set expires_at = now() - interval '1 second' where id = ${second.tokenId}`.execute(t.database.db.kysely);
    const expired = await second.api.get('/v1/projects');
    expect(expired.status).toBe(401);
    expect(expired.text).toContain('expired');
    expect((await a.api.post(`/v1/builders/${builder.id}/tokens`, { expiresIn: 366 * 24 * 3600 })).status).toBe(400);

    // Deactivated, then active again, then deleted.
    const third = await tokenFor(a.api, builder.id);
    expect((await third.api.get('/v1/projects')).status).toBe(200);
    expect((await a.api.patch(`/v1/builders/${builder.id}`, { isActive: false })).status).toBe(200);
    expect((await third.api.get('/v1/projects')).status).toBe(401);
    expect((await a.api.patch(`/v1/builders/${builder.id}`, { isActive: true })).status).toBe(200);
    expect((await third.api.get('/v1/projects')).status).toBe(200);
    expect((await a.api.delete(`/v1/builders/${builder.id}`)).status).toBe(204);
    expect((await third.api.get('/v1/projects')).status).toBe(401);
    const left = await sql<{ n: number }>`select count(*)::int as n from appbuilder.builder_tokens where builder_id = ${builder.id}`.execute(t.database.db.kysely);
    expect(left.rows[0].n).toBe(0);
  });

  it("filters a scoped builder's lists in SQL, with exact totals", async () => {
    const extra: string[] = [];
    for (let i = 0; i < 3; i++) extra.push((await a.api.post<{ id: string }>('/v1/projects', { name: `Scoped ${i}` })).body.id);
    const inScope = [extra[0], extra[2]];
    const apps: string[] = [];
    for (const projectId of extra) apps.push((await createTodoApp({ api: a.api, projectId })).id);
    const scoped = await addBuilder(a.api, 'viewer', inScope);

    const projects = await scoped.api.get<{ items: Array<{ id: string }>; metadata: { total: number } }>('/v1/projects?limit=1');
    expect(projects.status).toBe(200);
    expect(projects.body.metadata.total).toBe(2);
    expect(projects.body.items).toHaveLength(1);
    const all = await scoped.api.get<{ items: Array<{ id: string }>; metadata: { total: number } }>('/v1/projects');
    expect(all.body.items.map((p) => p.id).sort()).toEqual([...inScope].sort());

    const applications = await scoped.api.get<{ items: Array<{ id: string }>; metadata: { total: number } }>('/v1/applications');
    expect(applications.body.metadata.total).toBe(2);
    expect(applications.body.items.map((x) => x.id).sort()).toEqual([apps[0], apps[2]].sort());
    expect((await scoped.api.get(`/v1/applications?projectId=${extra[1]}`)).status).toBe(404);
    expect((await scoped.api.get(`/v1/applications?projectId=${extra[0]}`)).status).toBe(200);
    expect((await scoped.api.get(`/v1/applications/${apps[1]}`)).status).toBe(404);
    expect((await scoped.api.get(`/v1/applications/${apps[0]}`)).status).toBe(200);
    expect((await scoped.api.get(`/v1/projects/${extra[1]}`)).status).toBe(404);

    // A scoped owner cannot lift its limit: no builders, tokens, API clients or audit trail.
    const scopedOwner = await addBuilder(a.api, 'owner', inScope);
    for (const [method, path, body] of [
      ['PATCH', `/v1/builders/${scopedOwner.id}`, { projectIds: null }],
      ['POST', '/v1/builders', { name: 'Escape', email: 'escape@example.com', role: 'owner' }],
      ['POST', `/v1/builders/${scopedOwner.id}/tokens`, {}],
      ['POST', '/v1/api-clients', {}],
      ['GET', '/v1/api-clients', undefined],
      ['GET', '/v1/audit-events', undefined],
    ] as const) {
      const reply = await scopedOwner.api.request(method, path, { body });
      expect(reply.status, `${method} ${path}`).toBe(403);
    }
    expect((await a.api.get<{ projectIds: string[] | null }>(`/v1/builders/${scopedOwner.id}`)).body.projectIds).toEqual(inScope);

    // A builder scoped to no project sees nothing.
    const none = await addBuilder(a.api, 'viewer', []);
    const empty = await none.api.get<{ items: unknown[]; metadata: { total: number } }>('/v1/projects');
    expect(empty.body).toEqual({ items: [], metadata: { total: 0 } });
  });
});
