import { writeFileSync } from 'node:fs';
import { ProblemError } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { findApplication } from './lookup.ts';
import { print, progress, type JsonOption } from './output.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MAX_WAIT_MS = 10 * 60_000;

/** `appbuilder bundle APP -o FILE`: downloads the frontend bundle of the latest published version, waiting while it is built. */
export async function bundleCommand(ref: string, options: JsonOption & { output: string }): Promise<void> {
  const api = connect();
  const app = await findApplication(api, ref);
  const shown = progress(options, 'frontend bundle: requested');
  const deadline = Date.now() + MAX_WAIT_MS;
  for (;;) {
    const { data, error, response } = await api.GET('/v1/applications/{applicationId}/frontendBundle', {
      params: { path: { applicationId: app.id } },
      parseAs: 'arrayBuffer',
    });
    if (!response.ok) {
      shown.fail();
      throw new ProblemError(response.status, error);
    }
    const bytes = Buffer.from(data as ArrayBuffer);
    if (response.status === 202) {
      // Still being built: the answer says when to ask again.
      const pending = JSON.parse(bytes.toString('utf8')) as { retryAfterSeconds?: number; serverVersion?: string };
      shown.update(`frontend bundle of v${pending.serverVersion ?? '?'}: building`);
      if (Date.now() > deadline) throw new Error('the frontend bundle is still being built after 10 minutes');
      await sleep(Math.max(1, pending.retryAfterSeconds ?? 1) * 1000);
      continue;
    }
    writeFileSync(options.output, bytes);
    shown.done(`frontend bundle: ${bytes.length} bytes`);
    print(options, { applicationId: app.id, file: options.output, bytes: bytes.length, etag: response.headers.get('etag') }, () =>
      `Wrote ${options.output} (${bytes.length} bytes): unzip it and open index.html`,
    );
    return;
  }
}
