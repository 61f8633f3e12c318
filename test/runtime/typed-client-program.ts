/**
 * Small programs written against a downloaded `client.ts`, type-checked (and compiled) with
 * the project's own TypeScript compiler, run with node against the live app. The programs use
 * no Node types (only fetch and console from lib DOM), as a browser or any runtime could.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TSC = join(import.meta.dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');

/** The strictest settings a consumer is likely to use: the client must pass them all. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    rewriteRelativeImportExtensions: true,
    lib: ['ES2022', 'DOM'],
    types: [],
    outDir: 'out',
  },
  files: ['program.ts'],
};

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runNode(args: string[], cwd: string): Promise<Outcome> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Writes `client.ts` and `program.ts` into `dir` and runs `tsc -p` there (emitting to `out/` unless `noEmit`). */
export async function compile(dir: string, client: string, program: string, options: { noEmit?: boolean } = {}): Promise<Outcome> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'client.ts'), client);
  writeFileSync(join(dir, 'program.ts'), program);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  // The emitted program is an ES module (top-level await).
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return runNode([TSC, '-p', 'tsconfig.json', ...(options.noEmit ? ['--noEmit'] : []), '--pretty', 'false'], dir);
}

/**
 * The to-do program: sign up, create, list, log out (then `me` is a 401 problem), log in (a
 * session, or a second-factor challenge this account does not get), refresh the session, `me`,
 * complete the to-do through its HTTP trigger, read it back. Prints what it saw as JSON.
 */
export function todoProgram(baseUrl: string, email: string): string {
  return `import { ApiProblem, createClient, type Session, type ToDo, type ToDoCreate } from './client.ts';

const api = createClient({ baseUrl: ${JSON.stringify(baseUrl)} });
const password = 'correct horse battery';
const session: Session = await api.auth.signUp({ name: 'Ann', email: ${JSON.stringify(email)}, password });
const draft: ToDoCreate = { title: 'Try the typed client', status: 'open' };
const created: ToDo = await api.toDos.create(draft);
// The sign-up's event trigger adds a welcome to-do after its commit: wait for it, so the list,
// search and aggregate below all read the same rows.
let welcomed = false;
for (let i = 0; i < 200 && !welcomed; i++) {
  welcomed = (await api.toDos.list({ limit: 10 })).items.some((item) => item.title.startsWith('Welcome'));
  if (!welcomed) await new Promise((resolve) => setTimeout(resolve, 50));
}
const page = await api.toDos.list({ limit: 10, sort: '-title' });
const found = await api.toDos.list({ search: 'typed' });
const groups = await api.toDos.aggregate({ groupBy: 'status', metrics: 'count' });
let importRefused = 0;
try {
  await api.toDos.import([draft]);
} catch (error) {
  if (error instanceof ApiProblem) importRefused = error.status;
}
await api.auth.logOut();
const forgotten = api.token === null && api.refreshToken === null;
let anonymous = 0;
try {
  await api.auth.me();
} catch (error) {
  if (error instanceof ApiProblem) anonymous = error.status;
}
const again = await api.auth.logIn({ email: ${JSON.stringify(email)}, password });
if (!('token' in again)) throw new Error('a second factor was asked: ' + again.mfaToken);
const tokenKept = again.token === api.token && again.refreshToken === api.refreshToken;
const refreshed = await api.auth.refresh();
const me = await api.auth.me();
await api.triggers.completeTodo({ path: { id: created.id } });
const read = await api.toDos.get(created.id);
const owner = typeof read.user === 'string' ? read.user : read.user.id;
console.log(JSON.stringify({
  signedUp: session.user.email,
  created: { id: created.id, title: created.title, status: created.status },
  listed: page.items.map((item) => item.title),
  total: page.total,
  welcomed,
  found: found.items.map((item) => item.title),
  aggregated: groups.items.map((item) => [item.group.status, item.count]),
  importRefused,
  anonymous,
  forgotten,
  tokenKept,
  refreshKept: refreshed.token === api.token && refreshed.refreshToken === api.refreshToken && refreshed.refreshToken !== again.refreshToken,
  me: me.email,
  statusAfter: read.status,
  ownerIsMe: owner === session.user.id,
}));
`;
}

/** The same program after the model's rename to Task (resource `tasks`). */
export function taskProgram(baseUrl: string, email: string): string {
  return todoProgram(baseUrl, email)
    .replace('type ToDo, type ToDoCreate', 'type Task, type TaskCreate')
    .replace('const draft: ToDoCreate', 'const draft: TaskCreate')
    .replace('const created: ToDo', 'const created: Task')
    .replaceAll('api.toDos.', 'api.tasks.');
}

/**
 * Realtime through the client: subscribes to the to-dos (and, through `api.subscribe`, to one
 * record), creates, updates and deletes a to-do once the streams are open, and prints what each
 * handler received. The records are read as `ToDo` (a delete as its id only): the types say so.
 * Unsubscribing ends the streams, so the program exits on its own.
 */
export function subscribeProgram(baseUrl: string, email: string): string {
  return `import { createClient, type AnyRealtimeEvent, type RealtimeEvent, type ToDo } from './client.ts';

const api = createClient({ baseUrl: ${JSON.stringify(baseUrl)} });
await api.auth.signUp({ name: 'Sue', email: ${JSON.stringify(email)}, password: 'correct horse battery' });
const seen: Array<{ action: string; id: string; title: string | null; eventId: string }> = [];
let resolveAll = () => {};
const all = new Promise<void>((resolve) => (resolveAll = resolve));
let createdId = '';
// Every change of Sue's to-dos (her welcome to-do too, which the app's event queue creates): until the delete of the one created here.
const handler = (event: RealtimeEvent<ToDo, 'toDos'>) => {
  if (event.action === 'delete') {
    seen.push({ action: event.action, id: event.record.id, title: null, eventId: event.id });
    if (event.record.id === createdId) resolveAll();
  } else {
    const record: ToDo = event.record;
    seen.push({ action: event.action, id: record.id, title: record.title, eventId: event.id });
  }
};
const opened = new Promise<void>((resolve, reject) => {
  const unsubscribe = api.toDos.subscribe(handler, { onOpen: resolve, onError: reject });
  void all.then(unsubscribe);
});
await opened;
const created = await api.toDos.create({ title: 'Heard live', status: 'open' });
createdId = created.id;
const one: string[] = [];
let resolveOne = () => {};
const heardOne = new Promise<void>((resolve) => (resolveOne = resolve));
await new Promise<void>((resolve) => {
  const unsubscribe = api.subscribe([\`toDos/\${created.id}\`], (event: AnyRealtimeEvent) => {
    if (event.resource === 'toDos' && event.action === 'update') {
      one.push(event.record.title);
      unsubscribe();
      resolveOne();
    } else one.push(event.action);
  }, { onOpen: resolve });
});
await api.toDos.update(created.id, { title: 'Heard live (2)' });
await heardOne;
await api.toDos.delete(created.id);
const timeout = setTimeout(() => {
  console.log(JSON.stringify({ timedOut: true, seen, one }));
  throw new Error('timed out');
}, 15000);
await all;
clearTimeout(timeout);
console.log(JSON.stringify({ createdId: created.id, seen, one }));
`;
}

/**
 * The client's SSE line reader and reconnection, against a fetch of the program's own (no server):
 * events split across chunks anywhere (inside a CRLF too), CR, LF and CRLF line ends, comments, a
 * two-line data, `retry:`, `reset`; then the reconnection carries the last event's id and the
 * token, and its 401 stops the subscription through onError.
 */
export function sseReaderProgram(): string {
  return `import { ApiProblem, createClient, type AnyRealtimeEvent } from './client.ts';

const encoder = new TextEncoder();
const chunks = [
  ': connected\\r\\n\\r',
  '\\nretry: 10\\n\\nid: 7\\nevent: create\\ndata: {"resource":"toDos","action":"create",',
  '"record":{"id":"a","title":"one"}}\\r\\n\\r\\n: ping\\n\\nid: 8\\r\\nevent: reset\\r\\ndata: {"reason":"x"}\\r\\n\\r\\n',
  'id: 9\\revent: delete\\rdata: {"resource":"toDos","action":"delete",\\rdata: "record":{"id":"a"}}\\r\\r',
];
const calls: Array<{ url: string; lastEventId: string | null; authorization: string | null }> = [];
const fakeFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const headers = (init?.headers ?? {}) as Record<string, string>;
  calls.push({ url: String(input), lastEventId: headers['last-event-id'] ?? null, authorization: headers['authorization'] ?? null });
  if (calls.length > 1) {
    const problem = { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'The token expired.', errors: [] };
    return new Response(JSON.stringify(problem), { status: 401, headers: { 'content-type': 'application/problem+json' } });
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
};

const api = createClient({ baseUrl: 'http://example.invalid/api/', token: 'tok', fetch: fakeFetch });
const events: AnyRealtimeEvent[] = [];
let opens = 0;
let resets = 0;
const status = await new Promise<number>((resolve) => {
  api.subscribe(['toDos/a', 'users'], (event) => events.push(event), {
    onOpen: () => (opens += 1),
    onReset: () => (resets += 1),
    onError: (error) => resolve(error instanceof ApiProblem ? error.status : 0),
  });
});
console.log(JSON.stringify({ events, opens, resets, status, calls }));
`;
}

/**
 * Mistakes the client's types must catch, each on its own line (a wrong type, an unknown field, a
 * bad enum, a misspelt query, a change's record read without ruling out a delete, a misspelt topic).
 */
export function wrongProgram(): string {
  return `import { createClient } from './client.ts';

const api = createClient({ baseUrl: 'http://localhost' });
await api.toDos.create({ title: 42 });
await api.toDos.create({ titel: 'typo' });
await api.toDos.update('id', { status: 'closed' });
await api.toDos.list({ limt: 5 });
api.toDos.subscribe((event) => event.record.title);
api.subscribe(['toDo'], () => {});
`;
}

export interface Diagnostic {
  line: number;
  code: string;
}

/** `program.ts(4,26): error TS2322: …` lines of tsc's output. */
export function diagnostics(output: string): Diagnostic[] {
  return [...output.matchAll(/^program\.ts\((\d+),\d+\): error (TS\d+)/gm)].map((m) => ({ line: Number(m[1]), code: m[2] }));
}
