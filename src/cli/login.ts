import { createInterface } from 'node:readline/promises';
import { TokenSource } from '../sdk/index.ts';
import { saveCredentials } from './credentials.ts';
import { print, type JsonOption } from './output.ts';

export interface LoginOptions extends JsonOption {
  url?: string;
  clientId?: string;
  clientSecret?: string;
}

/** `appbuilder login`: checks the credentials against the service (a token is issued) and saves them (mode 0600). */
export async function loginCommand(options: LoginOptions): Promise<void> {
  const env = process.env;
  let { url = env.APPBUILDER_URL, clientId = env.APPBUILDER_CLIENT_ID, clientSecret = env.APPBUILDER_CLIENT_SECRET } = options;
  if ((!url || !clientId || !clientSecret) && process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    url ||= (await rl.question('Service URL [http://localhost:8080]: ')).trim() || 'http://localhost:8080';
    clientId ||= (await rl.question('API key: ')).trim();
    clientSecret ||= (await rl.question('Secret: ')).trim();
    rl.close();
  }
  if (!url || !clientId || !clientSecret) throw new Error('login needs --url, --client-id and --client-secret (or their APPBUILDER_ variables)');
  const credentials = { url: url.replace(/\/+$/, ''), clientId, clientSecret };
  await new TokenSource({ baseUrl: credentials.url, clientId, clientSecret }).token(); // refuses wrong credentials
  const path = saveCredentials(credentials);
  print(options, { url: credentials.url, clientId, path }, () => `Logged in to ${credentials.url} as ${clientId}; saved to ${path}`);
}
