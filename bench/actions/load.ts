// The load generator, run as a second process by main.ts: autocannon against one origin, each
// request the next of the plan's requests in turn (method, path, headers, body), a short warm-up
// first, then one measurement bounded in time. Reads its plan as JSON from stdin (too long for an
// argument with a thousand tokens in it); prints the result as one line of JSON.

export interface PlannedRequest {
  method: string;
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

// The part of autocannon's programmatic API used here (it ships no types of its own).
interface AutocannonRequest extends Partial<PlannedRequest> {
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: { url: string; connections: number; duration: number; requests: AutocannonRequest[] }) => Promise<AutocannonResult>;

async function run(autocannon: Autocannon, plan: LoadPlan, seconds: number): Promise<LoadResult> {
  let next = 0;
  const result = await autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: seconds,
    requests: [
      {
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

const autocannonModule = 'autocannon';
const autocannon = ((await import(autocannonModule)) as { default: Autocannon }).default;
let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const plan = JSON.parse(input) as LoadPlan;
if (plan.warmupSeconds > 0) await run(autocannon, plan, plan.warmupSeconds);
process.stdout.write(`${JSON.stringify(await run(autocannon, plan, plan.seconds))}\n`);
