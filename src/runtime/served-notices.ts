/**
 * Cross-process invalidation of the deployment registry (DESIGN §1): whatever changes
 * which versions of an application are served (a deployment, an unpublish, deleting the
 * application) sends `NOTIFY appbuilder_served, '<applicationId>'` inside its own
 * transaction, so the notice goes out exactly when, and only if, the change commits.
 * Every process LISTENs and forgets what it had compiled for that application; its
 * next request reloads. A LISTEN connection that drops may have missed notices, so on
 * reconnecting the process forgets everything it had.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { Db, Executor } from '../storage/db.ts';
import type { DeploymentRegistry } from './registry.ts';

export const SERVED_CHANNEL = 'appbuilder_served';

/** Queues the notice in the caller's transaction (sent on commit, dropped on rollback). */
export async function notifyServedChange(executor: Executor, applicationId: string): Promise<void> {
  await sql`select pg_notify(${SERVED_CHANNEL}, ${applicationId})`.execute(executor);
}

export interface NoticeLogger {
  warn(details: object, message?: string): void;
}

export interface ServedNotices {
  close(): Promise<void>;
}

/** Listens for served-version changes made by any process and invalidates `registry`. */
export async function listenForServedChanges(db: Db, registry: DeploymentRegistry, logger?: NoticeLogger): Promise<ServedNotices> {
  if (db.pglite) {
    // One process owns an embedded store; its own commits still arrive here.
    const unlisten = await db.pglite.listen(SERVED_CHANNEL, (payload) => registry.invalidate(payload));
    return { close: () => unlisten().catch(() => {}) };
  }
  return PostgresListener.start(db.connectionString!, registry, logger);
}

class PostgresListener implements ServedNotices {
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;

  private constructor(
    private readonly connectionString: string,
    private readonly registry: DeploymentRegistry,
    private readonly logger: NoticeLogger | undefined,
  ) {}

  static async start(connectionString: string, registry: DeploymentRegistry, logger?: NoticeLogger): Promise<PostgresListener> {
    const listener = new PostgresListener(connectionString, registry, logger);
    await listener.connect();
    return listener;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'appbuilder-notices' });
    client.on('notification', (message) => {
      if (message.channel === SERVED_CHANNEL && message.payload) this.registry.invalidate(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`listen ${SERVED_CHANNEL}`);
    this.client = client;
    this.failures = 0;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.logger?.warn({ err: error }, 'lost the LISTEN connection for deployment notices; reconnecting');
    this.schedule();
  }

  private schedule(): void {
    const delay = Math.min(30_000, 500 * 2 ** this.failures++);
    this.retry = setTimeout(() => {
      this.connect().then(
        // Notices sent while disconnected are lost: forget every compiled version.
        () => this.registry.invalidateAll(),
        (error: unknown) => {
          this.logger?.warn({ err: error }, 'could not reconnect the LISTEN connection for deployment notices');
          if (!this.closed) this.schedule();
        },
      );
    }, delay);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
