// The load process of `npm run bench:realtime` (main.ts spawns it): opens one SSE stream per token
// (`GET {apiUrl}/realtime?subscribe=toDos`, node:http, no pooling limit), `concurrency` at a time,
// and notes when each change arrives (the wall clock: performance.timeOrigin + now, comparable with
// the writer's in the other process). Line protocol on stdin/stdout: the plan (one line of JSON) in,
// `{"ready":…}` out once every stream is open; then `report` in, the arrivals and counts out, and
// the process closes its streams and exits.
import { Agent, request, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';

export interface SubscriberPlan {
  apiUrl: string;
  tokens: string[];
  concurrency: number;
}

export interface Ready {
  ready: true;
  opened: number;
  failed: number;
  /** The first refusal's status and body, when some failed. */
  firstFailure?: string;
  connectMs: number;
  rssMb: number;
}

export interface Report {
  /** [marker (the record's title), arrival ms (wall clock)], one per change event received. */
  arrivals: Array<[string, number]>;
  events: number;
  /** Streams the server ended while the bench ran. */
  ended: number;
  rssMb: number;
}

const wallNow = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const arrivals: Array<[string, number]> = [];
const responses: IncomingMessage[] = [];
let events = 0;
let ended = 0;

/** Reads the stream's events: `data:` lines of change events carry the record, whose title is the marker. */
function follow(response: IncomingMessage): void {
  let pending = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (!data || !/^event: (create|update|delete)$/m.test(block)) continue;
      events++;
      const record = (JSON.parse(data.slice(6)) as { record?: { title?: string } }).record;
      arrivals.push([record?.title ?? '', wallNow()]);
    }
  });
  response.on('end', () => ended++);
  response.on('error', () => {});
}

function open(url: string, token: string): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (response) => {
      if (response.statusCode !== 200) {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(`${response.statusCode} ${body.slice(0, 300)}`));
        return;
      }
      responses.push(response);
      follow(response);
      // The head is out once the hub has the connection (the route writes it before attaching).
      resolve(null);
    });
    req.on('error', (error) => resolve(`error ${error.message}`));
    req.end();
  });
}

async function openAll(plan: SubscriberPlan): Promise<Ready> {
  const started = performance.now();
  const url = `${plan.apiUrl}/realtime?subscribe=toDos`;
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const worker = async () => {
    while (next < plan.tokens.length) {
      const failure = await open(url, plan.tokens[next++]);
      if (failure !== null) {
        failed++;
        firstFailure ??= failure;
      }
    }
  };
  await Promise.all(Array.from({ length: plan.concurrency }, worker));
  return { ready: true, opened: responses.length, failed, ...(firstFailure ? { firstFailure } : {}), connectMs: performance.now() - started, rssMb: process.memoryUsage().rss / 2 ** 20 };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  if (line.trim() === 'report') {
    const report: Report = { arrivals, events, ended, rssMb: process.memoryUsage().rss / 2 ** 20 };
    process.stdout.write(`${JSON.stringify(report)}\n`);
    for (const response of responses) response.destroy();
    break;
  }
  process.stdout.write(`${JSON.stringify(await openAll(JSON.parse(line) as SubscriberPlan))}\n`);
}
process.exit(0);
