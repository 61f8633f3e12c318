// The writer of `npm run bench:realtime` (a third process, so that the server's process does only
// the server's work): `rate` changes a second for `seconds`, open loop (each on its schedule,
// whether or not the previous one has answered), each a `PATCH {apiUrl}/toDos/{id}` by the to-do's
// owner setting the title to a marker, the owners taken in a shuffled round so the changes spread
// over every subscriber. Reads its plan as one line of JSON on stdin; prints one line of JSON:
// per change its marker, when it was sent and when its answer came (the wall clock,
// performance.timeOrigin + now: the commit lies between the two), and the status.
import type { Subscriber } from './setup.ts';

export interface WriterPlan {
  apiUrl: string;
  targets: Array<Pick<Subscriber, 'token' | 'todoId'>>;
  rate: number;
  seconds: number;
  /** Prefix of the markers (one per phase). */
  prefix: string;
}

export type Written = Array<{ marker: string; sentAt: number; answeredAt: number; status: number }>;

const wallNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function change(plan: WriterPlan, i: number, target: WriterPlan['targets'][number]): Promise<Written[number]> {
  const marker = `${plan.prefix}${i}`;
  const sentAt = wallNow();
  try {
    const response = await fetch(`${plan.apiUrl}/toDos/${target.todoId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: marker }),
    });
    await response.arrayBuffer();
    return { marker, sentAt, answeredAt: wallNow(), status: response.status };
  } catch {
    return { marker, sentAt, answeredAt: wallNow(), status: 0 };
  }
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const plan = JSON.parse(input) as WriterPlan;
const order = plan.targets.map((_, i) => i);
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1));
  [order[i], order[j]] = [order[j], order[i]];
}
const total = Math.round(plan.rate * plan.seconds);
const start = performance.now();
const pending: Array<Promise<Written[number]>> = [];
for (let i = 0; i < total; i++) {
  const due = start + (i * 1000) / plan.rate;
  const wait = due - performance.now();
  if (wait > 0) await sleep(wait);
  pending.push(change(plan, i, plan.targets[order[i % order.length]]));
}
process.stdout.write(`${JSON.stringify(await Promise.all(pending))}\n`);
