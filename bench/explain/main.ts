// `npm run bench:explain`: what explaining a list of 20 costs against the list itself, in the same
// run on the same data. The explained list is the same request (a signed-in user's `GET /toDos`,
// 20 of their 100 to-dos among 200) run for real by the version's routes in a rolled-back
// transaction, plus the rule checks, a count of the rows the caller does not see and the
// management API's own authentication. Requests go one at a time, the two sides alternating;
// prints the median latency of each and their ratio (target ≤ 3×); asserts nothing.
//
// Environment: BENCH_ITERATIONS (requests per side, default 300), BENCH_DRIVERS (as bench/support/measure.ts).
import type { Driver } from '../../src/storage/db.ts';
import { startTestPlatform } from '../../test/support/platform.ts';
import { createTenant, createTodoApp } from '../../test/support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from '../../test/runtime/served-app.ts';
import { forEachDriver, median } from '../support/measure.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);

async function timed(run: () => Promise<Response>): Promise<number> {
  const start = performance.now();
  const response = await run();
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`answered ${response.status}`);
  return performance.now() - start;
}

async function benchDriver(driver: Driver): Promise<void> {
  const t = await startTestPlatform(driver);
  try {
    const tenant = await createTenant(t, 'Bench explain');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await api.signup('Ann', 'ann@example.test');
    const bob = await api.signup('Bob', 'bob@example.test');
    for (let i = 0; i < 100; i++) {
      await api.post('/toDos', { title: `Ann ${i}`, user: ann.user.id }, 'admin');
      await api.post('/toDos', { title: `Bob ${i}`, user: bob.user.id }, 'admin');
    }
    const list = () => fetch(`${api.base}/toDos?limit=20`, { headers: { authorization: `Bearer ${ann.token}` } });
    const explainBody = JSON.stringify({ as: { userId: ann.user.id }, request: { method: 'GET', path: '/toDos', query: { limit: '20' } } });
    const explain = () =>
      fetch(`${t.baseUrl}/v1/applications/${app.id}/explain`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey!, 'content-type': 'application/json' },
        body: explainBody,
      });
    // Warm both paths (compiled rules, prepared statements, caches).
    for (let i = 0; i < 30; i++) {
      await timed(list);
      await timed(explain);
    }
    const lists: number[] = [];
    const explains: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      if (i % 2 === 0) {
        lists.push(await timed(list));
        explains.push(await timed(explain));
      } else {
        explains.push(await timed(explain));
        lists.push(await timed(list));
      }
    }
    const l = median(lists);
    const e = median(explains);
    console.log(`\n${driver}: ${ITERATIONS} requests per side, one at a time, alternating`);
    console.log(`  GET /toDos?limit=20 (a signed-in user)   median ${l.toFixed(2)} ms`);
    console.log(`  explain of the same list                 median ${e.toFixed(2)} ms`);
    console.log(`  ratio                                    ${(e / l).toFixed(2)}× (target ≤ 3×)`);
  } finally {
    await t.close();
  }
}

await forEachDriver(benchDriver);
