import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField } from '../../src/definition/naming.ts';
import type { JobRecord } from '../../src/jobs/store.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { publishAndWait, tableColumns, versionPath } from './support.ts';

const TODO = 'urn:svc:model:todo';
const DESCRIPTION = 'urn:svc:edge:todo-description';

interface Problem {
  title: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe.each(await availableDrivers())('a type change that stored rows would not survive (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let v1: string;
  let v2: string;
  let todoId: string;

  const columnType = async () => (await tableColumns(t, app.id, TODO)).get(columnNameForField(DESCRIPTION));
  const admin = (method: string, path: string, body?: unknown) => tenant.api.request<Record<string, unknown>>(method, path, body === undefined ? {} : { body });
  const deploymentJobs = async () =>
    (await tenant.api.get<{ jobs: Array<{ jobType: string }> }>(`/v1/applications/${app.id}/status`)).body.jobs.filter((j) => j.jobType === 'deployment').length;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Types');
    app = await createTodoApp(tenant);
    v1 = app.serverVersion;
    await publishAndWait(tenant, app.id);
    const user = await admin('POST', `${versionPath(t, app.id, v1)}/users`, { name: 'Ann', email: 'ann@example.com' });
    const todo = await admin('POST', `${versionPath(t, app.id, v1)}/toDos`, { title: 'Text', description: 'abc', user: user.body.id });
    expect(todo.status).toBe(201);
    todoId = todo.body.id as string;
    const scode = todoScode();
    const model = scode.models.find((m) => m.id === TODO) as { fields: Array<{ id: string; to: string }> };
    model.fields.find((f) => f.id === DESCRIPTION)!.to = 'p_NUMBER';
    const replaced = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, scode);
    expect(replaced.status).toBe(200);
    v2 = replaced.body.serverVersion;
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('is refused at publish with 409 naming the field and the bad value; nothing is queued or changed', async () => {
    const jobsBefore = await deploymentJobs();
    const reply = await tenant.api.post<Problem>(`/v1/applications/${app.id}/publish`, { serverVersion: v2 });
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body.detail).toContain('ToDo.description');
    expect(reply.body.detail).toContain('nothing was changed');
    expect(reply.body.errors).toEqual([{ path: '/models/0/fields/1/to', message: expect.stringContaining('"abc"') }]);
    expect(reply.body.errors[0].message).toContain('existing rows would not convert');

    expect(await deploymentJobs()).toBe(jobsBefore);
    expect(await columnType()).toBe('text');

    // The job keeps its own check (rows may change between the publish and the job).
    const job = { metadata: { applicationId: app.id, serverVersion: v2 } } as unknown as JobRecord;
    await expect(t.platform.services.deployments.runDeployment(job)).rejects.toMatchObject({ status: 409, errors: [{ path: '/models/0/fields/1/to' }] });
    expect(await columnType()).toBe('text');
    const read = await admin('GET', `${versionPath(t, app.id, v1)}/toDos/${todoId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: todoId, title: 'Text', description: 'abc' });
    expect((await admin('GET', `${versionPath(t, app.id, v2)}/toDos`)).status).toBe(404);
    const application = (await tenant.api.get<AppReply & { status: { deployments: Array<{ serverVersion: string; state: string }> } }>(`/v1/applications/${app.id}`)).body;
    expect(application.status.deployments.map((d) => `${d.serverVersion}:${d.state}`)).toEqual([`${v1}:active`]);
  });

  it('is published once the rows convert, and the value is then a number', async () => {
    expect((await admin('PATCH', `${versionPath(t, app.id, v1)}/toDos/${todoId}`, { description: ' 42 ' })).status).toBe(200);
    await publishAndWait(tenant, app.id, v2);
    expect(await columnType()).toBe('double precision');
    const read = await admin('GET', `${versionPath(t, app.id, v2)}/toDos/${todoId}`);
    expect(read.body).toMatchObject({ id: todoId, title: 'Text', description: 42 });
  });
});
