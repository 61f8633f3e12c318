import type { Db } from '../storage/db.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { ApiClientCredentials, ApiClientService } from './api-clients.ts';

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

  async isEmpty(): Promise<boolean> {
    const row = await this.db.kysely.selectFrom('appbuilder.customers').select('id').limit(1).executeTakeFirst();
    return row === undefined;
  }
}
