import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { ApiClientCredentials, ApiClientService } from './api-clients.ts';

// Any constant works; the same in every process of one installation (migrate.ts uses another).
const FIRST_RUN_LOCK_KEY = 7_311_043;

export interface CreatedCustomer {
  id: string;
  name: string;
  apiClient: { apiKey: string; secret: string };
}

export class CustomerService {
  constructor(
    private readonly db: Db,
    private readonly apiClients: ApiClientService,
  ) {}

  async create(name: string, options: { isPlatformAdmin?: boolean; apiKey?: string; secret?: string } = {}): Promise<CreatedCustomer> {
    const id = uuidv7();
    const client: ApiClientCredentials = await this.db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('appbuilder.customers').values({ id, name }).execute();
      return this.apiClients.create(id, { name: 'default', ...options }, trx);
    });
    return { id, name, apiClient: { apiKey: client.apiKey, secret: client.secret } };
  }

  /**
   * On an empty store only: creates the first customer with a platform administrator's API client
   * and answers its credentials (the secret is kept as a hash only), else null. Under an advisory
   * lock, so processes starting together on one PostgreSQL create one.
   */
  async createFirstAdministrator(name: string): Promise<CreatedCustomer | null> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${FIRST_RUN_LOCK_KEY})`.execute(trx);
      if (await trx.selectFrom('appbuilder.customers').select('id').limit(1).executeTakeFirst()) return null;
      const id = uuidv7();
      await trx.insertInto('appbuilder.customers').values({ id, name }).execute();
      const client = await this.apiClients.create(id, { name: 'default', isPlatformAdmin: true }, trx);
      return { id, name, apiClient: { apiKey: client.apiKey, secret: client.secret } };
    });
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db.kysely.selectFrom('appbuilder.customers').select('id').limit(1).executeTakeFirst();
    return row === undefined;
  }
}
