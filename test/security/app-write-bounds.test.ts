// Hostile writes to a generated app: a to-many array of 50,000 ids took 10 s to refuse, and a
// date that is not on the calendar (2030-02-30) was stored as another day (2030-03-02).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WRITE_ARRAY } from '../../src/runtime/writes/values.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from '../runtime/served-app.ts';

describe.each(await availableDrivers())('bounded app writes on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Write bounds');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = (await api.post<{ token: string; user: Rec }>('/auth/signup', { name: 'Ann', email: 'ann@bounds.test', password: 'correct horse' })).body;
  });
  afterAll(() => t?.close());

  it(`refuses a to-many write of more than ${MAX_WRITE_ARRAY} ids at once with 422 naming the field, and changes nothing`, async () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => `0190f0f0-0000-7000-8000-${String(i).padStart(12, '0')}`);
    const started = Date.now();
    const answer = await api.patch<ProblemBody>(`/users/${ann.user.id}`, { todos: ids }, ann.token);
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([{ path: '/todos', message: `holds at most ${MAX_WRITE_ARRAY} values in one write (50000 sent)` }]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await api.get<Rec>('/auth/me', ann.token)).body.todos).toEqual([]);
  });

  it('refuses a date or date-time that is not on the calendar, and keeps a real one as sent', async () => {
    for (const deadline of ['2030-02-30T10:00:00Z', '2031-02-29T00:00:00Z', '2030-13-01T00:00:00Z']) {
      const answer = await api.post<ProblemBody>('/toDos', { title: 'Bad day', deadline, user: ann.user.id }, ann.token);
      expect(answer.status, deadline).toBe(422);
      expect(answer.body.errors.map((e) => e.path)).toEqual(['/deadline']);
    }
    const leap = await api.post<Rec>('/toDos', { title: 'Leap day', deadline: '2032-02-29T10:00:00Z', user: ann.user.id }, ann.token);
    expect(leap.status).toBe(201);
    expect(leap.body.deadline).toBe('2032-02-29T10:00:00.000Z');
  });
});
