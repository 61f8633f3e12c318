import { ok } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { describeDeployments, findApplication } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

/** `appbuilder unpublish APP [--version V]`: stops serving one version, or all of them. */
export async function unpublishCommand(ref: string, options: JsonOption & { version?: string }): Promise<void> {
  const api = connect();
  const found = await findApplication(api, ref);
  const body = options.version ? { serverVersion: options.version } : {};
  const app = await ok(api.POST('/v1/applications/{applicationId}/unpublish', { params: { path: { applicationId: found.id } }, body }));
  print(options, { applicationId: app.id, deployments: app.status.deployments }, () =>
    [`Unpublished ${app.scode.appId}${options.version ? ` v${options.version}` : ''}`, ...describeDeployments(app)].join('\n'),
  );
}
