// The per-application webhook against a real HTTP receiver started here (PGlite, and PostgreSQL
// when it answers), which fails the first delivery it gets. 500s from a failing action degrade the
// version: exactly one `deployment.degraded` event, delivered twice (the failed attempt and its
// retry, the same delivery id), signed with HMAC-SHA256 under the webhook's secret; 2xx traffic
// then recovers it: exactly one `deployment.recovered`. A failed job is sent once as `job.failed`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/tools/ids.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { publishMonitored, type ServedVersion } from './support.ts';
import { addBuilder } from '../access/builders-support.ts';

const SECRET = 'whsec_test_0123456789abcdef';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Received {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  answered: number;
}

/** A receiver that answers 500 to the first request and 200 to the others. */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answered = received.length === 0 ? 500 : 200;
      received.push({ at: Date.now(), headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** Checks the signature as a receiver would: HMAC-SHA256 of "<t>.<body>", compared in constant time. */
function verify(received: Received, secret: string): boolean {
  const header = String(received.headers['x-appbuilder-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${received.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.each(await availableDrivers())('the application webhook on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: ServedVersion;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const allowBefore = process.env.APPBUILDER_HTTP_ALLOW;
  const events = (name: string) => receiver.received.filter((r) => JSON.parse(r.body).event === name);

  beforeAll(async () => {
    // The outbound guard refuses loopback unless allowed: the receiver runs here.
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    receiver = await startReceiver();
    t = await startTestPlatform(driver, { healthCheckSeconds: 1, webhookRetrySeconds: 1, alertErrorRate: 0.5 });
    tenant = await createTenant(t, 'Hooked');
    app = await publishMonitored(t, tenant);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    receiver?.server.close();
    if (allowBefore === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = allowBefore;
  });

  it('is set with a URL and a secret (201, then 200 replacing it), never answering the secret it was given', async () => {
    const bad = await tenant.api.put<{ errors: Array<{ path: string }> }>(`/v1/applications/${app.id}/webhook`, { url: 'ftp://example.test/x', secret: SECRET });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/url');
    expect((await tenant.api.get(`/v1/applications/${app.id}/webhook`)).status).toBe(404);
    const generated = await tenant.api.put<{ secret?: string }>(`/v1/applications/${app.id}/webhook`, { url: receiver.url });
    expect(generated.status).toBe(201);
    expect(generated.body.secret).toMatch(/^whsec_/);
    const replaced = await tenant.api.put<{ url: string; events: string[]; secret?: string }>(`/v1/applications/${app.id}/webhook`, { url: receiver.url, secret: SECRET });
    expect(replaced.status).toBe(200);
    expect(replaced.body.secret).toBeUndefined();
    expect(replaced.body.events).toEqual(['deployment.degraded', 'deployment.recovered', 'job.failed']);
    expect(replaced.text).not.toContain(SECRET);
    const stored = await sql<{ sealed_secret: string }>`select sealed_secret from appbuilder.app_webhooks where application_id = ${app.id}`.execute(t.platform.db.kysely);
    expect(stored.rows[0].sealed_secret).not.toContain(SECRET);
  });

  it('sends one signed deployment.degraded, retried after the receiver failed it, then one deployment.recovered', async () => {
    for (let i = 0; i < 3; i++) expect((await app.call('POST', '/explode')).status).toBe(500);
    const degraded = await until('the degraded event to be retried', () => events('deployment.degraded').length >= 2 && events('deployment.degraded'));
    expect(degraded[0].answered).toBe(500);
    expect(degraded[1].answered).toBe(200);
    // The retry is the same delivery, after the backoff.
    expect(degraded[1].headers['x-appbuilder-delivery']).toBe(degraded[0].headers['x-appbuilder-delivery']);
    expect(degraded[1].at - degraded[0].at).toBeGreaterThanOrEqual(900);
    for (const delivery of degraded) {
      expect(verify(delivery, SECRET)).toBe(true);
      expect(verify(delivery, 'another secret of some length')).toBe(false);
      expect(delivery.headers['x-appbuilder-event']).toBe('deployment.degraded');
    }
    const payload = JSON.parse(degraded[1].body);
    expect(payload).toMatchObject({ event: 'deployment.degraded', applicationId: app.id, data: { serverVersion: app.serverVersion, health: 'degraded', errorRate: 1 } });
    const status = await tenant.api.get<{ status: { deployments: Array<{ health: string }> } }>(`/v1/applications/${app.id}`);
    expect(status.body.status.deployments[0].health).toBe('degraded');

    // As many answers as failures: 3 / 6 is not past 0.5.
    for (let i = 0; i < 3; i++) expect((await app.call('GET', '/toDos', { admin: true })).status).toBe(200);
    const recovered = await until('the recovered event', () => events('deployment.recovered').length >= 1 && events('deployment.recovered'));
    expect(verify(recovered[0], SECRET)).toBe(true);
    expect(JSON.parse(recovered[0].body)).toMatchObject({ event: 'deployment.recovered', data: { serverVersion: app.serverVersion, health: 'ok', errorRate: 0.5 } });
    // Several more checks: nothing more is sent.
    await sleep(3_000);
    expect(events('deployment.degraded')).toHaveLength(2);
    expect(events('deployment.recovered')).toHaveLength(1);

    const webhook = await tenant.api.get<{ deliveries: Array<{ event: string; status: string; attempts: number; lastStatus: number }> }>(`/v1/applications/${app.id}/webhook`);
    expect(webhook.status).toBe(200);
    expect(webhook.body.deliveries.map((d) => [d.event, d.status, d.attempts])).toEqual([
      ['deployment.recovered', 'delivered', 1],
      ['deployment.degraded', 'delivered', 2],
    ]);
  });

  it('sends a failed job of the application once as job.failed', async () => {
    const jobId = uuidv7();
    const project = await sql<{ project_id: string; customer_id: string }>`select project_id, customer_id from appbuilder.applications where id = ${app.id}`.execute(t.platform.db.kysely);
    // A job that failed (as a worker records it): the checker notices it in the jobs table.
    await sql`insert into appbuilder.jobs (id, customer_id, project_id, application_id, job_type, status, metadata, error_message, started_at, completed_at)
      values (${jobId}, ${project.rows[0].customer_id}, ${project.rows[0].project_id}, ${app.id}, 'frontend_bundle', 'failed', '{}', 'The bundle could not be built.', now(), now())`.execute(t.platform.db.kysely);
    const failed = await until('the job.failed event', () => events('job.failed').length >= 1 && events('job.failed'));
    expect(verify(failed[0], SECRET)).toBe(true);
    expect(JSON.parse(failed[0].body)).toMatchObject({ event: 'job.failed', data: { jobId, jobType: 'frontend_bundle', errorMessage: 'The bundle could not be built.' } });
    await sleep(2_500);
    expect(events('job.failed')).toHaveLength(1);
  });

  it('lets a viewer read the logs and the webhook, and only an admin change the webhook', async () => {
    const viewer = await addBuilder(tenant.api, 'viewer');
    const editor = await addBuilder(tenant.api, 'editor');
    const admin = await addBuilder(tenant.api, 'admin');
    expect((await viewer.api.get(`/v1/applications/${app.id}/logs`)).status).toBe(200);
    expect((await viewer.api.get(`/v1/applications/${app.id}/metrics`)).status).toBe(200);
    expect((await viewer.api.get(`/v1/applications/${app.id}/webhook`)).status).toBe(200);
    for (const builder of [viewer, editor]) {
      const refused = await builder.api.put(`/v1/applications/${app.id}/webhook`, { url: receiver.url, secret: SECRET });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('admin');
      expect((await builder.api.delete(`/v1/applications/${app.id}/webhook`)).status).toBe(403);
    }
    expect((await admin.api.put(`/v1/applications/${app.id}/webhook`, { url: receiver.url, secret: SECRET })).status).toBe(200);
  });

  it('is removed with DELETE (204, then 404)', async () => {
    const deleted = await tenant.api.delete(`/v1/applications/${app.id}/webhook`);
    expect(deleted.status).toBe(204);
    expect((await tenant.api.delete(`/v1/applications/${app.id}/webhook`)).status).toBe(404);
  });
});
