// The application the account tests serve: the to-do example (no events) whose User has a
// `verified` p_BOOLEAN field, on a real service whose account settings a test may change.
import { loadConfig } from '../../src/config.ts';
import type { AccountSettings } from '../../src/runtime/accounts/settings.ts';
import type { Driver } from '../../src/storage/db.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from '../runtime/served-app.ts';

export interface AccountsApp {
  t: TestPlatform;
  tenant: Tenant;
  api: ServedApi;
  /** Sets a variable (or, `secret`, a secret) of the application; it applies to the next request. */
  setValue(name: string, value: string | null, kind?: 'variables' | 'secrets'): Promise<void>;
}

export function scodeWithVerified(): ReturnType<typeof todoScodeWithoutEvents> {
  const scode = todoScodeWithoutEvents();
  (scode as unknown as { models: Array<{ id: string; fields: unknown[] }> }).models
    .find((m) => m.id === 'urn:svc:model:user')!
    .fields.push({ id: 'urn:svc:edge:user-verified', name: 'verified', relationshipOwner: true, min: 0, max: 1, to: 'p_BOOLEAN', accessControl: { rules: [] } });
  return scode;
}

export async function startAccountsApp(driver: Driver, accounts: Partial<AccountSettings> = {}): Promise<AccountsApp> {
  const t = await startTestPlatform(driver, { accounts: { ...loadConfig().accounts, ...accounts } });
  const tenant = await createTenant(t, 'Accounts');
  const app = await createTodoApp(tenant, scodeWithVerified());
  await publish(tenant, app.id);
  const api = new ServedApi(t, tenant, app.id, app.serverVersion);
  return {
    t,
    tenant,
    api,
    async setValue(name, value, kind = 'variables') {
      const path = `/v1/applications/${app.id}/${kind}/${name}`;
      const reply = value === null ? await tenant.api.request('DELETE', path) : await tenant.api.request('PUT', path, { body: { value } });
      if (reply.status >= 300) throw new Error(`${kind} ${name}: ${reply.status} ${reply.text}`);
    },
  };
}

export interface SessionBody {
  token: string;
  refreshToken: string;
  user: { id: string; email: string; verified?: boolean | null };
}

export async function login(api: ServedApi, email: string, password = 'correct horse'): Promise<SessionBody> {
  const reply = await api.post<SessionBody>('/auth/login', { email, password });
  if (reply.status !== 200) throw new Error(`login answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}
