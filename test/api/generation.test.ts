import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';

const drivers = await availableDrivers();

async function waitForJob(tenant: Tenant, appId: string, jobId: string): Promise<{ status: string }> {
  for (let i = 0; i < 200; i++) {
    const status = await tenant.api.get<{ jobs: Array<{ id: string; status: string }> }>(`/v1/applications/${appId}/status`);
    const job = status.body.jobs.find((j) => j.id === jobId);
    if (job && (job.status === 'succeeded' || job.status === 'failed')) return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('job did not finish');
}

describe.each(drivers)('generation from the domain model (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Generators');
  });
  afterAll(() => t?.close());

  it('queues a generation job, visible in status, that saves models built from the domainModel', async () => {
    const scode = todoScode();
    // Only the user model, without its relationship: generation adds ToDo and the pair.
    const user = scode.models[1] as { fields: Array<{ name: string }> };
    user.fields = user.fields.filter((f) => f.name !== 'todos');
    scode.models = [user as (typeof scode.models)[number]];
    (scode as Record<string, unknown>).actions = [];
    (scode as Record<string, unknown>).triggers = [];
    const app = await createTodoApp(tenant, scode);
    const queued = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/generate`);
    expect(queued.status).toBe(202);
    const job = queued.body.status.jobs[0];
    expect(job).toMatchObject({ jobType: 'generation', status: expect.stringMatching(/queued|running|succeeded/) });
    const done = await waitForJob(tenant, app.id, job.id);
    expect(done.status).toBe('succeeded');

    const status = await tenant.api.get<{ jobs: Array<Record<string, unknown>> }>(`/v1/applications/${app.id}/status`);
    expect(Object.keys(status.body.jobs[0]).sort()).toEqual(['completedAt', 'id', 'jobType', 'projectId', 'startedAt', 'status']);

    const after = await tenant.api.get<AppReply>(`/v1/applications/${app.id}`);
    const example = todoScode();
    expect(after.body.scode.models.map((m) => m.id).sort()).toEqual(example.models.map((m) => m.id as string).sort());
    const todo = after.body.scode.models.find((m) => m.name === 'ToDo')!;
    expect(todo.fields.map((f) => [f.name, f.to])).toEqual((example.models[0].fields as Array<{ name: string; to: string }>).map((f) => [f.name, f.to]));
    expect(after.body.serverVersion).not.toBe(app.serverVersion);
    const fullJob = after.body.status.jobs.find((j) => j.id === job.id) as unknown as Record<string, unknown>;
    expect(fullJob).toMatchObject({ customerId: expect.any(String), implementationJobId: job.id, metadata: expect.objectContaining({ applicationId: app.id }) });
  });

  it('refuses to generate without a domainModel', async () => {
    const scode = todoScode();
    scode.domainModel = null;
    const app = await createTodoApp(tenant, scode);
    const reply = await tenant.api.post(`/v1/applications/${app.id}/generate`);
    expect(reply.status).toBe(409);
  });
});
