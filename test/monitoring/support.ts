// Shared steps of the monitoring tests: the to-do example with an HTTP trigger whose action always
// fails with 500, published through the management API (support/publish.ts polls the management
// API only, so publishing leaves no row in the request log), and calls to the served version.
import type { AppDefinition, Trigger } from '../../src/definition/schema.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import { publish } from '../support/publish.ts';
import { createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';

export const EXPLODE_ACTION = 'urn:svc:action:explode';

/** The to-do example plus `POST /explode`, whose action fails with 500. */
export function monitoredScode(): AppDefinition {
  const scode = todoScode() as unknown as AppDefinition;
  scode.actions.push({
    id: EXPLODE_ACTION,
    startEffectId: 'boom',
    effects: [{ actionEffectId: 'boom', effect: 'flow.fail', params: { status: 500, message: 'Boom.', code: 'boom' } }],
  });
  const trigger: Trigger = {
    trigger: { id: 'urn:svc:trigger:explode', type: 'http', method: 'POST', path: '/explode' },
    actionId: EXPLODE_ACTION,
    initialState: {},
    validation: [],
  };
  scode.triggers.push(trigger);
  return scode;
}

export interface ServedVersion {
  id: string;
  serverVersion: string;
  app: AppReply;
  call(method: string, path: string, options?: { token?: string; admin?: boolean; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: unknown }>;
}

export function servedVersion(t: TestPlatform, tenant: Tenant, app: AppReply, serverVersion: string): ServedVersion {
  const base = `${t.baseUrl}${t.config.appsPath}/${app.id}/api/v${serverVersion}`;
  return {
    id: app.id,
    serverVersion,
    app,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      // Management credentials: the app's administrator.
      if (options.admin) Object.assign(headers, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      const text = await response.text();
      return { status: response.status, body: text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
    },
  };
}

/** Creates the monitored app and publishes its first version. */
export async function publishMonitored(t: TestPlatform, tenant: Tenant): Promise<ServedVersion> {
  const app = await createTodoApp(tenant, monitoredScode());
  await publish(tenant, app.id);
  return servedVersion(t, tenant, app, app.serverVersion);
}

/** Signs up an end user of a served version. */
export async function signup(version: ServedVersion, name: string): Promise<{ token: string; userId: string }> {
  const email = `${name.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const reply = await version.call('POST', '/auth/signup', { body: { name, email, password: 'correct horse battery' } });
  if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  const body = reply.body as { token: string; user: { id: string } };
  return { token: body.token, userId: body.user.id };
}
