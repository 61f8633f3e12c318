// The load generator, run as a second process by measure.ts: autocannon against one origin, each
// request the next of the plan's requests in turn (method, GET when absent; path, headers, body),
// a short warm-up first, then one measurement bounded in time. Reads its plan as JSON from stdin
// (too long for an argument with a thousand tokens in it); prints the result as one line of JSON.
import autocannon from 'autocannon';

export interface PlannedRequest {
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadPlan {
  url: string;
  requests: PlannedRequest[];
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function run(plan: LoadPlan, seconds: number): Promise<LoadResult> {
  let next = 0;
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const chosen = plan.requests[next++ % plan.requests.length];
          return { ...request, ...chosen, headers: { ...request.headers, ...chosen.headers } };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const plan = JSON.parse(input) as LoadPlan;
if (plan.warmupSeconds > 0) await run(plan, plan.warmupSeconds);
process.stdout.write(`${JSON.stringify(await run(plan, plan.seconds))}\n`);
