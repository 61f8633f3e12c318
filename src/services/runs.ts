// Action runs through the management API: the stored runs of an application (tenant-scoped), and
// test runs of an action of the saved definition against the app's data, always rolled back.
import type { Db } from '../storage/db.ts';
import { conflict, notFound, unprocessable } from '../errors.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { compileApp } from '../runtime/compiled-app.ts';
import type { Caller } from '../runtime/caller.ts';
import { AfterCommit } from '../runtime/http/after-commit.ts';
import { ActionRunner } from '../runtime/runs/runner.ts';
import { RunStore, type Run, type RunFilter } from '../runtime/runs/store.ts';
import { readPlainRecord } from '../runtime/writes/plain-record.ts';
import type { ApplicationService } from './applications/service.ts';
import type { AppValuesSource } from '../secrets/app-values.ts';
import { SECRET_RULE, secretPlacementProblems } from '../secrets/placement.ts';

export interface ActionTestInput {
  initialState?: Record<string, unknown>;
  /** An end user's id (loaded from the user model), or a user record with an `id`; absent: the administrator. */
  auth?: string | (Record<string, unknown> & { id: string });
  event?: { name: string; payload?: Record<string, unknown> };
}

export class RunService {
  private readonly store: RunStore;
  private readonly runner: ActionRunner;

  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    /** The apps' variables and secrets, so a test run sees what a real one would (redacted alike). */
    values?: AppValuesSource,
  ) {
    this.store = new RunStore(db);
    // Test runs always roll back, so nothing is ever announced after a commit.
    this.runner = new ActionRunner(db, new AfterCommit(), this.store, {}, values);
  }

  async list(customerId: string, applicationId: string, filter: RunFilter): Promise<{ items: Run[]; total: number }> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    return this.store.list(applicationId, filter);
  }

  async get(customerId: string, applicationId: string, runId: string): Promise<Run> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const run = await this.store.get(applicationId, runId);
    if (!run) throw notFound(`Run ${runId} was not found.`, '/runId');
    return run;
  }

  /**
   * Runs an action of the saved (maybe unpublished) definition against the data of the deployed
   * schema, in a transaction that is rolled back whatever happens. The run is returned, not stored.
   */
  async test(customerId: string, applicationId: string, actionId: string, input: ActionTestInput): Promise<Run> {
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const deployed = await this.db.kysely.selectFrom('appbuilder.app_schemas').select('server_version').where('application_id', '=', applicationId).executeTakeFirst();
    if (!deployed) {
      throw conflict('The application has never been published, so it has no data to run against: publish it first.', [
        { path: '/applicationId', message: 'has no deployed data schema' },
      ]);
    }
    const app = compileApp(applicationId, row.server_version, row.scode as unknown as AppDefinition);
    const index = app.definition.actions.findIndex((a) => a.id === actionId);
    if (index === -1) throw notFound(`Action ${actionId} was not found.`, '/actionId');
    // A definition saved before secrets were confined is refused here, before anything runs.
    const misplaced = secretPlacementProblems(app.definition, app.definition.actions[index].effects, `/actions/${index}`);
    if (misplaced.length > 0) throw conflict(`The action reads a secret where it may not: ${SECRET_RULE}.`, misplaced);
    const caller = await this.callerOf(app, input.auth);
    const event = input.event ? { name: input.event.name, payload: input.event.payload ?? {} } : undefined;
    return this.runner.test({ app, triggerId: null, actionId, caller, initialState: input.initialState ?? {}, ...(event ? { event } : {}) });
  }

  private async callerOf(app: ReturnType<typeof compileApp>, auth: ActionTestInput['auth']): Promise<Caller> {
    if (auth === undefined) return { kind: 'admin' };
    if (typeof auth !== 'string') return { kind: 'user', user: auth };
    const user = app.userModel ? await readPlainRecord(this.db.kysely, app, app.userModel, auth).catch(() => undefined) : undefined;
    if (!user) throw unprocessable(`No end user has the id '${auth}'.`, [{ path: '/auth', message: 'is not the id of an end user' }]);
    return { kind: 'user', user };
  }
}
