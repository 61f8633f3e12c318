import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';

const drivers = await availableDrivers();
type Problem = { status: number; errors: Array<{ path: string; message: string }> };

describe.each(drivers)('editing endpoints (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Editors');
  });
  afterAll(() => t?.close());

  const versionsOf = async (appId: string) =>
    (await tenant.api.get<{ items: Array<{ serverVersion: string }>; metadata: { total: number } }>(`/v1/applications/${appId}/versions`)).body;

  it('1 updateModel renames a model and changes its rules (200, whole Application, one new version)', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.patch<AppReply>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, {
      name: 'Task',
      accessControl: { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(app.id);
    expect(reply.body.scode.models[0]).toMatchObject({ name: 'Task', accessControl: { rules: [{ criteria: 'auth != null' }] } });
    expect(reply.body.serverVersion).toBe('2.0.0'); // a rename changes the API: major
    expect((await versionsOf(app.id)).metadata.total).toBe(2);
  });

  it('1 updateModel answers 409 when the name is taken, and nothing changes', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.patch<Problem>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { name: 'User' });
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body.errors.map((e) => e.path).join()).toMatch(/\/models\/[01]\/name/);
    expect((await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body).toEqual(app);
    expect((await versionsOf(app.id)).metadata.total).toBe(1);
  });

  it('validates path parameters by their prefixes and answers 404 for unknown ids', async () => {
    const app = await createTodoApp(tenant);
    const wrongPrefix = await tenant.api.patch<Problem>(`/v1/applications/${app.id}/models/todo`, { name: 'X' });
    expect(wrongPrefix.status).toBe(400);
    expect(wrongPrefix.body.errors[0].path).toBe('/modelId');
    const wrongField = await tenant.api.patch(`/v1/applications/${app.id}/models/urn:svc:model:todo/fields/urn:svc:model:x`, { name: 'x' });
    expect(wrongField.status).toBe(400);
    const wrongApp = await tenant.api.patch(`/v1/applications/not-a-uuid/models/urn:svc:model:todo`, { name: 'X' });
    expect(wrongApp.status).toBe(400);
    const unknownModel = await tenant.api.patch<Problem>(`/v1/applications/${app.id}/models/urn:svc:model:nobody`, { name: 'X' });
    expect(unknownModel.status).toBe(404);
    const unknownField = await tenant.api.patch(`/v1/applications/${app.id}/models/urn:svc:model:todo/fields/urn:svc:edge:nobody`, { name: 'x' });
    expect(unknownField.status).toBe(404);
    const unknownAction = await tenant.api.post(`/v1/applications/${app.id}/actions/urn:svc:action:nobody/effects`, []);
    expect(unknownAction.status).toBe(404);
    const unknownApp = await tenant.api.patch(`/v1/applications/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/models/urn:svc:model:todo`, { name: 'X' });
    expect(unknownApp.status).toBe(404);
  });

  it('2 updates a field with any subset of its members, and refuses an enum its default violates', async () => {
    const app = await createTodoApp(tenant);
    const path = `/v1/applications/${app.id}/models/urn:svc:model:todo/fields/urn:svc:edge:todo-status`;
    const ok = await tenant.api.patch<AppReply>(path, { enum: ['open', 'done', 'archived'] });
    expect(ok.status).toBe(200);
    expect(ok.body.scode.models[0].fields[3]).toMatchObject({ enum: ['open', 'done', 'archived'], defaultValue: 'open' });
    expect(ok.body.serverVersion).toBe('1.1.0'); // enum only grows: minor
    const bad = await tenant.api.patch<Problem>(path, { enum: ['done', 'archived'] });
    expect(bad.status).toBe(409);
    expect(bad.body.errors.map((e) => e.path)).toContain('/models/0/fields/3/defaultValue');
    const after = await tenant.api.get<AppReply>(`/v1/applications/${app.id}`);
    expect(after.body.scode.models[0].fields[3].enum).toEqual(['open', 'done', 'archived']);
  });

  it('2 refuses a change that breaks a relationship pair', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.patch<Problem>(
      `/v1/applications/${app.id}/models/urn:svc:model:user/fields/urn:svc:edge:user-todos`,
      { relationshipOwner: false },
    );
    expect(reply.status).toBe(409);
    expect(reply.body.errors.length).toBeGreaterThan(0);
    expect((await versionsOf(app.id)).metadata.total).toBe(1);
  });

  it('3 adds an action and refuses duplicate ids and dangling references', async () => {
    const app = await createTodoApp(tenant);
    const action = {
      id: 'urn:svc:action:count-todos',
      startEffectId: 'count',
      effects: [{ actionEffectId: 'count', effect: 'data.count', params: { model: 'ToDo' } }],
      bindReturnValue: 'results.count',
    };
    const ok = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/actions`, action);
    expect(ok.status).toBe(200);
    expect(ok.body.scode.actions.map((a: { id: string }) => a.id)).toContain('urn:svc:action:count-todos');
    const duplicate = await tenant.api.post<Problem>(`/v1/applications/${app.id}/actions`, action);
    expect(duplicate.status).toBe(409);
    const dangling = await tenant.api.post<Problem>(`/v1/applications/${app.id}/actions`, {
      ...action,
      id: 'urn:svc:action:dangling',
      effects: [{ ...action.effects[0], next: 'nowhere' }],
    });
    expect(dangling.status).toBe(409);
    expect(dangling.body.errors.map((e) => e.path)).toContain('/actions/3/effects/0/next');
    const unknownEffect = await tenant.api.post<Problem>(`/v1/applications/${app.id}/actions`, {
      ...action,
      id: 'urn:svc:action:unknown-effect',
      effects: [{ actionEffectId: 'count', effect: 'data.teleport', params: {} }],
    });
    expect(unknownEffect.status).toBe(409);
    expect((await versionsOf(app.id)).metadata.total).toBe(2);
  });

  it('4 inserts, updates, moves and deletes effects; a bad list changes nothing', async () => {
    const app = await createTodoApp(tenant);
    const path = `/v1/applications/${app.id}/actions/urn:svc:action:complete-todo/effects`;
    const log = { actionEffectId: 'log', effect: 'flow.set', params: { name: 'seen', value: 'true' } };
    const inserted = await tenant.api.post<AppReply>(path, [{ index: 1, effect: log, modification: 'insert' }]);
    expect(inserted.status).toBe(200);
    const ids = (r: AppReply) => r.scode.actions[0].effects.map((e: { actionEffectId: string }) => e.actionEffectId);
    expect(ids(inserted.body)).toEqual(['load', 'log', 'check', 'save', 'forbidden']);
    const moved = await tenant.api.post<AppReply>(path, [
      { index: 1, modification: 'move', toIndex: 4 },
      { index: 4, modification: 'update', effect: { ...log, params: { name: 'seen', value: 'false' } } },
    ]);
    expect(moved.status).toBe(200);
    expect(ids(moved.body)).toEqual(['load', 'check', 'save', 'forbidden', 'log']);
    expect(moved.body.scode.actions[0].effects[4].params?.value).toBe('false');
    const before = (await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body;
    const atomic = await tenant.api.post<Problem>(path, [
      { index: 4, modification: 'delete' },
      { index: 99, modification: 'delete' },
    ]);
    expect(atomic.status).toBe(409);
    expect(atomic.body.errors[0].path).toMatch(/^\/1/);
    expect((await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body).toEqual(before);
  });

  it('5 lists versions newest first with paging, reads one, diffs two and restores one', async () => {
    const app = await createTodoApp(tenant);
    await tenant.api.patch(`/v1/applications/${app.id}/models/urn:svc:model:todo/fields/urn:svc:edge:todo-title`, { name: 'headline' });
    await tenant.api.put(`/v1/applications/${app.id}/personas`, [{ name: 'Member' }]);
    const list = await versionsOf(app.id);
    expect(list.metadata.total).toBe(3);
    expect(list.items.map((v) => v.serverVersion)).toEqual(['2.0.1', '2.0.0', '1.0.1']);
    const full = await tenant.api.get<{ items: Array<Record<string, unknown>> }>(`/v1/applications/${app.id}/versions?limit=1&offset=1`);
    expect(full.body.items).toHaveLength(1);
    expect(Object.keys(full.body.items[0]).sort()).toEqual(['applicationId', 'createdAt', 'createdBy', 'id', 'scode', 'serverVersion', 'updatedAt']);
    expect(full.body.items[0].serverVersion).toBe('2.0.0');

    const one = await tenant.api.get<{ scode: AppReply['scode'] }>(`/v1/applications/${app.id}/versions/1.0.1`);
    expect(one.body.scode.models[0].fields[0].name).toBe('title');
    expect((await tenant.api.get(`/v1/applications/${app.id}/versions/9.9.9`)).status).toBe(404);

    const diff = await tenant.api.get<{ changes: Array<{ kind: string; summary: string }> }>(`/v1/applications/${app.id}/versions/1.0.1/diff/2.0.0`);
    expect(diff.status).toBe(200);
    expect(diff.body.changes.map((c) => c.summary).join('\n')).toMatch(/title.*headline|headline/);

    const restored = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/versions/1.0.1/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.scode).toEqual(one.body.scode);
    expect(restored.body.serverVersion).toBe('3.0.0');
    expect((await versionsOf(app.id)).metadata.total).toBe(4);
  });

  it('refuses a stale If-Match with 412 and changes nothing', async () => {
    const app = await createTodoApp(tenant);
    const path = `/v1/applications/${app.id}/models/urn:svc:model:todo`;
    const fresh = await tenant.api.patch<AppReply>(path, { name: 'Task' }, { 'if-match': `"${app.serverVersion}"` });
    expect(fresh.status).toBe(200);
    const stale = await tenant.api.patch(path, { name: 'Chore' }, { 'if-match': `"${app.serverVersion}"` });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toContain('application/problem+json');
    const after = await tenant.api.get<AppReply>(`/v1/applications/${app.id}`);
    expect(after.body.scode.models[0].name).toBe('Task');
    expect((await versionsOf(app.id)).metadata.total).toBe(2);
  });

  it('replaces an action and a trigger over HTTP; wrong prefixes are 400, unknown ids 404, a changed id 400', async () => {
    const app = await createTodoApp(tenant);
    const base = `/v1/applications/${app.id}`;
    const welcome = app.scode.actions[1];
    const { id: _id, ...rest } = welcome;
    const replacement = {
      ...rest,
      effects: [{ ...welcome.effects[0], params: { ...welcome.effects[0].params, values: { title: 'Hello!', status: 'open' } } }],
    };
    const updated = await tenant.api.put<AppReply>(`${base}/actions/urn:svc:action:welcome`, replacement);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.scode.actions[1]).toEqual({ id: 'urn:svc:action:welcome', ...replacement });
    expect(updated.body.scode.actions[0]).toEqual(app.scode.actions[0]);
    expect(updated.body.serverVersion).toBe('1.0.2'); // an action changed: patch

    const trigger = structuredClone(app.scode.triggers[0]);
    trigger.validation = ['auth != null', "request.params.id != ''"];
    trigger.isPublic = true;
    const replacedTrigger = await tenant.api.put<AppReply>(`${base}/triggers/urn:svc:trigger:complete-todo`, trigger);
    expect(replacedTrigger.status, replacedTrigger.text).toBe(200);
    expect(replacedTrigger.body.scode.triggers[0]).toEqual(trigger);
    expect(replacedTrigger.body.serverVersion).toBe('1.1.0'); // an HTTP trigger becomes public: minor
    const after = replacedTrigger.body;

    const refused: Array<[string, string, unknown, number, string?]> = [
      // wrong prefixes of the path parameter: 400 naming it
      ['PUT', `${base}/actions/complete-todo`, replacement, 400, '/actionId'],
      ['PUT', `${base}/actions/urn:svc:model:todo`, replacement, 400, '/actionId'],
      ['DELETE', `${base}/actions/urn:svc:trigger:complete-todo`, undefined, 400, '/actionId'],
      ['POST', `${base}/actions/action:welcome/effects`, [], 400, '/actionId'],
      ['PUT', `${base}/triggers/urn:svc:action:welcome`, trigger, 400, '/triggerId'],
      ['DELETE', `${base}/triggers/complete-todo`, undefined, 400, '/triggerId'],
      // unknown ids: 404
      ['PUT', `${base}/actions/urn:svc:action:nobody`, replacement, 404],
      ['DELETE', `${base}/actions/urn:svc:action:nobody`, undefined, 404],
      ['PUT', `${base}/triggers/urn:svc:trigger:nobody`, { ...trigger, trigger: { ...trigger.trigger, id: 'urn:svc:trigger:nobody' } }, 404],
      ['DELETE', `${base}/triggers/urn:svc:trigger:nobody`, undefined, 404],
      // a body that renames what the path names: 400
      ['PUT', `${base}/actions/urn:svc:action:welcome`, { ...replacement, id: 'urn:svc:action:hello' }, 400, '/id'],
      ['PUT', `${base}/triggers/urn:svc:trigger:complete-todo`, { ...trigger, trigger: { ...trigger.trigger, id: 'urn:svc:trigger:x' } }, 400, '/trigger/id'],
    ];
    for (const [method, path, body, status, pointer] of refused) {
      const reply = await tenant.api.request<Problem>(method, path, { body });
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(status);
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
      if (pointer) expect(reply.body.errors.map((e) => e.path), `${method} ${path}`).toContain(pointer);
    }
    expect((await tenant.api.get<AppReply>(base)).body).toEqual(after);
    expect((await versionsOf(app.id)).metadata.total).toBe(3);
  });

  it('replaces appDraft and domainModel over HTTP (patch), and refuses a malformed one with 400', async () => {
    const app = await createTodoApp(tenant);
    const base = `/v1/applications/${app.id}`;
    const draft = {
      sitemap: { nodes: [{ id: 'home', route: '/', content: [{ title: 'Tasks', description: 'All tasks.' }] }], edges: [] },
      requirements: [],
    };
    const drafted = await tenant.api.put<AppReply>(`${base}/appDraft`, draft);
    expect(drafted.status, drafted.text).toBe(200);
    expect(drafted.body.scode.appDraft).toEqual(draft);
    expect(drafted.body.serverVersion).toBe('1.0.2');

    const domainModel = {
      models: [{ name: 'Task', isUserModel: false, fields: [{ name: 'title', type: 'string' }], requirements: [] }],
    };
    const modelled = await tenant.api.put<AppReply>(`${base}/domainModel`, domainModel);
    expect(modelled.status, modelled.text).toBe(200);
    expect(modelled.body.scode.domainModel).toEqual(domainModel);
    expect(modelled.body.serverVersion).toBe('1.0.3');
    // Only the section changed.
    expect({ ...modelled.body.scode, appDraft: app.scode.appDraft, domainModel: app.scode.domainModel }).toEqual(app.scode);

    const cleared = await tenant.api.put<AppReply>(`${base}/domainModel`, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.scode.domainModel).toBeNull();

    const malformed = await tenant.api.put<Problem>(`${base}/appDraft`, { sitemap: 'home' });
    expect(malformed.status).toBe(400);
    expect((await versionsOf(app.id)).metadata.total).toBe(4);
  });

  it('creates and deletes models, fields with partners, triggers; replaces sections', async () => {
    const app = await createTodoApp(tenant);
    const base = `/v1/applications/${app.id}`;
    const model = await tenant.api.post<AppReply>(`${base}/models`, { name: 'Tag', fields: [{ name: 'label', to: 'p_TEXT', min: 1 }] });
    expect(model.status).toBe(200);
    const tag = model.body.scode.models.find((m) => m.name === 'Tag')!;
    expect(tag).toBeDefined();
    const link = await tenant.api.post<AppReply>(`${base}/models/${tag.id}/fields`, {
      name: 'todos',
      to: 'urn:svc:model:todo',
      min: 0,
      max: null,
      partner: { name: 'tags', min: 0, max: null },
    });
    expect(link.status, link.text).toBe(200);
    const todoModel = link.body.scode.models.find((m) => m.name === 'ToDo')!;
    const partner = todoModel.fields.find((f) => f.name === 'tags')!;
    expect(partner).toMatchObject({ to: tag.id, max: null });
    const unlinked = await tenant.api.delete<AppReply>(`${base}/models/urn:svc:model:todo/fields/${partner.id}`);
    expect(unlinked.status).toBe(200);
    const todoAfter = unlinked.body.scode.models.find((m) => m.name === 'ToDo')!;
    expect(todoAfter.fields.find((f) => f.name === 'tags')).toBeUndefined();
    expect(unlinked.body.scode.models.find((m) => m.name === 'Tag')!.fields.map((f) => f.name)).toEqual(['label']);
    const dropped = await tenant.api.delete(`${base}/models/${tag.id}`);
    expect(dropped.status, dropped.text).toBe(200);

    const trigger = {
      trigger: { id: 'urn:svc:trigger:todo-updated', type: 'event', eventName: 'ToDo.updated', payload: {} },
      actionId: 'urn:svc:action:welcome',
      initialState: {},
      validation: [],
    };
    const added = await tenant.api.post(`${base}/triggers`, trigger);
    expect(added.status, added.text).toBe(200);
    const dup = await tenant.api.post<Problem>(`${base}/triggers`, trigger);
    expect(dup.status).toBe(409);
    const clash = await tenant.api.post<Problem>(`${base}/triggers`, {
      trigger: { id: 'urn:svc:trigger:clash', type: 'http', method: 'POST', path: '/toDos/:todo/complete' },
      actionId: 'urn:svc:action:complete-todo',
      initialState: {},
      validation: [],
    });
    expect(clash.status).toBe(409);
    const removed = await tenant.api.delete(`${base}/triggers/urn:svc:trigger:todo-updated`);
    expect(removed.status, removed.text).toBe(200);
    const inUse = await tenant.api.delete<Problem>(`${base}/actions/urn:svc:action:welcome`);
    expect(inUse.status).toBe(409);

    const overview = await tenant.api.put<AppReply>(`${base}/appOverview`, null);
    expect(overview.status).toBe(200);
    expect(overview.body.scode.appOverview).toBeNull();
    const reqs = await tenant.api.put<Problem>(`${base}/requirements`, [{ id: 'no-prefix' }]);
    expect(reqs.status).toBe(400);
  });
});
