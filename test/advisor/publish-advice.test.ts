// The advice at publish over HTTP: in the publish answer and the deployment job's metadata, with
// who may do what in short; none for the to-do example. The specification and its apply answer
// carry the same members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { specificationFrom } from '../specifications/support.ts';

interface PublishAnswer {
  advice: Array<{ code: string; model?: string; message: string }>;
  access: Array<{ model: string; anonymous: string[]; signedIn: string[] }>;
  status: { jobs: Array<{ id: string; jobType: string; status: string; metadata: Record<string, unknown> }> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('publish advice over HTTP', () => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    tenant = await createTenant(t, 'Advice');
  }, 60_000);
  afterAll(() => t?.close());

  const publishAndWait = async (applicationId: string) => {
    const reply = await tenant.api.post<PublishAnswer>(`/v1/applications/${applicationId}/publish`, {});
    expect(reply.status, reply.text).toBe(202);
    const jobId = reply.body.status.jobs.find((j) => j.jobType === 'deployment')!.id;
    for (let i = 0; i < 600; i++) {
      const app = await tenant.api.get<PublishAnswer>(`/v1/applications/${applicationId}`);
      const job = app.body.status.jobs.find((j) => j.id === jobId)!;
      if (job.status === 'succeeded') return { answer: reply.body, metadata: job.metadata };
      expect(job.status).not.toBe('failed');
      await sleep(100);
    }
    throw new Error('the deployment did not finish');
  };

  it('none for the to-do example; its summary says end users may do everything on their own records', async () => {
    const app = await createTodoApp(tenant);
    const { answer, metadata } = await publishAndWait(app.id);
    expect(answer.advice).toEqual([]);
    expect(metadata.advice).toEqual([]);
    expect(answer.access).toEqual([
      { model: 'ToDo', anonymous: [], signedIn: ['create', 'read', 'update', 'delete'] },
      { model: 'User', anonymous: [], signedIn: ['create', 'read', 'update', 'delete'] },
    ]);
  });

  it('public-write in the answer and the job metadata', async () => {
    const scode = todoScode() as unknown as { models: Array<{ name: string; accessControl: unknown }> };
    scode.models.find((m) => m.name === 'ToDo')!.accessControl = { rules: [{ access: 'allow', criteria: 'true' }] };
    const app = await createTodoApp(tenant, scode);
    const { answer, metadata } = await publishAndWait(app.id);
    expect(answer.advice.map((a) => [a.code, a.model])).toEqual([['public-write', 'ToDo']]);
    expect(metadata.advice).toEqual(answer.advice);
  });

  it('a specification and its apply answer carry the summary and the advice', async () => {
    const spec = await specificationFrom(tenant.api, tenant.projectId, ['sql/pagila-schema.sql']);
    expect(spec.status).toBe('succeeded');
    const got = await tenant.api.get<{ access: unknown[]; advice: Array<{ code: string }> }>(`/v1/projects/${tenant.projectId}/specifications/${spec.id}`);
    expect(Array.isArray(got.body.access)).toBe(true);
    expect(got.body.access.length).toBeGreaterThan(0);
    expect(Array.isArray(got.body.advice)).toBe(true);
    const applied = await tenant.api.post<{ access: unknown[]; advice: Array<{ code: string }>; id: string }>(`/v1/projects/${tenant.projectId}/specifications/${spec.id}/apply`, {});
    expect(applied.status, applied.text).toBe(201);
    expect(applied.body.advice).toEqual(got.body.advice);
    expect(applied.body.access).toEqual(got.body.access);
  }, 180_000);
});
