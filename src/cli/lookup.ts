import { ok, type ManagementApi, type components } from '../sdk/index.ts';
import type { Progress } from './output.ts';

export type Application = components['schemas']['Application'];
export type Job = components['schemas']['Job'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 1000; // the API's largest page

async function allApplications(api: ManagementApi, projectId?: string): Promise<Application[]> {
  const found: Application[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await ok(api.GET('/v1/applications', { params: { query: { limit: PAGE, offset, projectId } } }));
    found.push(...page.items);
    if (page.items.length < PAGE || found.length >= page.metadata.total) return found;
  }
}

/** The application named on the command line: its id, or its definition's `appId` (or name) when that is unique. */
export async function findApplication(api: ManagementApi, ref: string): Promise<Application> {
  if (UUID.test(ref)) return ok(api.GET('/v1/applications/{applicationId}', { params: { path: { applicationId: ref } } }));
  const matches = (await allApplications(api)).filter((app) => app.scode.appId === ref || app.name === ref);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new Error(`no application with the id, appId or name ${ref}`);
  throw new Error(`${matches.length} applications are called ${ref} (${matches.map((app) => app.id).join(', ')}): name one by its id`);
}

/** The application of this project whose definition has this `appId`, or null. */
export async function findByAppId(api: ManagementApi, projectId: string, appId: string): Promise<Application | null> {
  return (await allApplications(api, projectId)).find((app) => app.scode.appId === appId) ?? null;
}

/** The project named on the command line (id or name), or the one called `name` created when missing. */
export async function findOrCreateProject(api: ManagementApi, ref: string): Promise<components['schemas']['ProjectListItem']> {
  if (UUID.test(ref)) return ok(api.GET('/v1/projects/{projectId}', { params: { path: { projectId: ref } } }));
  for (let offset = 0; ; offset += PAGE) {
    const page = await ok(api.GET('/v1/projects', { params: { query: { limit: PAGE, offset } } }));
    const match = page.items.find((project) => project.name === ref);
    if (match) return match;
    if (page.items.length < PAGE) break;
  }
  return ok(api.POST('/v1/projects', { body: { name: ref } }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/** Polls the application until the job has finished, showing its stage; a failed job is an error. */
export async function waitForJob(api: ManagementApi, applicationId: string, jobId: string, shown: Progress): Promise<Application> {
  for (;;) {
    const app = await ok(api.GET('/v1/applications/{applicationId}', { params: { path: { applicationId } } }));
    const job = app.status.jobs.find((candidate) => candidate.id === jobId);
    if (!job) throw new Error(`the job ${jobId} is not among the application's jobs`);
    shown.update(`${job.jobType}: ${job.status}`);
    if (FINISHED.has(job.status)) {
      if (job.status !== 'succeeded') {
        shown.fail(`${job.jobType} ${job.status}`);
        throw new Error(`${job.jobType} ${job.status}${job.errorMessage ? `: ${job.errorMessage}` : ''}`);
      }
      shown.done(`${job.jobType} succeeded`);
      return app;
    }
    await sleep(250);
  }
}

/** The job of this type that `after` has and `before` had not (the one a request just queued). */
export function newJob(before: Application, after: Application, jobType: string): Job | undefined {
  const known = new Set(before.status.jobs.map((job) => job.id));
  return after.status.jobs.find((job) => job.jobType === jobType && !known.has(job.id));
}

/** The served versions with where they answer, one line each. */
export function describeDeployments(app: Application): string[] {
  return app.status.deployments.map(
    (d) => `v${d.serverVersion} ${d.state}${d.apiUrl ? `  ${d.apiUrl}` : ''}${d.docsUrl ? `  docs: ${d.docsUrl}` : ''}`,
  );
}
