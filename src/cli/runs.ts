import { ok, type paths } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { findApplication } from './lookup.ts';
import { print, type JsonOption } from './output.ts';

type Run = paths['/v1/applications/{applicationId}/runs']['get']['responses'][200]['content']['application/json']['items'][number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FOLLOW_INTERVAL_MS = 1000;

function line(run: Run): string {
  const failure = run.error ? ` ${run.error.code}: ${run.error.message}` : '';
  return `${run.startedAt} ${run.status.padEnd(9)} ${run.actionId} v${run.serverVersion} ${run.durationMs} ms ${run.id}${failure}`;
}

/** `appbuilder runs APP [--follow]`: the latest runs of the application's actions; --follow prints new ones as they finish. */
export async function runsCommand(ref: string, options: JsonOption & { follow?: boolean; limit?: string }): Promise<void> {
  const api = connect();
  const app = await findApplication(api, ref);
  const limit = Math.min(1000, Math.max(1, Number(options.limit ?? 20) || 20));
  const fetchRuns = async () =>
    (await ok(api.GET('/v1/applications/{applicationId}/runs', { params: { path: { applicationId: app.id }, query: { limit } } }))).items;
  const first = await fetchRuns();
  if (!options.follow) {
    print(options, { applicationId: app.id, items: first }, () => (first.length ? first.map(line).join('\n') : 'no runs yet'));
    return;
  }
  // Following: oldest first, then each new run once, as one line (or one JSON object a line with --json).
  const seen = new Set<string>();
  const emit = (runs: Run[]) => {
    for (const run of [...runs].reverse()) {
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      process.stdout.write(options.json ? `${JSON.stringify(run)}\n` : `${line(run)}\n`);
    }
  };
  emit(first);
  let stopped = false;
  const stop = () => (stopped = true);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  while (!stopped) {
    await sleep(FOLLOW_INTERVAL_MS);
    if (!stopped) emit(await fetchRuns());
  }
}
