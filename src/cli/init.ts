import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../config.ts';
import { openDb } from '../platform.ts';
import { migrateControlPlane } from '../storage/migrate.ts';
import { ApiClientService } from '../services/api-clients.ts';
import { CustomerService } from '../services/customers.ts';

/** Creates a customer and its first API client and prints the credentials once. */
export async function initCommand(options: { name?: string; admin?: boolean }): Promise<void> {
  const config = loadConfig();
  let name = options.name;
  if (!name && process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    name = (await rl.question('Customer name [default]: ')).trim() || undefined;
    rl.close();
  }
  const { db, release } = await openDb(config);
  try {
    await migrateControlPlane(db);
    const apiClients = new ApiClientService(db);
    const customers = new CustomerService(db, apiClients);
    const isAdmin = options.admin ?? (await customers.isEmpty());
    const created = await customers.create(name ?? 'default', { isPlatformAdmin: isAdmin });
    process.stdout.write(
      `Customer ${created.name} (${created.id})${isAdmin ? ', platform administrator' : ''}\n` +
        `  API key: ${created.apiClient.apiKey}\n  Secret:  ${created.apiClient.secret}\n` +
        'The secret is shown only now; store it safely.\n' +
        `Get a token: curl -X POST <base>${config.basePath}/oauth/token -H 'content-type: application/json' ` +
        `-d '{"grant_type":"client_credentials","client_id":"<API key>","client_secret":"<secret>"}'\n`,
    );
  } finally {
    await db.close();
    release();
  }
}
