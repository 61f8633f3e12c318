/**
 * Cross-process invalidation of the deployment registry (DESIGN §1): whatever changes
 * which versions of an application are served (a deployment, an unpublish, deleting the
 * application) sends `NOTIFY appbuilder_served, '<applicationId>'` inside its own
 * transaction, so the notice goes out exactly when, and only if, the change commits.
 * Every process LISTENs and forgets what it had compiled for that application; its
 * next request reloads. The same connection carries the notices of changed end users
 * (`appbuilder_users`, end-user-cache.ts), which the process's end-user cache forgets.
 * A LISTEN connection that drops may have missed notices, so on reconnecting the
 * process forgets everything it had, and keeps no end user while it is down.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { listenUrlOf, type Db, type Executor } from '../storage/db.ts';
import type { DeploymentRegistry } from './registry.ts';
import { endUserCache, USERS_CHANNEL } from './end-user-cache.ts';

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

/** A user notice's payload, `<schema> <user id>`, to the end-user cache. */
function forgetNoticedUser(payload: string): void {
  const space = payload.indexOf(' ');
  if (space > 0) endUserCache.forget(payload.slice(0, space), payload.slice(space + 1));
}

/** Listens for served-version and end-user changes made by any process; invalidates `registry` and the end-user cache. */
export async function listenForServedChanges(db: Db, registry: DeploymentRegistry, logger?: NoticeLogger): Promise<ServedNotices> {
  if (db.pglite) {
    // One process owns an embedded store; its own commits still arrive here.
    const unlistenServed = await db.pglite.listen(SERVED_CHANNEL, (payload) => registry.invalidate(payload));
    const unlistenUsers = await db.pglite.listen(USERS_CHANNEL, forgetNoticedUser);
    const stopUsers = endUserCache.listening();
    return {
      close: async () => {
        stopUsers();
        await unlistenServed().catch(() => {});
        await unlistenUsers().catch(() => {});
      },
    };
  }
  return PostgresListener.start(listenUrlOf(db)!, registry, logger);
}

class PostgresListener implements ServedNotices {
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  /** Stops the end-user cache's use of this listener (while disconnected, or closed). */
  private stopUsers: (() => void) | null = null;

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
      if (!message.payload) return;
      if (message.channel === SERVED_CHANNEL) this.registry.invalidate(message.payload);
      else if (message.channel === USERS_CHANNEL) forgetNoticedUser(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`listen ${SERVED_CHANNEL}`);
    await client.query(`listen ${USERS_CHANNEL}`);
    this.client = client;
    this.failures = 0;
    this.stopUsers = endUserCache.listening();
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    this.stopUsers?.();
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
    this.stopUsers?.();
    clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
