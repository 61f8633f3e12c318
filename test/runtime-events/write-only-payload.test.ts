// A write-only field (the to-do example's User with an `apiKey` marked `writeOnly`) is accepted at
// sign-up and on update, but never answered: not in the sign-up's user, not in /auth/me, not in a
// read of the record by the administrator, not in `auth` (an action answering it), and not in the event an event trigger's action sees
// (the User.created welcome action runs with the user's name, without the key). Both drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { callApp, publish, runsOf, startEventsPlatform, waitFor } from './support.ts';

function withApiKey(): AppDefinition {
  const scode = todoScode() as unknown as AppDefinition;
  const user = scode.models.find((m) => m.id === scode.userModelId)!;
  user.fields.push({ id: 'urn:svc:edge:user-api-key', name: 'apiKey', relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] }, writeOnly: true });
  // GET /whoami answers `auth` whole: the signed-in user as expressions see them.
  scode.actions.push({
    id: 'urn:svc:action:whoami',
    startEffectId: 'answer',
    effects: [{ actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body: 'auth' } }],
  });
  scode.triggers.push({
    trigger: { id: 'urn:svc:trigger:whoami', type: 'http', method: 'GET', path: '/whoami' },
    actionId: 'urn:svc:action:whoami',
    initialState: {},
    validation: [],
    isPublic: false,
  });
  return scode;
}

describe.each(await availableDrivers())('write-only fields on the account and event paths (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: { id: string; serverVersion: string };

  beforeAll(async () => {
    t = await startEventsPlatform(driver);
    tenant = await createTenant(t, 'Keys');
    const created = await createTodoApp(tenant, withApiKey());
    app = { id: created.id, serverVersion: (await publish(tenant, created.id)).serverVersion };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('takes the key at sign-up and never answers it, nor hands it to the User.created action', async () => {
    const signup = await callApp<{ token: string; user: Record<string, unknown> & { id: string } }>(t, tenant, app, 'POST', '/auth/signup', null, {
      name: 'Carol',
      email: 'carol@example.com',
      password: 'correct horse battery',
      apiKey: 'sk-live-carol',
    });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    expect(signup.body.user.name).toBe('Carol');
    expect(signup.body.user).not.toHaveProperty('apiKey');
    const carol = signup.body;

    const me = await callApp<Record<string, unknown>>(t, tenant, app, 'GET', '/auth/me', carol.token);
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).not.toContain('sk-live');
    const asAdmin = await callApp<Record<string, unknown>>(t, tenant, app, 'GET', `/users/${carol.user.id}`, 'admin');
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).not.toHaveProperty('apiKey');
    // Changed by its owner: accepted, still not answered.
    const changed = await callApp<Record<string, unknown>>(t, tenant, app, 'PATCH', `/users/${carol.user.id}`, carol.token, { apiKey: 'sk-live-rotated' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).not.toHaveProperty('apiKey');
    // Nor is it in `auth`, which an action may answer.
    const whoami = await callApp<Record<string, unknown>>(t, tenant, app, 'GET', '/whoami', carol.token);
    expect(whoami.status, JSON.stringify(whoami.body)).toBe(200);
    expect(whoami.body).toMatchObject({ id: carol.user.id, name: 'Carol' });
    // (`auth` is typed as the user model, so the member may be there, never its value.)
    expect(whoami.body.apiKey ?? null).toBeNull();
    expect(JSON.stringify(whoami.body)).not.toContain('sk-live');

    // The welcome action ran on the User.created event, which it saw without the key.
    const welcome = await waitFor(() => callApp<{ items: Array<{ title: string }> }>(t, tenant, app, 'GET', '/toDos', carol.token), (r) => r.body.items.length > 0, 30_000, 'the welcome to-do');
    expect(welcome.body.items[0].title).toBe('Welcome, Carol! Add your first to-do.');
    const runs = await runsOf(t.database.db, app.id);
    const run = runs.find((r) => r.trigger_id === 'urn:svc:trigger:user-created')!;
    expect(run.status).toBe('succeeded');
    expect(run.input.event?.payload).toMatchObject({ id: carol.user.id, name: 'Carol' });
    expect(run.input.event?.payload).not.toHaveProperty('apiKey');
  }, 90_000);
});
