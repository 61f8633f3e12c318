// `Prefer: return=minimal` (RFC 7240) on the edit routes: 204 without a body, the new version in
// `ETag` and `serverVersion`, `Preference-Applied`; the ETag works as the next `If-Match`; without
// the preference the answer stays the whole Application (the spec's answer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';

const drivers = await availableDrivers();
const MINIMAL = { prefer: 'return=minimal' };

describe.each(drivers)('Prefer: return=minimal (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Minimal');
  }, 60_000);
  afterAll(() => t?.close());

  const current = async (appId: string) => (await tenant.api.get<AppReply>(`/v1/applications/${appId}`)).body;

  it('answers 204 with ETag, serverVersion and Preference-Applied; the ETag is the next If-Match', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.patch(`/v1/applications/${app.id}/models/urn:svc:model:todo/fields/urn:svc:edge:todo-title`, { name: 'heading' }, MINIMAL);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    const now = await current(app.id);
    expect(now.serverVersion).not.toBe(app.serverVersion);
    expect(reply.headers.get('etag')).toBe(`"${now.serverVersion}"`);
    expect(reply.headers.get('serverversion')).toBe(now.serverVersion);
    expect(reply.headers.get('preference-applied')).toBe('return=minimal');
    expect(now.scode.models[0].fields.find((f) => f.id === 'urn:svc:edge:todo-title')?.name).toBe('heading');

    // The ETag as If-Match: accepted; the one before it: 412, nothing changed.
    const next = await tenant.api.patch(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { name: 'Task' }, { ...MINIMAL, 'if-match': reply.headers.get('etag')! });
    expect(next.status).toBe(204);
    const stale = await tenant.api.patch<{ status: number }>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { name: 'Job' }, { ...MINIMAL, 'if-match': reply.headers.get('etag')! });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    expect((await current(app.id)).serverVersion).toBe(next.headers.get('serverversion'));
  });

  it('applies to every edit route; without the preference the answer is the whole Application with its ETag', async () => {
    const app = await createTodoApp(tenant);
    const base = `/v1/applications/${app.id}`;
    const action = { id: 'urn:svc:action:noop', effects: [{ actionEffectId: 'start', effect: 'flow.set', params: { name: 'x', value: 1 } }], startEffectId: 'start' };
    const edits: Array<[string, string, unknown]> = [
      ['POST', `${base}/models`, { name: 'Tag' }],
      ['POST', `${base}/models/urn:svc:model:todo/fields`, { name: 'priority', to: 'p_NUMBER' }],
      ['POST', `${base}/actions`, action],
      ['PUT', `${base}/personas`, []],
      ['PUT', `${base}/scode`, (await current(app.id)).scode],
    ];
    for (const [method, path, body] of edits) {
      const before = (await current(app.id)).serverVersion;
      const reply = await tenant.api.request(method, path, { body, headers: MINIMAL });
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(204);
      const after = (await current(app.id)).serverVersion;
      expect(reply.headers.get('serverversion')).toBe(after);
      expect(after).not.toBe(before);
    }
    const restored = await tenant.api.request('POST', `${base}/versions/${app.serverVersion}/restore`, { headers: MINIMAL });
    expect(restored.status).toBe(204);
    expect(restored.headers.get('etag')).toBe(`"${(await current(app.id)).serverVersion}"`);

    const full = await tenant.api.patch<AppReply>(`${base}/models/urn:svc:model:todo`, { name: 'Chore' }, { prefer: 'return=representation' });
    expect(full.status).toBe(200);
    expect(full.body.scode.models[0].name).toBe('Chore');
    expect(full.headers.get('etag')).toBe(`"${full.body.serverVersion}"`);
    expect(full.headers.get('preference-applied')).toBeNull();
  });

  it('a refused edit with the preference is the same problem as without it, and changes nothing', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.patch<{ status: number; errors: Array<{ path: string }> }>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { name: 'User' }, MINIMAL);
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body.errors.map((e) => e.path).join()).toMatch(/\/models\/[01]\/name/);
    expect(await current(app.id)).toEqual(app);
  });
});
