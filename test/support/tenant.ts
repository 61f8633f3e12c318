import { BOOTSTRAP, type TestPlatform } from './platform.ts';
import { ApiClient } from './client.ts';
import { todoScode } from './examples.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';

export interface Tenant {
  api: ApiClient;
  projectId: string;
}

/** A new customer with its own client and one project. */
export async function createTenant(t: TestPlatform, name = 'Tenant'): Promise<Tenant> {
  const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
  const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name });
  const api = await ApiClient.login(t.baseUrl, customer.body.apiClient);
  const project = await api.post<{ id: string }>('/v1/projects', { name: `${name} project` });
  return { api, projectId: project.body.id };
}

export interface AppReply {
  id: string;
  serverVersion: string;
  scode: AppDefinition;
  status: { jobs: Array<{ id: string; jobType: string; status: string }> };
  isActive: boolean;
  lastPublishedAt?: string;
  lastUnpublishedAt?: string;
}

/** Creates the to-do example (or `scode`) and returns the Application. */
export async function createTodoApp(tenant: Tenant, scode: unknown = todoScode()): Promise<AppReply> {
  const reply = await tenant.api.post<AppReply>('/v1/applications', { projectId: tenant.projectId, name: 'To-do', scode });
  if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${reply.text}`);
  return reply.body;
}
