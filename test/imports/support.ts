// Data imports over HTTP for the tests: apply with publish and import, then wait for the report.
import type { Tenant, AppReply } from '../support/tenant.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ImportReply {
  id: string;
  status: string;
  models: Array<{ model: string; rows: number; imported: number; rejected: number }>;
  errors: Array<{ model: string; row: number; line?: number; path: string; message: string }>;
  notes: string[];
  errorMessage?: string;
  serverVersion?: string;
}

/** Waits until the data import is no longer queued or running; answers it. */
export async function settledImport(tenant: Tenant, applicationId: string, id: string, timeoutMs = 240_000): Promise<ImportReply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await tenant.api.get<ImportReply>(`/v1/applications/${applicationId}/data-imports/${id}`);
    if (reply.status !== 200) throw new Error(`GET data import answered ${reply.status}: ${reply.text}`);
    if (reply.body.status !== 'queued' && reply.body.status !== 'running') return reply.body;
    if (Date.now() > deadline) throw new Error(`data import still ${reply.body.status}`);
    await sleep(100);
  }
}

/** Applies the specification with publish and import; answers the application and the settled import. */
export async function applyWithData(tenant: Tenant, specificationId: string, body: Record<string, unknown> = {}): Promise<{ app: AppReply; report: ImportReply }> {
  const applied = await tenant.api.post<AppReply>(`/v1/projects/${tenant.projectId}/specifications/${specificationId}/apply`, { publish: true, importData: true, ...body });
  if (applied.status !== 201 && applied.status !== 200) throw new Error(`apply answered ${applied.status}: ${applied.text}`);
  const job = applied.body.status.jobs.find((j) => j.jobType === 'data_import') as { metadata?: { dataImportId?: string } } | undefined;
  const id = job?.metadata?.dataImportId;
  if (!id) throw new Error('apply did not queue a data_import job');
  // the answer names the import it queued, the same as the job's
  const named = (applied.body as AppReply & { dataImport?: { id: string; status: string } }).dataImport;
  if (named?.id !== id || named.status !== 'queued') throw new Error(`apply answered dataImport ${JSON.stringify(named)}, the job names ${id}`);
  const report = await settledImport(tenant, applied.body.id, id);
  const app = await tenant.api.get<AppReply>(`/v1/applications/${applied.body.id}`);
  return { app: app.body, report };
}
