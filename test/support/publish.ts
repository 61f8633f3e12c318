// Publishing a version in tests: the publish request, then waiting for its deployment job.
import type { AppReply, Tenant } from './tenant.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Job {
  id: string;
  jobType: string;
  status: string;
  errorMessage?: string;
}

/** Publishes `serverVersion` (or the current one) and waits until its deployment job succeeded. */
export async function publish(tenant: Tenant, applicationId: string, serverVersion?: string): Promise<AppReply> {
  const before = await tenant.api.get<AppReply>(`/v1/applications/${applicationId}`);
  const known = new Set(before.body.status.jobs.map((job) => job.id));
  const reply = await tenant.api.post<AppReply>(`/v1/applications/${applicationId}/publish`, serverVersion ? { serverVersion } : {});
  if (reply.status !== 202) throw new Error(`publish answered ${reply.status}: ${reply.text}`);
  const job = reply.body.status.jobs.find((j) => j.jobType === 'deployment' && !known.has(j.id));
  if (!job) throw new Error('publish did not queue a deployment job');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const now = await tenant.api.get<Omit<AppReply, 'status'> & { status: { jobs: Job[] } }>(`/v1/applications/${applicationId}`);
    const current = now.body.status.jobs.find((j) => j.id === job.id);
    if (current?.status === 'succeeded') return now.body as unknown as AppReply;
    if (current?.status === 'failed' || current?.status === 'cancelled') throw new Error(`deployment ${current.status}: ${current.errorMessage ?? ''}`);
    if (Date.now() > deadline) throw new Error(`deployment still ${current?.status} after 60 s`);
    await sleep(100);
  }
}
