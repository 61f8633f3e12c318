// SMTP_URL as the outside review attacked it: an editor (who may set variables, not secrets) set
// the app variable SMTP_URL to a server of theirs on 127.0.0.1, and the service connected to it
// (the outbound guard skipped) and routed every account mail, reset links included, there. Now
// SMTP_URL is read only from the app's secrets (a variable of that name is refused at save, and
// one stored before is ignored), and the mail server is reached through the outbound guard: a
// secret pointing at a loopback address is refused unless APPBUILDER_HTTP_ALLOW lists it.
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { addBuilder, type TestBuilder } from '../access/builders-support.ts';
import { TestSmtpServer } from '../accounts/email-server.ts';
import { scodeWithVerified } from '../accounts/sessions-app.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi } from '../runtime/served-app.ts';

type Problem = { status: number; detail: string; errors: Array<{ path: string; message: string }> };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(await availableDrivers())('SMTP_URL on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let smtp: TestSmtpServer;
  const log: string[] = [];
  let editor: TestBuilder;
  const previousAllow = process.env.APPBUILDER_HTTP_ALLOW;
  const setSecret = async (value: string) => {
    expect((await tenant.api.request('PUT', `/v1/applications/${api.applicationId}/secrets/SMTP_URL`, { body: { value } })).status).toBeLessThan(300);
  };
  /** The mail jobs' failures logged so far (each names the server and the reason, never the message). */
  const refusals = () => log.filter((line) => line.includes('an end-user mail could not be sent')).map((line) => String((JSON.parse(line) as { error?: string }).error));
  const allowLoopback = (on: boolean) => {
    if (on) process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    else delete process.env.APPBUILDER_HTTP_ALLOW;
  };

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
    t = await startTestPlatform(driver, {}, stream);
    tenant = await createTenant(t, 'SMTP');
    const app = await createTodoApp(tenant, scodeWithVerified());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    editor = await addBuilder(tenant.api, 'editor', null, 'hostile editor');
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee']) await api.signup(name, `${name.toLowerCase()}@example.test`);
  });
  afterAll(async () => {
    if (previousAllow === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = previousAllow;
    await t?.close();
    await smtp?.close();
  });

  it("refuses the editor's variable SMTP_URL at save, and ignores one stored before: no mail goes to 127.0.0.1", async () => {
    // The loopback is allowed here, so only the variable rule stands between the editor and the mails.
    allowLoopback(true);
    const applicationId = api.applicationId;
    for (const path of [`/v1/applications/${applicationId}/variables/SMTP_URL`, `/v1/projects/${tenant.projectId}/variables/SMTP_URL`]) {
      const refused = await editor.api.request<Problem>('PUT', path, { body: { value: smtp.url } });
      expect(refused.status, path).toBe(409);
      expect(refused.body.detail).toContain('SMTP_URL');
      expect(refused.body.errors[0]).toMatchObject({ path: '/name', message: expect.stringContaining('secret') });
    }
    // A variable of that name stored before the rule (written as the old service did), then a change the runtime hears of.
    const db = t.platform.db.kysely;
    const customer = await sql<{ customer_id: string }>`select customer_id from appbuilder.applications where id = ${applicationId}`.execute(db);
    await sql`insert into appbuilder.config_values (id, customer_id, owner_id, application_id, kind, name, value, updated_by)
      values (${randomUUID()}, ${customer.rows[0].customer_id}, ${applicationId}, ${applicationId}, 'variable', 'SMTP_URL', ${smtp.url}, ${JSON.stringify({ type: 'builder', id: editor.id })})`.execute(db);
    expect((await editor.api.request('PUT', `/v1/applications/${applicationId}/variables/MAIL_FROM`, { body: { value: 'x@example.test' } })).status).toBe(201);

    const reset = await api.post<Problem>('/auth/password/request', { email: 'ann@example.test' });
    expect(reset.status).toBe(503);
    expect(reset.body.detail).toContain('SMTP_URL secret');
    await sleep(1000);
    expect(smtp.count('ann@example.test')).toBe(0);
    // An admin removes it (a name is a variable or a secret, not both) before setting the secret.
    expect((await tenant.api.request('DELETE', `/v1/applications/${applicationId}/variables/SMTP_URL`)).status).toBe(204);
  });

  it('refuses a secret SMTP_URL pointing at a loopback address through the outbound guard, unless APPBUILDER_HTTP_ALLOW lists it', async () => {
    allowLoopback(false);
    await setSecret(smtp.url);
    expect((await api.post('/auth/password/request', { email: 'bob@example.test' })).status).toBe(202);
    await setSecret(`smtp://localhost:${smtp.port}`);
    expect((await api.post('/auth/password/request', { email: 'cid@example.test' })).status).toBe(202);
    for (let deadline = Date.now() + 15_000; refusals().length < 2 && Date.now() < deadline; ) await sleep(100);
    const [loopback, named] = refusals();
    expect(loopback).toMatch(/the mail server \(SMTP_URL\) to 127\.0\.0\.1 refused: it resolves to 127\.0\.0\.1, a private or special-purpose address/);
    expect(named).toMatch(/the mail server \(SMTP_URL\) to localhost refused/);

    // With the test allowance the same server is reached: the mail queue has run past the refused jobs.
    allowLoopback(true);
    await setSecret(smtp.url);
    expect((await api.post('/auth/password/request', { email: 'dee@example.test' })).status).toBe(202);
    const mail = await smtp.next('dee@example.test');
    expect(mail.subject).toMatch(/password/i);
    await sleep(500);
    expect(smtp.count('bob@example.test')).toBe(0);
    expect(smtp.count('cid@example.test')).toBe(0);
  });
});
