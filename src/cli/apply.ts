import { readFileSync } from 'node:fs';
import { ok, type components } from '../sdk/index.ts';
import { connect } from './credentials.ts';
import { findByAppId, findOrCreateProject, newJob, waitForJob, type Application } from './lookup.ts';
import { print, progress, type JsonOption } from './output.ts';

type Definition = components['schemas']['ApplicationDefinition'];

export interface ApplyOptions extends JsonOption {
  file: string;
  project?: string;
  publish?: boolean;
  wait?: boolean;
}

/** A file holds `{name, scode}` (as examples/ do) or the bare definition. */
function readDefinition(file: string): { name?: string; scode: Definition } {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; scode?: Definition } & Partial<Definition>;
  if (parsed.scode && typeof parsed.scode === 'object') return { name: parsed.name, scode: parsed.scode };
  return { scode: parsed as Definition };
}

interface Change {
  added: string[];
  changed: string[];
  removed: string[];
}

/** What changed in one list of the definition, matched by id. */
function compare<T>(before: T[], after: T[], idOf: (item: T) => string): Change {
  const old = new Map(before.map((item) => [idOf(item), JSON.stringify(item)]));
  const now = new Map(after.map((item) => [idOf(item), JSON.stringify(item)]));
  return {
    added: [...now.keys()].filter((id) => !old.has(id)),
    changed: [...now.keys()].filter((id) => old.has(id) && old.get(id) !== now.get(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
  };
}

function summarise(before: Definition | null, after: Definition) {
  const empty = { models: [], actions: [], triggers: [] } as unknown as Definition;
  const from = before ?? empty;
  return {
    models: compare(from.models ?? [], after.models ?? [], (model) => model.id),
    actions: compare(from.actions ?? [], after.actions ?? [], (act) => act.id),
    triggers: compare(from.triggers ?? [], after.triggers ?? [], (trigger) => trigger.trigger.id),
  };
}

function summaryLine(summary: ReturnType<typeof summarise>): string {
  const parts = Object.entries(summary).flatMap(([kind, change]) => {
    const counts = [
      change.added.length ? `+${change.added.length}` : '',
      change.changed.length ? `~${change.changed.length}` : '',
      change.removed.length ? `-${change.removed.length}` : '',
    ].filter(Boolean);
    return counts.length ? [`${kind} ${counts.join(' ')}`] : [];
  });
  return parts.length ? parts.join(', ') : 'no change to models, actions or triggers';
}

/** `appbuilder apply -f app.json`: creates the application or, matched by `scode.appId` in the project, replaces its definition. */
export async function applyCommand(options: ApplyOptions): Promise<void> {
  const api = connect();
  const { name, scode } = readDefinition(options.file);
  const project = await findOrCreateProject(api, options.project ?? 'default');
  const existing = await findByAppId(api, project.id, scode.appId);
  let app: Application = existing
    ? await ok(api.PUT('/v1/applications/{applicationId}/scode', { params: { path: { applicationId: existing.id } }, body: scode }))
    : await ok(api.POST('/v1/applications', { body: { projectId: project.id, name, scode } }));
  const summary = summarise(existing?.scode ?? null, app.scode);
  const result: Record<string, unknown> = {
    action: existing ? 'updated' : 'created',
    applicationId: app.id,
    projectId: project.id,
    appId: app.scode.appId,
    fromVersion: existing?.serverVersion ?? null,
    serverVersion: app.serverVersion ?? null,
    changes: summary,
  };
  if (options.publish) {
    const before = app;
    app = await ok(api.POST('/v1/applications/{applicationId}/publish', { params: { path: { applicationId: app.id } }, body: {} }));
    const job = newJob(before, app, 'deployment');
    if (options.wait && job) app = await waitForJob(api, app.id, job.id, progress(options, 'deployment: queued'));
    result.published = { serverVersion: app.serverVersion ?? null, jobId: job?.id ?? null, deployments: app.status.deployments };
  }
  print(options, result, () => {
    const version = existing ? `v${existing.serverVersion ?? '?'} → v${app.serverVersion ?? '?'}` : `v${app.serverVersion ?? '?'}`;
    const lines = [`${existing ? 'Updated' : 'Created'} ${app.scode.appId} (${app.id}) in project ${project.name}: ${version}; ${summaryLine(summary)}`];
    if (options.publish) {
      const served = app.status.deployments.find((d) => d.serverVersion === app.serverVersion);
      lines.push(`Publishing v${app.serverVersion ?? '?'}: ${served?.state ?? 'queued'}${served?.apiUrl ? ` at ${served.apiUrl}` : ''}`);
    }
    return lines.join('\n');
  });
}
