import type { Db } from '../storage/db.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { compileApp, type CompiledApp } from './compiled-app.ts';

/**
 * Which versions of which applications are served, compiled once and kept in
 * memory. A deployment or unpublish replaces the entry in one assignment, so a
 * request sees the old version or the new one, never half of either. Other
 * processes learn of changes through `invalidate` (LISTEN/NOTIFY: served-notices.ts).
 */
/**
 * A served version, the customer that owns it and the project it belongs to (an application
 * never changes project): builders of that customer whose role and projects admit it act as its
 * administrator (runtime/http/app-caller.ts).
 */
export interface ServedApp {
  compiled: CompiledApp;
  customerId: string;
  projectId: string;
}

export class DeploymentRegistry {
  private readonly served = new Map<string, Promise<ServedApp | null>>();
  private readonly listeners: Array<(applicationId: string) => void> = [];
  /**
   * Versions this process's deployments compiled (`remember`), by `app@version`. A version never
   * changes, so loading it needs only whether it is served, not its definition read and compiled
   * again. Weak: kept while something (the served map, the deployment) still holds it.
   */
  private readonly compiled = new Map<string, WeakRef<CompiledApp>>();

  constructor(private readonly db: Db) {}

  /** The compiled app for `applicationId@serverVersion` when that version is published; else null. */
  resolve(applicationId: string, serverVersion: string): Promise<ServedApp | null> {
    const key = `${applicationId}@${serverVersion}`;
    let entry = this.served.get(key);
    if (!entry) {
      entry = this.load(applicationId, serverVersion);
      this.served.set(key, entry);
      // Only served versions stay cached: unknown ones must not grow the map.
      entry.then((app) => app ?? this.served.delete(key), () => this.served.delete(key));
    }
    return entry;
  }

  /** Forget what is known of an application; the next request reloads it. */
  invalidate(applicationId: string): void {
    for (const key of [...this.served.keys()]) if (key.startsWith(`${applicationId}@`)) this.served.delete(key);
    for (const listener of this.listeners) listener(applicationId);
  }

  /** Forget every application (after a lost LISTEN connection may have missed notices). */
  invalidateAll(): void {
    this.served.clear();
  }

  onInvalidate(listener: (applicationId: string) => void): void {
    this.listeners.push(listener);
  }

  /** A version just compiled by a deployment here: its next load takes it (see `compiled`). */
  remember(app: CompiledApp): void {
    for (const [key, ref] of this.compiled) if (ref.deref() === undefined) this.compiled.delete(key);
    this.compiled.set(`${app.applicationId}@${app.serverVersion}`, new WeakRef(app));
  }

  private async load(applicationId: string, serverVersion: string): Promise<ServedApp | null> {
    const known = this.compiled.get(`${applicationId}@${serverVersion}`)?.deref();
    if (known) {
      const served = await this.db.kysely
        .selectFrom('appbuilder.deployments as d')
        .innerJoin('appbuilder.applications as a', 'a.id', 'd.application_id')
        .select(['a.customer_id', 'a.project_id'])
        .where('d.application_id', '=', applicationId)
        .where('d.server_version', '=', serverVersion)
        .where('d.state', '=', 'active')
        .executeTakeFirst();
      return served ? { compiled: known, customerId: served.customer_id, projectId: served.project_id } : null;
    }
    const row = await this.db.kysely
      .selectFrom('appbuilder.deployments as d')
      .innerJoin('appbuilder.application_versions as v', (join) =>
        join.onRef('v.application_id', '=', 'd.application_id').onRef('v.server_version', '=', 'd.server_version'),
      )
      .innerJoin('appbuilder.applications as a', 'a.id', 'd.application_id')
      .select(['v.scode', 'a.customer_id', 'a.project_id'])
      .where('d.application_id', '=', applicationId)
      .where('d.server_version', '=', serverVersion)
      .where('d.state', '=', 'active')
      .executeTakeFirst();
    if (!row) return null;
    return { compiled: compileApp(applicationId, serverVersion, row.scode as unknown as AppDefinition), customerId: row.customer_id, projectId: row.project_id };
  }
}
