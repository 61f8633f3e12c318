// The attack: an anonymous caller opens thousands of realtime streams from one address (each holds
// a socket and memory on the service for as long as it lasts). The service caps open streams per
// address (and per application, and per end user), SSE and WebSocket together: past the cap, 429
// with Retry-After, counted in the app rate limit like any request; a closed stream frees its slot.
// The cap is set low here (the default is 100 per address) so the test stays quick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REALTIME_SETTINGS } from '../../src/realtime/settings.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from '../runtime/served-app.ts';
import { SseClient, until, WsClient } from '../realtime/clients.ts';

const CAP = 20;

describe.each(await availableDrivers())('realtime streams per address on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  const open: Array<{ close(): void }> = [];
  const sse = async (token?: string) => {
    const client = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, token ? { authorization: `Bearer ${token}` } : {});
    open.push(client);
    return client;
  };
  const openNow = () => t.platform.realtime!.hub.connectionCount(api.applicationId);

  beforeAll(async () => {
    t = await startTestPlatform(driver, { realtime: { ...DEFAULT_REALTIME_SETTINGS, maxPerAddress: CAP, maxConnectionsPerUser: CAP * 2 } });
    tenant = await createTenant(t, 'Flooded');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  }, 120_000);
  afterAll(async () => {
    for (const c of open) c.close();
    await t?.close();
  });

  it('accepts the cap of concurrent anonymous streams from one address and refuses the rest with 429; a closed one frees its slot', async () => {
    // All at once: the count is taken before any stream opens, so a burst cannot slip past it.
    const burst = await Promise.all(Array.from({ length: CAP + 10 }, () => sse()));
    expect(burst.filter((c) => c.status === 200)).toHaveLength(CAP);
    expect(burst.filter((c) => c.status === 429)).toHaveLength(10);
    await until(() => openNow() === CAP, `${CAP} open streams`);

    // The next one, as the attacker sees it: a problem with Retry-After, counted in the app rate limit.
    const refused = await fetch(`${api.base}/realtime?subscribe=toDos`, { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/realtime connections from one address/);

    // A signed-in caller from the same address is held to the same cap, and so is a WebSocket.
    const ann = await api.signup('Ann', 'ann@example.test');
    expect((await sse(ann.token)).status).toBe(429);
    await expect(WsClient.open(`${api.base.replace(/^http/, 'ws')}/realtime/ws`)).rejects.toThrow(/did not open/);

    // Closing one stream frees its slot: the next open is accepted.
    burst.find((c) => c.status === 200)!.close();
    await until(() => openNow() === CAP - 1, 'the closed stream to be let go');
    const next = await sse();
    expect(next.status).toBe(200);
    expect((await sse()).status).toBe(429);
  });
});
