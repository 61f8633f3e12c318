import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createManagementClient, type ManagementApi } from '../sdk/index.ts';

/** Where the service is and who the command is: a URL and an API client's key and secret. */
export interface Credentials {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** `$XDG_CONFIG_HOME/appbuilder/credentials.json` (XDG's default `~/.config` without it). */
export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'appbuilder', 'credentials.json');
}

/** Saves the credentials readable by the user alone (0600; the directory 0700). */
export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const path = credentialsPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // writeFileSync's mode applies only when it creates the file
  return path;
}

function readSaved(env: NodeJS.ProcessEnv): Partial<Credentials> {
  try {
    return JSON.parse(readFileSync(credentialsPath(env), 'utf8')) as Partial<Credentials>;
  } catch {
    return {};
  }
}

/** The environment's APPBUILDER_URL / _CLIENT_ID / _CLIENT_SECRET, each else the saved login. */
export function loadCredentials(env: NodeJS.ProcessEnv = process.env): Credentials {
  const saved = readSaved(env);
  const url = env.APPBUILDER_URL || saved.url;
  const clientId = env.APPBUILDER_CLIENT_ID || saved.clientId;
  const clientSecret = env.APPBUILDER_CLIENT_SECRET || saved.clientSecret;
  if (!url || !clientId || !clientSecret) {
    throw new Error(
      'no credentials: run `appbuilder login`, or set APPBUILDER_URL, APPBUILDER_CLIENT_ID and APPBUILDER_CLIENT_SECRET',
    );
  }
  return { url: url.replace(/\/+$/, ''), clientId, clientSecret };
}

/** The typed management client for these credentials (the CLI calls the service through it only). */
export function connect(credentials: Credentials = loadCredentials()): ManagementApi {
  return createManagementClient({ baseUrl: credentials.url, clientId: credentials.clientId, clientSecret: credentials.clientSecret });
}
