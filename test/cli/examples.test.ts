import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, signup, startService, type RunningService } from './support.ts';
import { EXAMPLES_DIR } from '../support/examples.ts';

// The shipped examples, applied and published with the CLI as a user would, each answering one endpoint.
let service: RunningService;
beforeAll(async () => {
  service = await startService();
}, 300_000);
afterAll(async () => service?.stop());

interface Definition {
  models: Array<{ name: string; accessControl?: { rules: unknown[] }; fields: Array<{ to: string; max: number | null }> }>;
  actions: unknown[];
  triggers: unknown[];
}

// The CRM's User rules refuse self sign-up (the team's accounts are made for them): its endpoint is
// called as the builder (management token and API key), which the served app treats as its admin.
const EXAMPLES = [
  { name: 'library', collection: '/books', caller: 'end user' },
  { name: 'crm', collection: '/companies', caller: 'builder' },
  { name: 'inventory', collection: '/items', caller: 'end user' },
];

async function builderHeaders(): Promise<Record<string, string>> {
  const answer = await fetch(`${service.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: service.customer.apiKey, client_secret: service.customer.secret }),
  });
  const { access_token } = (await answer.json()) as { access_token: string };
  return { authorization: `Bearer ${access_token}`, 'x-svc-api-client': service.customer.apiKey };
}

describe('the examples', { timeout: 300_000 }, () => {
  it.each(EXAMPLES)('$name has relationships, rules, an action and a trigger', ({ name }) => {
    const { scode } = JSON.parse(readFileSync(join(EXAMPLES_DIR, `${name}.app.json`), 'utf8')) as { scode: Definition };
    expect(scode.models.some((model) => model.fields.some((field) => field.to.startsWith('urn:svc:model:') && field.max === null))).toBe(true);
    expect(scode.models.some((model) => (model.accessControl?.rules.length ?? 0) > 0)).toBe(true);
    expect(scode.actions.length).toBeGreaterThan(0);
    expect(scode.triggers.length).toBeGreaterThan(0);
  });

  it.each(EXAMPLES)('$name: apply --publish --wait serves it, and the $caller lists $collection', async ({ name, collection, caller }) => {
    const applied = await cli(['apply', '-f', join(EXAMPLES_DIR, `${name}.app.json`), '--project', 'Examples', '--publish', '--wait', '--json'], service.env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const answer = JSON.parse(applied.stdout) as { appId: string; published: { serverVersion: string; deployments: Array<{ serverVersion: string; state: string; apiUrl: string }> } };
    expect(answer.appId).toBe(name);
    const served = answer.published.deployments.find((d) => d.serverVersion === answer.published.serverVersion)!;
    expect(served.state).toBe('active');

    const headers = caller === 'builder' ? await builderHeaders() : { authorization: `Bearer ${(await signup(served.apiUrl, `Reader${name}`)).token}` };
    const list = await fetch(`${served.apiUrl}${collection}`, { headers });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ items: [], total: 0 });
  });

  it('inventory: a stock movement in runs the trigger, whose action raises the item\'s quantity', async () => {
    const status = JSON.parse((await cli(['open', 'inventory', '--json'], service.env)).stdout) as { versions: Array<{ apiUrl: string }> };
    const apiUrl = status.versions[0]!.apiUrl;
    const admin = { ...(await builderHeaders()), 'content-type': 'application/json' };
    const clerk = await signup(apiUrl, 'Clerk');
    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const answer = await fetch(`${apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(answer.status, await answer.clone().text()).toBe(201);
      return (await answer.json()) as { id: string };
    };
    const item = await post('/items', { sku: 'BOLT-8', name: 'Bolt 8 mm', quantity: 10 }, admin);
    const warehouse = await post('/warehouses', { name: 'North' }, admin);
    await post('/stockMovements', { kind: 'in', quantity: 5, item: item.id, warehouse: warehouse.id }, {
      authorization: `Bearer ${clerk.token}`,
      'content-type': 'application/json',
    });
    let quantity = 10;
    for (let i = 0; i < 60 && quantity === 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      quantity = ((await (await fetch(`${apiUrl}/items/${item.id}`, { headers: admin })).json()) as { quantity: number }).quantity;
    }
    expect(quantity).toBe(15);
    const runs = JSON.parse((await cli(['runs', 'inventory', '--json'], service.env)).stdout) as { items: Array<{ actionId: string; status: string }> };
    expect(runs.items[0]).toMatchObject({ actionId: 'urn:svc:action:apply-movement', status: 'succeeded' });
  });
});
