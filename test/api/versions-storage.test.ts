// Versions stored by difference (migration 017): after many edits, every version read back
// (through the API, and through the `application_versions` view other services read) equals the
// definition that was saved, byte for byte after canonical JSON; an edit stores new blobs only
// for what it changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { canonicalJson } from '../../src/definition/versioning/stored-form.ts';
import { fieldIdOf, largeScode, modelIdOf } from '../definition/incremental-app.ts';

const drivers = await availableDrivers();
type Version = { id: string; serverVersion: string; scode: Record<string, unknown> };

describe.each(drivers)('versions stored by difference (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Versions');
  }, 60_000);
  afterAll(() => t?.close());

  const blobCount = async (appId: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from appbuilder.version_blobs where application_id = ${appId}`.execute(t.platform.db.kysely)).rows[0].n;

  it('reads back every saved definition exactly, and an edit adds blobs for what it changed only', async () => {
    const created = await tenant.api.post<AppReply>('/v1/applications', { projectId: tenant.projectId, name: 'Many', scode: largeScode(150) });
    expect(created.status).toBe(201);
    const appId = created.body.id;
    const saved = new Map<string, string>([[created.body.serverVersion!, canonicalJson(created.body.scode)]]);
    const blobsAfterCreate = await blobCount(appId);
    expect(blobsAfterCreate).toBeGreaterThan(150);

    // A rename adds the model, its chunk: a handful of blobs, whatever the app's size.
    const before = await blobCount(appId);
    const renamed = await tenant.api.patch<AppReply>(`/v1/applications/${appId}/models/${modelIdOf(7)}/fields/${fieldIdOf(7, 'f1')}`, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    saved.set(renamed.body.serverVersion!, canonicalJson(renamed.body.scode));
    expect((await blobCount(appId)) - before).toBeLessThanOrEqual(3);

    const edits: Array<() => Promise<AppReply | undefined>> = [];
    for (let k = 0; k < 6; k++) {
      const i = (k * 37) % 140;
      edits.push(async () => (await tenant.api.patch<AppReply>(`/v1/applications/${appId}/models/${modelIdOf(i)}/fields/${fieldIdOf(i, 'f3')}`, { name: `d${k}` })).body);
      edits.push(async () => (await tenant.api.post<AppReply>(`/v1/applications/${appId}/models/${modelIdOf(i)}/fields`, { name: `extra${k}`, to: 'p_TEXT' })).body);
    }
    edits.push(async () => (await tenant.api.delete<AppReply>(`/v1/applications/${appId}/models/${modelIdOf(140)}/fields/${fieldIdOf(140, 'f4')}`)).body);
    edits.push(async () => (await tenant.api.patch<AppReply>(`/v1/applications/${appId}/models/${modelIdOf(99)}`, { name: 'Renamed99' })).body);
    for (const edit of edits) {
      const app = await edit();
      expect(app?.serverVersion, JSON.stringify(app).slice(0, 300)).toBeTruthy();
      saved.set(app!.serverVersion!, canonicalJson(app!.scode));
    }
    // Restoring the first version shares every blob it had.
    const first = created.body.serverVersion!;
    const blobsBeforeRestore = await blobCount(appId);
    const restored = await tenant.api.post<AppReply>(`/v1/applications/${appId}/versions/${first}/restore`);
    expect(restored.status).toBe(200);
    saved.set(restored.body.serverVersion!, canonicalJson(restored.body.scode));
    expect(await blobCount(appId)).toBe(blobsBeforeRestore);
    expect(canonicalJson(restored.body.scode)).toBe(saved.get(first));

    const list = await tenant.api.get<{ items: Version[]; metadata: { total: number } }>(`/v1/applications/${appId}/versions?limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.metadata.total).toBe(saved.size);
    const listed = new Map(list.body.items.map((v) => [v.serverVersion, v]));
    for (const [serverVersion, json] of saved) {
      const one = await tenant.api.get<Version>(`/v1/applications/${appId}/versions/${serverVersion}`);
      expect(one.status).toBe(200);
      expect(canonicalJson(one.body.scode)).toBe(json);
      if (listed.has(serverVersion)) expect(canonicalJson(listed.get(serverVersion)!.scode)).toBe(json);
      const byId = await tenant.api.get<Version>(`/v1/applications/${appId}/versions/${one.body.id}`);
      expect(byId.status).toBe(200);
      expect(byId.body.serverVersion).toBe(serverVersion);
      // The view the deployment, registry and purge code read rebuilds the same definition in SQL.
      const viewed = await sql<{ scode: unknown }>`select scode from appbuilder.application_versions where application_id = ${appId} and server_version = ${serverVersion}`.execute(t.platform.db.kysely);
      expect(canonicalJson(viewed.rows[0].scode)).toBe(json);
    }
  }, 180_000);

  it('fields= lists versions without definitions; unknown members are a 400 naming them', async () => {
    const created = await tenant.api.post<AppReply>('/v1/applications', { projectId: tenant.projectId, name: 'Fields', scode: largeScode(20) });
    const appId = created.body.id;
    await tenant.api.patch(`/v1/applications/${appId}/models/${modelIdOf(3)}`, { name: 'Renamed' });
    const narrow = await tenant.api.get<{ items: Array<Record<string, unknown>>; metadata: { total: number } }>(`/v1/applications/${appId}/versions?fields=serverVersion,createdAt`);
    expect(narrow.status).toBe(200);
    expect(narrow.body.metadata.total).toBe(2);
    for (const item of narrow.body.items) expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'serverVersion']);
    expect(narrow.text.length).toBeLessThan(1000);

    const bad = await tenant.api.get<{ status: number; errors: Array<{ path: string; message: string }> }>(`/v1/applications/${appId}/versions?fields=serverVersion,definition`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.errors).toEqual([{ path: '/fields', message: expect.stringContaining("'definition'") }]);

    const full = await tenant.api.get<{ items: Version[] }>(`/v1/applications/${appId}/versions`);
    expect(full.body.items[0].scode).toBeTruthy();
    expect(Object.keys(full.body.items[0]).sort()).toEqual(['applicationId', 'createdAt', 'createdBy', 'id', 'scode', 'serverVersion', 'updatedAt']);
  }, 60_000);

  it('one version: 404 problem for an unknown id or serverVersion, and for another tenant', async () => {
    const created = await tenant.api.post<AppReply>('/v1/applications', { projectId: tenant.projectId, name: 'One', scode: largeScode(5) });
    const appId = created.body.id;
    const unknownId = await tenant.api.get<{ errors: Array<{ path: string }> }>(`/v1/applications/${appId}/versions/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`);
    expect(unknownId.status).toBe(404);
    expect(unknownId.headers.get('content-type')).toContain('application/problem+json');
    expect(unknownId.body.errors[0].path).toBe('/versionId');
    expect((await tenant.api.get(`/v1/applications/${appId}/versions/9.9.9`)).status).toBe(404);
    expect((await tenant.api.get(`/v1/applications/${appId}/versions/not-a-version`)).status).toBe(400);
    const other = await createTenant(t, 'Other versions');
    const mine = await tenant.api.get<{ items: Version[] }>(`/v1/applications/${appId}/versions?fields=id`);
    expect((await other.api.get(`/v1/applications/${appId}/versions/${mine.body.items[0].id}`)).status).toBe(404);
  }, 60_000);
});
