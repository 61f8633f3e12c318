// The soak (issue 22): mixed traffic against the real service on PostgreSQL for a while, with a
// line per interval: requests, p50/p99, errors by status, RSS and the pool's connections in use.
// The service is the in-process platform of the runtime bench (bench/runtime/setup.ts) with the
// to-do example published and seeded; the load runs in this process too (RSS is of both).
//
// Traffic, from CONCURRENCY loops each acting as one signed-up end user in turn:
//   40 % lists (`/toDos?limit=20`, sorted by deadline every other time), 30 % point reads,
//   20 % writes (create a to-do, then update or delete one created earlier, so the data stays
//   about the same size), 10 % the example's action (`POST /toDos/:id/complete`);
// and a publish of the current version every PUBLISH_EVERY_MS (a deployment job through the queue).
import { startService, type BenchService } from '../runtime/setup.ts';

export interface SoakOptions {
  /** How long the traffic runs. */
  seconds: number;
  /** One line per interval (default 60 s). */
  intervalSeconds?: number;
  concurrency?: number;
  publishEveryMs?: number;
  log?: (line: string) => void;
}

export interface IntervalFigures {
  index: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx, by status (`network` when there was none). */
  errors: Record<string, number>;
  rssMb: number;
  /** V8 heap in use at the interval's end (after a full collection when node runs with --expose-gc). */
  heapMb: number;
  /** Pool connections in use (checked out), the most seen in the interval, and the pool's size at its end. */
  poolInUseMax: number;
  poolOpen: number;
  publishes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

class Interval {
  latencies: number[] = [];
  errors: Record<string, number> = {};
  poolInUseMax = 0;
  publishes = 0;

  record(ms: number, status: number | 'network'): void {
    this.latencies.push(ms);
    if (status === 'network' || status >= 300) this.errors[String(status)] = (this.errors[String(status)] ?? 0) + 1;
  }
}

export function formatInterval(f: IntervalFigures, unit: string): string {
  const errors = Object.keys(f.errors).length === 0 ? 'none' : Object.entries(f.errors).map(([status, n]) => `${n} × ${status}`).join(', ');
  return (
    `${unit} ${f.index}: ${f.requests} requests, p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms, errors ${errors}, ` +
    `RSS ${f.rssMb.toFixed(0)} MB (heap ${f.heapMb.toFixed(0)} MB), pool ${f.poolInUseMax} in use at most / ${f.poolOpen} open, ${f.publishes} publish(es)`
  );
}

/** Runs the soak; returns the figures of every interval (also logged as they close). */
export async function runSoak(options: SoakOptions): Promise<IntervalFigures[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const intervalMs = (options.intervalSeconds ?? 60) * 1000;
  const unit = intervalMs === 60_000 ? 'minute' : `interval (${intervalMs / 1000} s)`;
  const concurrency = options.concurrency ?? 8;
  const publishEveryMs = options.publishEveryMs ?? 60_000;

  const service = await startService('postgres', { users: 200, todosPerUser: 20, signups: concurrency * 2 });
  const db = service.t.platform.db;
  log(`soak: PostgreSQL, ${concurrency} concurrent clients, ${options.seconds} s, one line every ${intervalMs / 1000} s, a publish every ${publishEveryMs / 1000} s`);
  const figures: IntervalFigures[] = [];
  let current = new Interval();
  const stopAt = Date.now() + options.seconds * 1000;
  let running = true;

  const call = async (method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const started = performance.now();
    try {
      const response = await fetch(`${service.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      current.record(performance.now() - started, response.status);
      return { status: response.status, json: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null };
    } catch {
      current.record(performance.now() - started, 'network');
      return { status: 0, json: null };
    }
  };

  const client = async (n: number): Promise<void> => {
    const users = service.users.filter((_, i) => i % concurrency === n);
    const created = new Map<string, string[]>();
    let step = 0;
    while (running) {
      const user = users[step % users.length];
      const mine = created.get(user.id) ?? [];
      created.set(user.id, mine);
      const pick = (step * 7919 + n * 31) % 100;
      step++;
      if (pick < 40) {
        await call('GET', step % 2 === 0 ? '/toDos?limit=20' : '/toDos?limit=20&sort=-deadline', user.token);
      } else if (pick < 70) {
        await call('GET', `/toDos/${user.todoIds[step % user.todoIds.length]}`, user.token);
      } else if (pick < 90) {
        if (mine.length < 5) {
          const reply = await call('POST', '/toDos', user.token, { title: `Soak ${n}-${step}`, status: 'open', user: user.id });
          const id = (reply.json as { id?: string } | null)?.id;
          if (reply.status === 201 && id) mine.push(id);
        } else if (step % 2 === 0) {
          await call('PATCH', `/toDos/${mine[0]}`, user.token, { title: `Soak ${n}-${step} (renamed)` });
        } else {
          await call('DELETE', `/toDos/${mine.shift()!}`, user.token);
        }
      } else {
        await call('POST', `/toDos/${user.todoIds[step % user.todoIds.length]}/complete`, user.token, {});
      }
    }
  };

  const publisher = async (): Promise<void> => {
    while (running) {
      await sleepUntilOrStopped(publishEveryMs, () => running);
      if (!running) return;
      const reply = await service.tenant.api.post<unknown>(`/v1/applications/${service.app.applicationId}/publish`, {});
      if (reply.status === 202) current.publishes++;
      else current.errors[`publish ${reply.status}`] = (current.errors[`publish ${reply.status}`] ?? 0) + 1;
    }
  };

  const sampler = setInterval(() => {
    const pool = db.connections();
    if (pool) current.poolInUseMax = Math.max(current.poolInUseMax, pool.open - pool.idle);
  }, 100);

  const closeInterval = () => {
    const closed = current;
    current = new Interval();
    const sorted = closed.latencies.sort((a, b) => a - b);
    const pool = db.connections();
    const f: IntervalFigures = {
      index: figures.length + 1,
      requests: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      errors: closed.errors,
      ...memory(),
      poolInUseMax: closed.poolInUseMax,
      poolOpen: pool?.open ?? 0,
      publishes: closed.publishes,
    };
    figures.push(f);
    log(formatInterval(f, unit));
  };

  const loops = [...Array.from({ length: concurrency }, (_, n) => client(n)), publisher()];
  try {
    while (Date.now() < stopAt) {
      await sleep(Math.min(intervalMs, stopAt - Date.now()));
      closeInterval();
    }
  } finally {
    running = false;
    await Promise.allSettled(loops);
    clearInterval(sampler);
    await service.close();
  }
  return figures;
}

/** RSS and heap in use; after a full collection when `gc` is exposed (`NODE_OPTIONS=--expose-gc`). */
function memory(): { rssMb: number; heapMb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rssMb: usage.rss / 1024 / 1024, heapMb: usage.heapUsed / 1024 / 1024 };
}

async function sleepUntilOrStopped(ms: number, stillRunning: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (stillRunning() && Date.now() < until) await sleep(Math.min(250, until - Date.now()));
}

export type { BenchService };
