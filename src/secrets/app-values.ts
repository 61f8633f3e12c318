// The variables and secrets an application's expressions see (`env`, `secrets`; DESIGN §11):
// the project's values overridden by the application's own, secrets opened with their owners'
// data keys. Cached per application in each process; a change sends
// `NOTIFY appbuilder_config, '<kind>:<ownerId>'` in its transaction, and every process that
// listens forgets what it had, so the next request or run reads the new value (no republish).
import { sql } from 'kysely';
import pg from 'pg';
import { listenUrlOf, type Db, type Executor } from '../storage/db.ts';
import { DataKeys } from './data-keys.ts';
import { open, valueAad } from './envelope.ts';
import { withSecretTables } from './tables.ts';

export const CONFIG_CHANNEL = 'appbuilder_config';

export interface AppValues {
  env: Record<string, string>;
  secrets: Record<string, string>;
  /** Every secret value, longest first: what redaction looks for. */
  secretValues: readonly string[];
}

/** Where the runtime reads them (the cache below). */
export interface AppValuesSource {
  forApplication(applicationId: string): Promise<AppValues>;
}

export const NO_VALUES: AppValues = Object.freeze({ env: {}, secrets: {}, secretValues: [] });

/** Queues the notice in the caller's transaction (sent on commit, dropped on rollback). */
export async function notifyConfigChange(executor: Executor, ownerKind: 'application' | 'project', ownerId: string): Promise<void> {
  await sql`select pg_notify(${CONFIG_CHANNEL}, ${`${ownerKind}:${ownerId}`})`.execute(executor);
}

interface Logger {
  warn(details: object, message?: string): void;
}

export class AppValuesCache {
  private readonly cache = new Map<string, Promise<AppValues>>();
  private readonly dataKeys: DataKeys;
  /** Bumped by every notice: a load that started before one is not kept. */
  private generation = 0;
  /** False while the LISTEN connection is down. */
  caching = true;

  constructor(
    private readonly db: Db,
    masterKey: Buffer,
  ) {
    this.dataKeys = new DataKeys(db, masterKey);
  }

  forApplication(applicationId: string): Promise<AppValues> {
    if (!this.caching) return this.load(applicationId);
    let values = this.cache.get(applicationId);
    if (!values) {
      const generation = this.generation;
      values = this.load(applicationId);
      this.cache.set(applicationId, values);
      values.then(
        () => {
          if (generation !== this.generation && this.cache.get(applicationId) === values) this.cache.delete(applicationId);
        },
        () => this.cache.delete(applicationId),
      );
    }
    return values;
  }

  /** A notice's payload: an application forgets its own values; a project's change reaches all its applications. */
  noticed(payload: string): void {
    this.generation++;
    if (payload.startsWith('application:')) this.cache.delete(payload.slice('application:'.length));
    else this.cache.clear();
  }

  forgetAll(): void {
    this.generation++;
    this.cache.clear();
  }

  private async load(applicationId: string): Promise<AppValues> {
    const db = withSecretTables(this.db.kysely);
    const rows = await db
      .selectFrom('appbuilder.config_values as v')
      .select(['v.owner_id', 'v.application_id', 'v.kind', 'v.name', 'v.value', 'v.sealed_value', 'v.version'])
      .where((eb) =>
        eb.or([
          eb('v.application_id', '=', applicationId),
          eb('v.project_id', '=', eb.selectFrom('appbuilder.applications').select('project_id').where('id', '=', applicationId)),
        ]),
      )
      .execute();
    // Project values first, so the application's own override them.
    rows.sort((a, b) => Number(a.application_id !== null) - Number(b.application_id !== null));
    const env: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    for (const row of rows) {
      if (row.kind === 'variable') {
        env[row.name] = row.value!;
        delete secrets[row.name];
      } else {
        const key = await this.dataKeys.key({ kind: row.application_id ? 'application' : 'project', id: row.owner_id });
        secrets[row.name] = open(row.sealed_value!, key, valueAad(row.owner_id, row.name, row.version)).toString('utf8');
        delete env[row.name];
      }
    }
    const secretValues = Object.values(secrets)
      .filter((value) => value.length > 0)
      .sort((a, b) => b.length - a.length);
    return { env, secrets, secretValues };
  }

  /** Listens for changes made by any process (PGlite: this one's own commits). */
  async listen(logger?: Logger): Promise<{ close(): Promise<void> }> {
    if (this.db.pglite) {
      const unlisten = await this.db.pglite.listen(CONFIG_CHANNEL, (payload) => this.noticed(payload));
      return { close: () => unlisten().catch(() => {}) };
    }
    return ConfigListener.start(listenUrlOf(this.db)!, this, logger);
  }
}

/** One LISTEN connection; when it drops, notices may be lost, so everything cached is forgotten. */
class ConfigListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;

  private constructor(
    private readonly connectionString: string,
    private readonly values: AppValuesCache,
    private readonly logger: Logger | undefined,
  ) {}

  static async start(connectionString: string, values: AppValuesCache, logger?: Logger): Promise<ConfigListener> {
    const listener = new ConfigListener(connectionString, values, logger);
    await listener.connect();
    return listener;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'appbuilder-config-notices' });
    client.on('notification', (message) => {
      if (message.channel === CONFIG_CHANNEL && message.payload) this.values.noticed(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`listen ${CONFIG_CHANNEL}`);
    this.client = client;
    this.failures = 0;
    this.values.forgetAll();
    this.values.caching = true;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    // Nothing is kept while no notice can arrive: every request reads the store.
    this.values.caching = false;
    this.values.forgetAll();
    client.end().catch(() => {});
    this.logger?.warn({ err: error }, 'lost the LISTEN connection for configuration notices; reconnecting');
    this.schedule();
  }

  private schedule(): void {
    const delay = Math.min(30_000, 500 * 2 ** this.failures++);
    this.retry = setTimeout(() => {
      this.connect().catch((failure: unknown) => {
        this.logger?.warn({ err: failure }, 'could not reconnect the LISTEN connection for configuration notices');
        if (!this.closed) this.schedule();
      });
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
