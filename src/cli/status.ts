import { connect } from './credentials.ts';
import { describeDeployments, findApplication } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

const RECENT_JOBS = 5;

/** `appbuilder status APP`: the current version, what is served where, and the latest jobs. */
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
        ...describeDeployments(app),
        ...jobs.slice(-RECENT_JOBS).map((job) => `job ${job.jobType} ${job.status}${job.errorMessage ? `: ${job.errorMessage}` : ''}`),
      ].join('\n'),
  );
}
