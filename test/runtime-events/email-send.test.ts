// email.send (DESIGN §7) against a real SMTP server started here (smtp-server), on both drivers:
// the mail of a committed run arrives once, its Mustache templates filled over the action's scope
// (the HTML part escaped, the text part not); a rolled-back run sends nothing; the stored run
// names the recipients and subject but holds no body, and the outbox row drops the body once sent.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { allowLoopbackMail, TestSmtpServer } from '../accounts/email-server.ts';
import { callApp, publish, runsOf, signup, sleep, startEventsPlatform, waitFor, type StoredRun } from './support.ts';

const TEXT = 'Hello {{event.payload.title}}, see {{env.SITE}} — #{{event.payload.id}}';

function mailScode(): unknown {
  const scode = todoScode() as unknown as { actions: unknown[]; triggers: unknown[] };
  const send = { actionEffectId: 'mail', effect: 'email.send', params: { to: 'owner@example.test', subject: 'New to-do: {{event.payload.title}}', text: TEXT, html: '<p>{{event.payload.title}}</p>' } };
  scode.actions.push(
    { id: 'urn:svc:action:mail', startEffectId: 'mail', effects: [send] },
    {
      id: 'urn:svc:action:mail-then-fail',
      startEffectId: 'mail',
      effects: [
        { ...send, params: { ...send.params, to: 'never@example.test' }, next: 'fail' },
        { actionEffectId: 'fail', effect: 'flow.fail', params: { status: 500, message: 'failed after the mail' } },
      ],
    },
  );
  const on = (id: string, title: string, actionId: string) => ({
    trigger: { id: `urn:svc:trigger:${id}`, type: 'event', eventName: 'ToDo.created', payload: { title } },
    actionId: `urn:svc:action:${actionId}`,
    initialState: {},
    validation: [],
  });
  scode.triggers.push(on('on-mail', 'Buy <milk> & eggs', 'mail'), on('on-mail-fail', 'mail then fail', 'mail-then-fail'));
  return scode;
}

describe.each(await availableDrivers())('email.send (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let smtp: TestSmtpServer;
  let restoreAllow: () => void;
  let app: { id: string; serverVersion: string };
  let alice: { token: string; id: string };
  const runsFor = async (trigger: string): Promise<StoredRun[]> => (await runsOf(t.database.db, app.id)).filter((r) => r.trigger_id === `urn:svc:trigger:${trigger}`);
  const create = (title: string) => callApp<{ id: string }>(t, tenant, app, 'POST', '/toDos', alice.token, { title, status: 'open', user: alice.id });
  const setValue = async (kind: 'variables' | 'secrets', name: string, value: string) => {
    const reply = await tenant.api.request('PUT', `/v1/applications/${app.id}/${kind}/${name}`, { body: { value } });
    expect(reply.status).toBeLessThan(300);
  };

  beforeAll(async () => {
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    t = await startEventsPlatform(driver);
    tenant = await createTenant(t, 'Mail');
    const created = await createTodoApp(tenant, mailScode());
    app = { id: created.id, serverVersion: (await publish(tenant, created.id)).serverVersion };
    await setValue('secrets', 'SMTP_URL', smtp.url);
    await setValue('variables', 'SITE', 'https://todo.example.test/?a=1&b=2');
    await setValue('variables', 'MAIL_FROM', 'To-do <todo@example.test>');
    alice = await signup(t, tenant, app, 'Alice');
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    restoreAllow?.();
  });

  it('sends the mail of a committed run once, its templates filled, and records the run without the body', async () => {
    const todo = await create('Buy <milk> & eggs');
    expect(todo.status).toBe(201);
    const mail = await smtp.next('owner@example.test', 30_000);
    expect(mail.subject).toBe('New to-do: Buy <milk> & eggs');
    expect(mail.from).toContain('todo@example.test');
    // Text as written; HTML escaped.
    expect(mail.text.trim()).toBe(`Hello Buy <milk> & eggs, see https://todo.example.test/?a=1&b=2 — #${todo.body.id}`);
    expect(mail.html).toBe('<p>Buy &lt;milk&gt; &amp; eggs</p>');

    const [run] = await waitFor(() => runsFor('on-mail'), (runs) => runs.length === 1, 15_000, 'the run');
    expect(run.status).toBe('succeeded');
    const stored = (await sql<{ steps: unknown }>`select steps from appbuilder.runs where id = ${run.id}`.execute(t.database.db.kysely)).rows[0];
    const steps = typeof stored.steps === 'string' ? JSON.parse(stored.steps) : stored.steps;
    expect(steps).toMatchObject([{ actionEffectId: 'mail', effect: 'email.send', output: { to: ['owner@example.test'], subject: 'New to-do: Buy <milk> & eggs', queued: true } }]);
    expect(JSON.stringify(steps)).not.toContain('Hello');
    expect(JSON.stringify(steps)).not.toContain('<p>');

    // The outbox row keeps no body once sent; and nothing more arrives (sent once).
    await waitFor(
      async () => (await sql<{ payload: unknown }>`select payload from appbuilder.events where name = '$mail'`.execute(t.database.db.kysely)).rows.map((r) => JSON.stringify(r.payload)),
      (rows) => rows.length === 1 && !rows[0].includes('Hello'),
      15_000,
      'the sent row to drop its body',
    );
    await sleep(1_500);
    expect(smtp.count('owner@example.test')).toBe(0);
  });

  it('sends nothing for a run that fails after email.send (rolled back)', async () => {
    const before = (await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where name = '$mail'`.execute(t.database.db.kysely)).rows[0].n;
    expect((await create('mail then fail')).status).toBe(201);
    const [run] = await waitFor(() => runsFor('on-mail-fail'), (runs) => runs.length === 1, 15_000, 'the failed run');
    expect(run.status).toBe('failed');
    // A mail of a committed run goes out within a second here; give this one three.
    await sleep(3_000);
    expect(smtp.count('never@example.test')).toBe(0);
    const after = (await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where name = '$mail'`.execute(t.database.db.kysely)).rows[0].n;
    expect(after).toBe(before);
  });
});
