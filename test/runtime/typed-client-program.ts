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
const page = await api.toDos.list({ limit: 10, sort: '-title' });
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

/** Mistakes the client's types must catch, each on its own line (a wrong type, an unknown field, a bad enum, a misspelt query). */
export function wrongProgram(): string {
  return `import { createClient } from './client.ts';

const api = createClient({ baseUrl: 'http://localhost' });
await api.toDos.create({ title: 42 });
await api.toDos.create({ titel: 'typo' });
await api.toDos.update('id', { status: 'closed' });
await api.toDos.list({ limt: 5 });
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
