// Explain agrees with the real request, on both drivers: for the to-do example and for an app with
// field rules and a relationship rule, random records and callers (owner, other user, nobody) and
// every operation, explain's status and decision match what the same request then answers for
// real; its rows and hidden fields match what the caller got against what exists; and the explained
// write changed nothing (the record and the row count before and after).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type As, type Page, type Rec } from '../runtime/served-app.ts';
import { teamScode } from './team-app.ts';

/** Cases per app and driver: 2 apps × 250 = 500 per driver. */
const RUNS = Number(process.env.EXPLAIN_RUNS ?? 250);

interface Explanation {
  status: number;
  decision: 'allow' | 'deny' | 'filtered';
  checks: Array<{ result: unknown; operation: string }>;
  rows: { visible: number; hidden: number };
  fieldsHidden: string[];
}

type Who = 'owner' | 'other' | 'anonymous';
type Op = 'list' | 'read' | 'create' | 'update' | 'delete';

interface AppUnderTest {
  resource: string;
  /** A record's body owned by `owner`, from random parts. */
  body(owner: string, text: string, members: string[], note: string | null): Record<string, unknown>;
  change(text: string, note: string | null): Record<string, unknown>;
  filter(letter: string): string;
}

const TODO: AppUnderTest = {
  resource: 'toDos',
  body: (owner, text) => ({ title: text, user: owner }),
  change: (text) => ({ title: `${text}!`, status: 'done' }),
  filter: (letter) => `record.title.startsWith('${letter}')`,
};
const TEAM: AppUnderTest = {
  resource: 'projects',
  body: (owner, text, members, note) => ({ name: text, owner, members, ...(note === null ? {} : { note }) }),
  change: (text, note) => ({ name: `${text}!`, ...(note === null ? {} : { note }) }),
  filter: (letter) => `record.name.startsWith('${letter}')`,
};

const arbitraryCase = fc.record({
  who: fc.constantFrom<Who>('owner', 'other', 'anonymous'),
  op: fc.constantFrom<Op>('list', 'read', 'create', 'update', 'delete'),
  ownerIndex: fc.integer({ min: 0, max: 2 }),
  text: fc.stringMatching(/^[a-c][a-z ]{0,8}$/),
  members: fc.subarray([0, 1, 2]),
  note: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  filtered: fc.boolean(),
});

describe.each(await availableDrivers())('explain agrees with the real request on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  const served = new Map<AppUnderTest, { api: ServedApi; appId: string; users: Array<{ token: string; user: Rec }> }>();

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Agreement');
    for (const [spec, scode] of [[TODO, todoScodeWithoutEvents()], [TEAM, teamScode()]] as const) {
      const app = await createTodoApp(tenant, scode);
      await publish(tenant, app.id);
      const api = new ServedApi(t, tenant, app.id, app.serverVersion);
      const users = [];
      for (const name of ['Ann', 'Bob', 'Cy']) users.push(await api.signup(name, `${name.toLowerCase()}@example.test`));
      served.set(spec, { api, appId: app.id, users });
    }
  }, 120_000);
  afterAll(() => t?.close());

  const run = async (spec: AppUnderTest) => {
    const { api, appId, users: appUsers } = served.get(spec)!;
    await fc.assert(
      fc.asyncProperty(arbitraryCase, async (c) => {
        const owner = appUsers[c.ownerIndex];
        const other = appUsers[(c.ownerIndex + 1) % appUsers.length];
        const caller = c.who === 'owner' ? owner : c.who === 'other' ? other : null;
        const as: As = caller ? caller.token : null;
        const members = c.members.map((i) => appUsers[i].user.id);
        const record = (await api.post(`/${spec.resource}`, spec.body(owner.user.id, c.text, members, c.note), 'admin')).body;
        expect(record.id).toBeTruthy();
        const base = `/${spec.resource}`;
        const filter = c.filtered ? spec.filter(c.text[0]) : undefined;
        const [method, path, body] =
          c.op === 'list' ? ['GET', filter ? `${base}?filter=${encodeURIComponent(filter)}` : base, undefined]
          : c.op === 'read' ? ['GET', `${base}/${record.id}`, undefined]
          : c.op === 'create' ? ['POST', base, spec.body(owner.user.id, c.text, members, c.note)]
          : c.op === 'update' ? ['PATCH', `${base}/${record.id}`, spec.change(c.text, c.note)]
          : ['DELETE', `${base}/${record.id}`, undefined];

        const count = async () => (await api.get<Page>(`${base}?limit=0`, 'admin')).body.total;
        const before = { count: await count(), record: (await api.get(`${base}/${record.id}`, 'admin')).body };
        const explained = await tenant.api.post<Explanation>(`/v1/applications/${appId}/explain`, {
          as: caller ? { userId: caller.user.id } : 'anonymous',
          request: { method, path, ...(body === undefined ? {} : { body }) },
        });
        expect(explained.status, explained.text).toBe(200);
        const e = explained.body;
        // Nothing changed by explaining.
        expect(await count()).toBe(before.count);
        expect((await api.get(`${base}/${record.id}`, 'admin')).body).toEqual(before.record);

        const real = await api.call<Rec & Page>(method, path, as, body);
        expect(e.status).toBe(real.status);
        const ok = real.status >= 200 && real.status < 300;
        expect(e.decision === 'deny').toBe(!ok);
        if (c.op === 'list') {
          const all = (await api.get<Page>(filter ? `${path}&limit=0` : `${path}?limit=0`, 'admin')).body.total;
          expect(e.rows).toEqual({ visible: real.body.total, hidden: all - real.body.total });
        }
        if (c.op === 'read' && ok) {
          const hidden = Object.keys(before.record).filter((key) => !(key in real.body));
          expect([...e.fieldsHidden].sort()).toEqual(hidden.sort());
          expect(e.decision).toBe(hidden.length > 0 ? 'filtered' : 'allow');
        }
        if (c.op === 'read') expect(e.rows).toEqual(ok ? { visible: 1, hidden: 0 } : { visible: 0, hidden: 1 });
        // A decided one-record operation names the rule that let it through.
        if (ok && c.op !== 'list') expect(e.checks.some((check) => check.result === true)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  };

  it(`the to-do example: ${RUNS} random cases`, async () => run(TODO), 600_000);
  it(`field rules and a relationship rule: ${RUNS} random cases`, async () => run(TEAM), 600_000);
});
