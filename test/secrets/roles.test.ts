// Who may change configuration (DESIGN §10, §11): viewers read, editors write variables but never
// secrets, admins write secrets; a refused write answers 403 naming the role and changes nothing.
// A builder scoped to another project gets 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { addBuilder, type TestBuilder } from '../access/builders-support.ts';

describe.each(await availableDrivers())('roles on variables and secrets, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let appId: string;
  let viewer: TestBuilder;
  let editor: TestBuilder;
  let admin: TestBuilder;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Roles');
    appId = (await createTodoApp(tenant)).id;
    [viewer, editor, admin] = await Promise.all([addBuilder(tenant.api, 'viewer'), addBuilder(tenant.api, 'editor'), addBuilder(tenant.api, 'admin')]);
    expect((await tenant.api.request('PUT', `/v1/applications/${appId}/secrets/KEY`, { body: { value: 'original' } })).status).toBe(201);
  }, 120_000);
  afterAll(async () => t?.close());

  const owners = () => [`/v1/applications/${appId}`, `/v1/projects/${tenant.projectId}`];

  it('viewers read both kinds and write neither', async () => {
    for (const owner of owners()) {
      expect((await viewer.api.get(`${owner}/variables`)).status).toBe(200);
      expect((await viewer.api.get(`${owner}/secrets`)).status).toBe(200);
      for (const kind of ['variables', 'secrets']) {
        const put = await viewer.api.request<{ detail: string }>('PUT', `${owner}/${kind}/BY_VIEWER`, { body: { value: 'x' } });
        expect(put.status, `${owner}/${kind}`).toBe(403);
        expect((await viewer.api.request('DELETE', `${owner}/${kind}/KEY`)).status).toBe(403);
      }
    }
  });

  it('editors write variables but not secrets', async () => {
    for (const owner of owners()) {
      expect((await editor.api.request('PUT', `${owner}/variables/BY_EDITOR`, { body: { value: 'x' } })).status).toBe(201);
      expect((await editor.api.request('DELETE', `${owner}/variables/BY_EDITOR`)).status).toBe(204);
      const put = await editor.api.request<{ detail: string }>('PUT', `${owner}/secrets/BY_EDITOR`, { body: { value: 'x' } });
      expect(put.status).toBe(403);
      expect(put.body.detail).toContain('admin');
    }
    expect((await editor.api.request('DELETE', `/v1/applications/${appId}/secrets/KEY`)).status).toBe(403);
    expect((await editor.api.request('PUT', `/v1/applications/${appId}/secrets/KEY`, { body: { value: 'changed' } })).status).toBe(403);
    // Nothing changed: still version 1, and no secret BY_EDITOR.
    expect((await tenant.api.get<{ version: number }>(`/v1/applications/${appId}/secrets/KEY`)).body.version).toBe(1);
    expect((await tenant.api.get(`/v1/applications/${appId}/secrets/BY_EDITOR`)).status).toBe(404);
  });

  it('admins write secrets', async () => {
    const put = await admin.api.request<{ version: number; updatedBy: { type: string; id: string } }>('PUT', `/v1/applications/${appId}/secrets/KEY`, { body: { value: 'by admin' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ version: 2, updatedBy: { type: 'builder', id: admin.id } });
    expect((await admin.api.request('DELETE', `/v1/projects/${tenant.projectId}/secrets/NONE`)).status).toBe(404);
  });

  it('a builder scoped to another project gets 404', async () => {
    const other = await tenant.api.post<{ id: string }>('/v1/projects', { name: 'Elsewhere' });
    const scoped = await addBuilder(tenant.api, 'admin', [other.body.id]);
    expect((await scoped.api.get(`/v1/applications/${appId}/variables`)).status).toBe(404);
    expect((await scoped.api.request('PUT', `/v1/projects/${tenant.projectId}/secrets/X`, { body: { value: 'x' } })).status).toBe(404);
    expect((await scoped.api.request('PUT', `/v1/projects/${other.body.id}/variables/X`, { body: { value: 'x' } })).status).toBe(201);
  });
});
