import { connect } from './credentials.ts';
import { describeDeployments, findApplication, type Application } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

const RECENT_JOBS = 5;

type Deployment = Application['status']['deployments'][number];

/** A served version's health from the request log: health, share of 5xx over the last 5 minutes, last request. */
function healthLine(d: Deployment): string | null {
  if (d.health === undefined) return null; // a service without the request log's health
  const recent = d.recentRequests ?? 0;
  const rate = recent === 0 ? 'no requests in the last 5 min' : `${((d.errorRate ?? 0) * 100).toFixed(1)} % 5xx of ${recent} requests in the last 5 min`;
  return `  health ${d.health}: ${rate}, last request ${d.lastRequestAt ?? 'never'}`;
}

/** `appbuilder status APP`: the current version, what is served where with its health, and the latest jobs. */
export async function statusCommand(ref: string, options: JsonOption): Promise<void> {
  const app = await findApplication(connect(), ref);
  const jobs = app.status.jobs.map(({ id, jobType, status, errorMessage, startedAt, completedAt }) => ({
    id,
    jobType,
    status,
    errorMessage,
    startedAt,
    completedAt,
  }));
  print(
    options,
    {
      applicationId: app.id,
      name: app.name ?? null,
      appId: app.scode.appId,
      projectId: app.projectId,
      serverVersion: app.serverVersion ?? null,
      isActive: app.isActive,
      deployments: app.status.deployments,
      jobs,
    },
    () =>
      [
        `${app.name ?? app.scode.appId} (${app.id}) v${app.serverVersion ?? '?'}${app.isActive ? ', served' : ', not served'}`,
        ...describeDeployments(app).flatMap((line, i) => [line, healthLine(app.status.deployments[i])].filter((x) => x !== null)),
        ...jobs.slice(-RECENT_JOBS).map((job) => `job ${job.jobType} ${job.status}${job.errorMessage ? `: ${job.errorMessage}` : ''}`),
      ].join('\n'),
  );
}
