import { connect } from './credentials.ts';
import { findApplication } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

/** `appbuilder open APP`: where each served version answers, its docs and OpenAPI pages, its typed client, and the frontend bundle. */
export async function openCommand(ref: string, options: JsonOption): Promise<void> {
  const app = await findApplication(connect(), ref);
  const served = app.status.deployments
    .filter((d) => d.state === 'active' || d.state === 'pending')
    .map(({ serverVersion, state, apiUrl, docsUrl, openapiUrl, frontendUrl, frontendBundleUrl }) => ({
      serverVersion,
      state,
      apiUrl,
      docsUrl,
      openapiUrl,
      // The version's typed TypeScript client (runtime/http/client-route.ts).
      clientUrl: apiUrl ? `${apiUrl}/client.ts` : undefined,
      // The version's web frontend, served on the app's own origin (runtime/http/frontend-route.ts).
      frontendUrl,
      frontendBundleUrl,
    }));
  if (served.length === 0) throw new Error(`${app.scode.appId} has no served version: run \`appbuilder publish ${app.scode.appId}\``);
  // The application's own origin: where a browser opens it (its reference page and HTML answers are there only).
  const appUrl = app.status.appUrl;
  print(options, { applicationId: app.id, appUrl, versions: served }, () =>
    [
      ...(appUrl ? [`App:        ${appUrl} (its own origin, for browsers: its web app at ${appUrl}/)`] : []),
      ...served.flatMap((v) => [
        `v${v.serverVersion} (${v.state})`,
        `  API:      ${v.apiUrl ?? '-'}`,
        `  Docs:     ${v.docsUrl ?? '-'}`,
        `  OpenAPI:  ${v.openapiUrl ?? '-'}`,
        `  Client:   ${v.clientUrl ?? '-'}`,
        ...(v.frontendUrl ? [`  Web app:  ${v.frontendUrl}`] : []),
        ...(v.frontendBundleUrl ? [`  Frontend: ${v.frontendBundleUrl} (appbuilder bundle ${app.scode.appId} -o app.zip)`] : []),
      ]),
    ].join('\n'),
  );
}
