/**
 * The first run of `appbuilder serve` (`npm start`) on an empty store: it creates the first API
 * client, a platform administrator, and prints its key and secret once with the next command to
 * run. Only the secret's hash is kept. APPBUILDER_BOOTSTRAP_CLIENT_ID/_SECRET, when set, create
 * that client instead (platform start-up), and `appbuilder init` still works on a stopped store.
 */
import type { Config } from '../config.ts';
import type { Services } from '../services/index.ts';
import type { CreatedCustomer } from '../services/customers.ts';

/** Creates the first administrator when the store is empty and no bootstrap client is configured. */
export async function createFirstRunClient(services: Services, config: Config): Promise<CreatedCustomer | null> {
  if (config.bootstrapClient) return null;
  return services.customers.createFirstAdministrator('platform');
}

/** What the terminal shows once: the credentials and ready commands against `base` (the public origin). */
export function firstRunMessage(created: CreatedCustomer, base: string, basePath: string): string {
  const { apiKey, secret } = created.apiClient;
  const body = JSON.stringify({ grant_type: 'client_credentials', client_id: apiKey, client_secret: secret });
  return [
    '',
    'First run: the store was empty, so a platform administrator\'s API client was created.',
    `  API key: ${apiKey}`,
    `  Secret:  ${secret}`,
    'The secret is shown only now (the store keeps its hash); save it.',
    'Next, get an access token:',
    `  curl -s ${base}${basePath}/oauth/token -H 'content-type: application/json' -d '${body}'`,
    'then call the API with it, e.g.:',
    `  curl -s ${base}${basePath}/projects -H "authorization: Bearer $TOKEN" -H 'x-svc-api-client: ${apiKey}'`,
    '',
  ].join('\n');
}
