// `appbuilder explain` and `appbuilder access` against a running service: the same answers as the
// management API, printed for people and with --json; publish prints the advice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, signup, startService, type RunningService } from './support.ts';
import { EXAMPLES_DIR } from '../support/examples.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService();
}, 300_000);
afterAll(async () => {
  await service?.stop();
});

describe('appbuilder explain and access', { timeout: 300_000 }, () => {
  let apiUrl = '';
  let ann: { token: string; user: { id: string } };
  let bob: { token: string; user: { id: string } };
  let todoId = '';

  it('publish prints the advice (none for the example)', async () => {
    const applied = await cli(['apply', '-f', join(EXAMPLES_DIR, 'todo.app.json'), '--project', 'Advisor', '--publish', '--wait', '--json'], service.env);
    expect(applied.code, applied.stderr).toBe(0);
    const published = await cli(['publish', 'todo', '--wait', '--json'], service.env);
    expect(published.code, published.stderr).toBe(0);
    const answer = JSON.parse(published.stdout) as { advice: unknown[]; deployments: Array<{ state: string; apiUrl?: string }> };
    expect(answer.advice).toEqual([]);
    apiUrl = answer.deployments.find((d) => d.state === 'active')!.apiUrl!;
    ann = await signup(apiUrl, 'Ann');
    bob = await signup(apiUrl, 'Bob');
    const created = await fetch(`${apiUrl}/toDos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ann.token}` },
      body: JSON.stringify({ title: 'Mine', user: ann.user.id }),
    });
    expect(created.status).toBe(201);
    todoId = ((await created.json()) as { id: string }).id;
  });

  it('explain prints the decision and each rule check, and --json the explanation', async () => {
    const human = await cli(['explain', 'todo', '--as', ann.user.id, '--', 'GET', `/toDos/${todoId}`], service.env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`GET /toDos/${todoId} as ${ann.user.id}: 200 allow`);
    expect(human.stdout).toContain(`ToDo read rule 0: auth != null && record.user == auth.id → true (auth.id=${ann.user.id}, record.user=${ann.user.id})`);
    const other = await cli(['explain', 'todo', '--as', bob.user.id, '--json', '--', 'GET', `/toDos/${todoId}`], service.env);
    expect(other.code, other.stderr).toBe(0);
    expect(JSON.parse(other.stdout)).toMatchObject({ status: 404, decision: 'deny', rows: { visible: 0, hidden: 1 } });
    const write = await cli(['explain', 'todo', '--as', 'anonymous', '--body', '{"title":"x"}', '--', 'patch', `/toDos/${todoId}`], service.env);
    expect(write.stdout).toContain('404 deny');
    const bad = await cli(['explain', 'todo', '--', 'GET', '/toDos'], service.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--as is required');
  });

  it('access prints the matrix and the advice, and --json the matrix', async () => {
    const human = await cli(['access', 'todo'], service.env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('ToDo (owner: user)');
    expect(human.stdout).toContain('read    anonymous: never  signedIn: when record.user == auth.id  owner: always  admin: always');
    expect(human.stdout).toContain('advice: none');
    const machine = await cli(['access', 'todo', '--json'], service.env);
    const matrix = JSON.parse(machine.stdout) as { models: Array<{ model: string; operations: Record<string, unknown> }>; advice: unknown[] };
    expect(matrix.models.map((m) => m.model)).toEqual(['ToDo', 'User']);
    expect(matrix.models[0].operations.delete).toEqual({ anonymous: 'never', signedIn: { when: 'record.user == auth.id' }, owner: 'always', admin: 'always' });
  });
});
