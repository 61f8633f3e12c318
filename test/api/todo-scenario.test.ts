/**
 * The to-do example edited step by step through the management API, then read
 * back in `…/versions` (spec endpoint 5). The expected bump of every step comes
 * from the table in src/definition/versioning/bump.ts:
 *
 * | step                                         | table row                                    | bump  | serverVersion |
 * |----------------------------------------------|----------------------------------------------|-------|---------------|
 * | create (the example's `version`)             | —                                            | —     | 1.0.1         |
 * | rename model ToDo → Task (endpoint 1)        | model removed / renamed                      | major | 2.0.0         |
 * | add field Task.priority, min 0               | field added, optional                        | minor | 2.1.0         |
 * | remove field Task.description                | field removed                                | major | 3.0.0         |
 * | insert an effect at the start (endpoint 4)   | effects                                      | patch | 3.0.1         |
 * | insert an effect in the middle               | effects                                      | patch | 3.0.2         |
 * | insert an effect at the end                  | effects                                      | patch | 3.0.3         |
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';

const drivers = await availableDrivers();

interface VersionRecord {
  id: string;
  applicationId: string;
  serverVersion: string;
  scode: AppDefinition;
  createdAt: string;
  updatedAt: string;
}

const note = (id: string, next?: string) => ({
  actionEffectId: id,
  effect: 'flow.set',
  params: { name: 'phase', value: id },
  ...(next ? { next } : {}),
});

const task = (scode: AppDefinition) => scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
const fieldNames = (scode: AppDefinition) => task(scode).fields.map((f) => f.name);
const effectIds = (scode: AppDefinition) =>
  scode.actions.find((a) => a.id === 'urn:svc:action:complete-todo')!.effects.map((e) => e.actionEffectId);
const modelParams = (scode: AppDefinition) => scode.actions.flatMap((a) => a.effects.flatMap((e) => (e.params?.model ? [e.params.model] : [])));

describe.each(drivers)('the to-do example, edited step by step (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  /** The Application answered by each step, oldest first (index 0 = the created one). */
  const steps: Array<{ label: string; reply: AppReply }> = [];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Scenario');
    app = await createTodoApp(tenant);
    steps.push({ label: 'create', reply: app });
  });
  afterAll(() => t?.close());

  const base = () => `/v1/applications/${app.id}`;
  async function step(label: string, send: () => Promise<{ status: number; body: unknown; text: string }>, expected: string) {
    const reply = await send();
    expect(reply.status, `${label}: ${reply.text}`).toBe(200);
    const body = reply.body as AppReply;
    expect(body.id).toBe(app.id);
    expect(body.serverVersion, label).toBe(expected);
    steps.push({ label, reply: body });
    return body;
  }

  it('starts at the example\'s own version', () => {
    expect(app.serverVersion).toBe('1.0.1');
    expect(task(app.scode).name).toBe('ToDo');
  });

  it('renames ToDo → Task (endpoint 1): major', async () => {
    const after = await step('rename', () => tenant.api.patch(`${base()}/models/urn:svc:model:todo`, { name: 'Task' }), '2.0.0');
    expect(task(after.scode).name).toBe('Task');
    // Effects name the model by name; the rename carries over to them.
    expect(modelParams(after.scode)).toEqual(['Task', 'Task', 'Task']);
    expect(fieldNames(after.scode)).toEqual(fieldNames(app.scode));
  });

  it('adds an optional field: minor', async () => {
    const after = await step(
      'add field',
      () => tenant.api.post(`${base()}/models/urn:svc:model:todo/fields`, { name: 'priority', to: 'p_NUMBER', min: 0, max: 1 }),
      '2.1.0',
    );
    expect(fieldNames(after.scode)).toEqual(['title', 'description', 'deadline', 'status', 'user', 'priority']);
    expect(task(after.scode).fields[5]).toMatchObject({ to: 'p_NUMBER', min: 0, max: 1, id: expect.stringMatching(/^urn:svc:edge:/) });
  });

  it('removes a field: major', async () => {
    const after = await step('remove field', () => tenant.api.delete(`${base()}/models/urn:svc:model:todo/fields/urn:svc:edge:todo-description`), '3.0.0');
    expect(fieldNames(after.scode)).toEqual(['title', 'deadline', 'status', 'user', 'priority']);
  });

  it('inserts effects at the start, in the middle and at the end of an action (endpoint 4): patch each', async () => {
    const path = () => `${base()}/actions/urn:svc:action:complete-todo/effects`;
    const insert = (index: number, effect: unknown) => () => tenant.api.post(path(), [{ index, modification: 'insert', effect }]);

    const start = await step('insert at start', insert(0, note('note-start', 'load')), '3.0.1');
    expect(effectIds(start.scode)).toEqual(['note-start', 'load', 'check', 'save', 'forbidden']);

    const middle = await step('insert in the middle', insert(2, note('note-middle')), '3.0.2');
    expect(effectIds(middle.scode)).toEqual(['note-start', 'load', 'note-middle', 'check', 'save', 'forbidden']);

    const end = await step('insert at end', insert(6, note('note-end')), '3.0.3');
    expect(effectIds(end.scode)).toEqual(['note-start', 'load', 'note-middle', 'check', 'save', 'forbidden', 'note-end']);
    expect(end.scode.actions[0].effects[6]).toEqual(note('note-end'));
  });

  it('reads every step back in …/versions, newest first, each with the definition of its step', async () => {
    const list = await tenant.api.get<{ items: VersionRecord[]; metadata: { total: number } }>(`${base()}/versions`);
    expect(list.status).toBe(200);
    expect(list.body.metadata.total).toBe(7);
    expect(list.body.items.map((v) => v.serverVersion)).toEqual(['3.0.3', '3.0.2', '3.0.1', '3.0.0', '2.1.0', '2.0.0', '1.0.1']);
    expect(steps.map((s) => s.label)).toEqual(['create', 'rename', 'add field', 'remove field', 'insert at start', 'insert in the middle', 'insert at end']);

    const newestFirst = [...steps].reverse();
    list.body.items.forEach((version, i) => {
      expect(version.applicationId).toBe(app.id);
      // The stored definition is the one the step answered, member for member.
      expect(version.scode, newestFirst[i].label).toEqual(newestFirst[i].reply.scode);
      if (i > 0) expect(Date.parse(version.createdAt)).toBeLessThanOrEqual(Date.parse(list.body.items[i - 1].createdAt));
    });
    expect(new Set(list.body.items.map((v) => v.id)).size).toBe(7);

    const at = (v: string) => list.body.items.find((item) => item.serverVersion === v)!.scode;
    expect(task(at('1.0.1')).name).toBe('ToDo');
    expect(task(at('2.0.0')).name).toBe('Task');
    expect(fieldNames(at('2.0.0'))).not.toContain('priority');
    expect(fieldNames(at('2.1.0'))).toContain('priority');
    expect(fieldNames(at('2.1.0'))).toContain('description');
    expect(fieldNames(at('3.0.0'))).not.toContain('description');
    expect(effectIds(at('3.0.0'))).toEqual(['load', 'check', 'save', 'forbidden']);
    expect(effectIds(at('3.0.1'))[0]).toBe('note-start');
    expect(effectIds(at('3.0.2'))).toHaveLength(6);
    expect(effectIds(at('3.0.3')).at(-1)).toBe('note-end');

    // The application itself is at the newest version.
    const current = await tenant.api.get<AppReply>(base());
    expect(current.body.serverVersion).toBe('3.0.3');
    expect(current.body.scode).toEqual(at('3.0.3'));
  });

  it('describes each step in the diff of consecutive versions', async () => {
    const expectations: Array<[string, string, RegExp]> = [
      ['1.0.1', '2.0.0', /model ToDo renamed to Task/],
      ['2.0.0', '2.1.0', /field Task\.priority added/],
      ['2.1.0', '3.0.0', /field Task\.description removed/],
      ['3.0.0', '3.0.1', /effect 'note-start' added/],
      ['3.0.1', '3.0.2', /effect 'note-middle' added/],
      ['3.0.2', '3.0.3', /effect 'note-end' added/],
    ];
    for (const [from, to, summary] of expectations) {
      const diff = await tenant.api.get<{ changes: Array<{ summary: string }> }>(`${base()}/versions/${from}/diff/${to}`);
      expect(diff.status).toBe(200);
      expect(diff.body.changes.map((c) => c.summary).join('\n'), `${from} → ${to}`).toMatch(summary);
    }
  });
});
