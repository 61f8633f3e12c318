// Renaming a field and a model of an application that holds rows, through the editing endpoints,
// then publishing the new version beside the old one: the same rows answer under the old names at
// the old URL and under the new names at the new one; unpublishing the old version stops only it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type Rec } from './served-app.ts';

const TODO_MODEL = 'urn:svc:model:todo';
const TITLE = 'urn:svc:edge:todo-title';

describe.each(await availableDrivers())('versions served side by side on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let v1: ServedApi;
  let v2: ServedApi;
  let ann: { token: string; user: Rec };
  const rows: Rec[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Versions');
    app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    v1 = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await v1.signup('Ann', 'ann@example.test');
    for (let i = 0; i < 5; i++) {
      const created = await v1.post('/toDos', { title: `Task ${i}`, description: `about ${i}`, user: ann.user.id }, ann.token);
      expect(created.status).toBe(201);
      rows.push(created.body);
    }
  });
  afterAll(() => t?.close());

  it('renames a field and a model with the editing endpoints, each a new version', async () => {
    const field = await tenant.api.patch<AppReply>(`/v1/applications/${app.id}/models/${TODO_MODEL}/fields/${TITLE}`, { name: 'heading' });
    expect(field.status).toBe(200);
    expect(field.body.serverVersion).not.toBe(app.serverVersion);
    const model = await tenant.api.patch<AppReply>(`/v1/applications/${app.id}/models/${TODO_MODEL}`, { name: 'Task' });
    expect(model.status).toBe(200);
    const renamed = model.body.scode.models.find((m) => m.id === TODO_MODEL)!;
    expect(renamed.name).toBe('Task');
    expect(renamed.fields.find((f) => f.id === TITLE)!.name).toBe('heading');
    expect(model.body.serverVersion).not.toBe(field.body.serverVersion);
    v2 = new ServedApi(t, tenant, app.id, model.body.serverVersion);
    // Saved but not published: not served yet; the old version still is.
    expect((await v2.get('/tasks', 'admin')).status).toBe(404);
    expect((await v1.get('/toDos', 'admin')).status).toBe(200);
  });

  it('publishes the new version while the old stays published: the same rows under both sets of names', async () => {
    const published = await publish(tenant, app.id, v2.serverVersion);
    expect(published.isActive).toBe(true);

    const old = await v1.get<Page>('/toDos?sort=title', ann.token);
    expect(old.status).toBe(200);
    expect(old.body.total).toBe(5);
    old.body.items.forEach((item, i) => {
      expect(item).toMatchObject({ id: rows[i].id, title: `Task ${i}`, description: `about ${i}`, status: 'open' });
      expect(item).not.toHaveProperty('heading');
    });
    const fresh = await v2.get<Page>('/tasks?sort=heading', ann.token);
    expect(fresh.status).toBe(200);
    expect(fresh.body.total).toBe(5);
    fresh.body.items.forEach((item, i) => {
      expect(item).toMatchObject({ id: rows[i].id, heading: `Task ${i}`, description: `about ${i}`, status: 'open' });
      expect(item).not.toHaveProperty('title');
      expect((item.user as Rec).todos).toHaveLength(5);
    });
    const one = await v2.get(`/tasks/${rows[2].id}`, ann.token);
    expect(one.body).toMatchObject({ id: rows[2].id, heading: 'Task 2' });
    const user = await v2.get(`/users/${ann.user.id}`, ann.token);
    expect((user.body.todos as Rec[]).map((todo) => todo.heading).sort()).toEqual(rows.map((_, i) => `Task ${i}`));
    // Each version knows only its own names.
    expect((await v1.get('/tasks', ann.token)).status).toBe(404);
    expect((await v2.get('/toDos', ann.token)).status).toBe(404);
    expect((await v2.post('/tasks', { title: 'old name', user: ann.user.id }, ann.token)).status).toBe(422);
    expect((await v1.get<Page>(`/toDos?filter=${encodeURIComponent("record.heading == 'Task 1'")}`, ann.token)).status).toBe(400);
  });

  it('writes through either version land in the same rows', async () => {
    const made = await v2.post('/tasks', { heading: 'From v2', user: ann.user.id }, ann.token);
    expect(made.status).toBe(201);
    expect((await v1.get(`/toDos/${made.body.id}`, ann.token)).body).toMatchObject({ title: 'From v2', status: 'open' });
    expect((await v1.patch(`/toDos/${rows[0].id}`, { title: 'Changed in v1' }, ann.token)).status).toBe(200);
    expect((await v2.get(`/tasks/${rows[0].id}`, ann.token)).body.heading).toBe('Changed in v1');
    expect((await v2.delete(`/tasks/${made.body.id}`, ann.token)).status).toBe(204);
    expect((await v1.get(`/toDos/${made.body.id}`, ann.token)).status).toBe(404);
  });

  it('unpublishing the old version stops serving it; the new one is still served', async () => {
    const reply = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/unpublish`, { serverVersion: v1.serverVersion });
    expect(reply.status).toBe(200);
    expect(reply.body.isActive).toBe(true);
    expect(Date.parse(reply.body.lastUnpublishedAt!)).not.toBeNaN();
    expect((await v1.get('/toDos', ann.token)).status).toBe(404);
    expect((await v1.get(`/toDos/${rows[1].id}`, 'admin')).status).toBe(404);
    const still = await v2.get<Page>('/tasks', ann.token);
    expect(still.status).toBe(200);
    expect(still.body.total).toBe(5);
    expect(still.body.items.map((item) => item.id).sort()).toEqual(rows.map((row) => row.id).sort());

    const all = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/unpublish`, {});
    expect(all.status).toBe(200);
    expect(all.body.isActive).toBe(false);
    expect((await v2.get('/tasks', ann.token)).status).toBe(404);
  });
});
