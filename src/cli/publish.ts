import { ok } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { describeDeployments, findApplication, newJob, waitForJob, type Application } from './lookup.ts';
import { print, progress, type JsonOption } from './output.ts';

/** `appbuilder publish APP [--version V] [--wait]`: queues the deployment, and with --wait follows it to the end. */
export async function publishCommand(ref: string, options: JsonOption & { version?: string; wait?: boolean }): Promise<void> {
  const api = connect();
  const before = await findApplication(api, ref);
  const body = options.version ? { serverVersion: options.version } : {};
  const published = await ok(api.POST('/v1/applications/{applicationId}/publish', { params: { path: { applicationId: before.id } }, body }));
  // What the version's rules let end users do that may not be meant (advisor/advice.ts).
  const advice = published.advice ?? [];
  let app: Application = published;
  const job = newJob(before, app, 'deployment');
  if (options.wait && job) app = await waitForJob(api, app.id, job.id, progress(options, 'deployment: queued'));
  const serverVersion = options.version ?? app.serverVersion ?? null;
  print(
    options,
    { applicationId: app.id, serverVersion, jobId: job?.id ?? null, deployments: app.status.deployments, advice },
    () =>
      [
        `Published ${app.scode.appId} v${serverVersion ?? '?'}${options.wait ? '' : ' (deployment queued)'}`,
        ...describeDeployments(app),
        ...advice.map((a) => `advice ${a.code}${a.model ? ` ${a.model}` : ''}: ${a.message}`),
      ].join('\n'),
  );
}
