import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../config.ts';
import { openDb } from '../platform.ts';
import { migrateControlPlane } from '../storage/migrate.ts';
import { ApiClientService } from '../services/api-clients.ts';
import { CustomerService } from '../services/customers.ts';
import { DataDirInUseError } from '../storage/lock.ts';

/** What to do when the embedded store is held by a running service (it admits one process). */
function storeInUse(error: DataDirInUseError, basePath: string): string {
  return [
    `the embedded store ${error.dataDir} is in use by a running service (process ${error.owner}); it admits one process at a time.`,
    'Either:',
    '  - stop the service, run `appbuilder init` again, then start the service; or',
    `  - leave it running and create the customer through it: POST ${basePath}/customers {"name": "..."} with a platform`,
    '    administrator\'s token (the first start on an empty store printed one; APPBUILDER_BOOTSTRAP_CLIENT_ID and',
    '    APPBUILDER_BOOTSTRAP_CLIENT_SECRET create one instead); the answer carries the new API key and secret.',
    'With DATABASE_URL (PostgreSQL) there is no such restriction.',
  ].join('\n');
}

/** Creates a customer and its first API client and prints the credentials once. */
export async function initCommand(options: { name?: string; admin?: boolean }): Promise<void> {
  const config = loadConfig();
  // The store first: when a running service holds it, say so before asking anything.
  const { db, release } = await openDb(config).catch((error: unknown) => {
    throw error instanceof DataDirInUseError ? new Error(storeInUse(error, config.basePath)) : error;
  });
  try {
    let name = options.name;
    if (!name && process.stdin.isTTY) {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      name = (await rl.question('Customer name [default]: ')).trim() || undefined;
      rl.close();
    }
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
