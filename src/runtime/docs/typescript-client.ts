/**
 * `client.ts` of one served version: a dependency-free TypeScript client generated from
 * the version's OpenAPI document (openapi.ts). The types (`paths`, `components`,
 * `operations`) come from openapi-typescript, the library made for that, loaded on first
 * use only; the small fetch wrapper after them is generated here from the same document:
 * - one group per resource (`client.toDos.list/get/create/update/delete/aggregate/import/subscribe`), and
 *   `client.subscribe(topics, handler)` over several (realtime, typescript-client-realtime.ts),
 * - `client.auth`: every auth operation; those that answer a session keep its tokens (signUp,
 *   logIn, completeSecondFactor…; logIn may answer a second-factor challenge instead, kept as
 *   the union the document gives), `logOut` ends the session and forgets them, `refresh` uses
 *   the kept refresh token,
 * - `client.triggers` (the HTTP triggers),
 * - `client.byOperationId` (every operation but the realtime streams, including ones added to the document later).
 * The output depends on the document only (never on a host), so the copy the frontend
 * bundle ships is byte for byte the one `GET {app api}/client.ts` answers.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import type { CompiledApp } from '../compiled-app.ts';
import { buildOpenApi, type OpenApiDocument } from './openapi.ts';
import { CLIENT_RUNTIME, CLIENT_USAGE, RESERVED_NAMES } from './typescript-client-runtime.ts';
import { CLIENT_REALTIME } from './typescript-client-realtime.ts';

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary?: string;
  tags: string[];
  hasPathParameters: boolean;
  hasBody: boolean;
  bodyRequired: boolean;
  /** Its answer is a Session, or may be one (log-in: a Session or an MfaChallenge). */
  keepsToken: boolean;
  /** Its answer may be a second-factor challenge instead of a session. */
  mayChallenge: boolean;
}

/** Auth routes the client adds behaviour to (runtime/accounts/routes.ts). */
const LOG_OUT_PATH = '/auth/logout';
const REFRESH_PATH = '/auth/refresh';
const SCHEMAS = '#/components/schemas/';

const VERBS = ['get', 'post', 'put', 'patch', 'delete'];
const RESOURCE_METHODS: Record<string, string> = { list: 'GET', create: 'POST', get: 'GET', update: 'PATCH', delete: 'DELETE' };
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const literal = (text: string): string => JSON.stringify(text);
/** A JSDoc line that cannot end its comment early. */
const doc = (text: string | undefined, indent: string): string => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ')} */\n` : '');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schemas a 200/201 JSON answer refers to: its `$ref`, or those of its `oneOf`/`anyOf`. */
function answerSchemas(operation: Record<string, unknown>): string[] {
  type Schema = { $ref?: unknown; oneOf?: unknown; anyOf?: unknown };
  const responses = isObject(operation.responses) ? operation.responses : {};
  return ['200', '201'].flatMap((status) => {
    const schema = (responses[status] as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json']?.schema;
    const alternatives = [schema, ...[schema?.oneOf, schema?.anyOf].flatMap((list) => (Array.isArray(list) ? (list as Schema[]) : []))];
    return alternatives.flatMap((item) => (typeof item?.$ref === 'string' && item.$ref.startsWith(SCHEMAS) ? [item.$ref.slice(SCHEMAS.length)] : []));
  });
}

/**
 * A stream rather than a JSON call (the realtime routes: Server-Sent Events, a WebSocket upgrade):
 * `call` would wait for its end. `subscribe` reads the SSE one; neither is a method of its own.
 */
function isStream(operation: Record<string, unknown>): boolean {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const ok = responses['200'] as { content?: Record<string, unknown> } | undefined;
  return operation['x-appbuilder-stream'] !== undefined || responses['101'] !== undefined || ok?.content?.['text/event-stream'] !== undefined;
}

function operationsOf(document: OpenApiDocument): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = Array.isArray(item.parameters) ? (item.parameters as Array<{ in?: string }>) : [];
    for (const verb of VERBS) {
      const operation = item[verb];
      if (!isObject(operation) || typeof operation.operationId !== 'string' || !IDENTIFIER.test(operation.operationId) || isStream(operation)) continue;
      const own = Array.isArray(operation.parameters) ? (operation.parameters as Array<{ in?: string }>) : [];
      const answers = answerSchemas(operation);
      found.push({
        operationId: operation.operationId,
        method: verb.toUpperCase(),
        path,
        ...(typeof operation.summary === 'string' ? { summary: operation.summary } : {}),
        tags: Array.isArray(operation.tags) ? operation.tags.map(String) : [],
        hasPathParameters: [...shared, ...own].some((p) => p.in === 'path'),
        hasBody: isObject(operation.requestBody),
        bodyRequired: isObject(operation.requestBody) && operation.requestBody.required === true,
        keepsToken: answers.includes('Session'),
        mayChallenge: answers.includes('MfaChallenge'),
      });
    }
  }
  return found;
}

/** `list`/`get`/… of a resource when the operation is one of a model's five (`/toDos`, `/toDos/{id}`). */
function resourceMethod(operation: Operation): { resource: string; method: string } | null {
  const aggregate = /^\/([A-Za-z_$][A-Za-z0-9_$]*)\/aggregate$/.exec(operation.path);
  if (aggregate && operation.method === 'GET' && /^aggregate[A-Z_]/.test(operation.operationId)) return { resource: aggregate[1], method: 'aggregate' };
  const imported = /^\/([A-Za-z_$][A-Za-z0-9_$]*)\/import$/.exec(operation.path);
  if (imported && operation.method === 'POST' && /^import[A-Z_]/.test(operation.operationId)) return { resource: imported[1], method: 'import' };
  const match = /^\/([A-Za-z_$][A-Za-z0-9_$]*)(\/\{id\})?$/.exec(operation.path);
  const verb = /^(list|create|get|update|delete)[A-Z_]/.exec(operation.operationId)?.[1];
  if (!match || !verb || RESOURCE_METHODS[verb] !== operation.method) return null;
  const onRecord = match[2] !== undefined;
  if (onRecord !== ['get', 'update', 'delete'].includes(verb)) return null;
  return { resource: match[1], method: verb };
}

const op = (operation: Operation) => `operations[${literal(operation.operationId)}]`;
const call = (operation: Operation, args: string) => `call<${literal(operation.operationId)}>(${literal(operation.method)}, ${literal(operation.path)}, ${args})`;
const endsSession = (operation: Operation) => operation.method === 'POST' && operation.path === LOG_OUT_PATH;

/** The call with the client's bookkeeping: a session's tokens kept, both forgotten after a log-out. */
function bookkept(operation: Operation, args: string): string {
  if (endsSession(operation)) return `endSession(() => ${call(operation, args)})`;
  return operation.keepsToken ? `${call(operation, args)}.then(keepToken)` : call(operation, args);
}

/** The operation's summary, and what the client does beyond the call. */
function docText(operation: Operation): string | undefined {
  const notes = [
    operation.keepsToken && operation.mayChallenge
      ? 'Answers a session (its tokens are kept) or, for an account with a second factor, `{ mfaRequired, mfaToken }`: narrow with `"token" in answer`, then `auth.completeSecondFactor({ mfaToken, code })`.'
      : operation.keepsToken
        ? 'Keeps the session\'s tokens.'
        : '',
    endsSession(operation) ? 'The client forgets its tokens whatever the answer (a 401, already signed out, is not an error).' : '',
  ].filter((note) => note !== '');
  const summary = notes.length > 0 && operation.summary ? operation.summary.replace(/\.?$/, '.') : operation.summary;
  return [summary, ...notes].filter(Boolean).join(' ') || undefined;
}

function resourceLine(operation: Operation, method: string): string {
  const o = op(operation);
  switch (method) {
    case 'list':
    case 'aggregate':
      return `${method}: (query?: Args<${o}>["query"]) => ${call(operation, '{ query }')},`;
    case 'create':
      return `${method}: (body: Args<${o}>["body"]) => ${call(operation, '{ body }')},`;
    case 'import':
      return `${method}: (body: Args<${o}>["body"], query?: Args<${o}>["query"]) => ${call(operation, '{ body, query }')},`;
    case 'update':
      return `${method}: (id: string, body: Args<${o}>["body"]) => ${call(operation, '{ path: { id }, body }')},`;
    default:
      return `${method}: (id: string) => ${call(operation, '{ path: { id } }')},`;
  }
}

/** An auth method: the body alone (`signUp({name, email, password})`, `logOut()` or `logOut({ all: true })`), or nothing (`me()`). */
function authLine(name: string, operation: Operation): string {
  if (operation.hasPathParameters) return genericLine(name, operation);
  const body = `body: Args<${op(operation)}>["body"]${endsSession(operation) ? ' = {}' : ''}`;
  return `${name}: (${operation.hasBody ? body : ''}) => ${bookkept(operation, operation.hasBody ? '{ body }' : '{}')},`;
}

/** A method taking the operation's `{path, query, body}` (optional when nothing in it is required). */
function genericLine(name: string, operation: Operation): string {
  const required = operation.hasPathParameters || operation.bodyRequired;
  const args = `args: Args<${op(operation)}>${required ? '' : ` = {} as Args<${op(operation)}>`}`;
  return `${name}: (${args}) => ${bookkept(operation, 'args')},`;
}

/**
 * The names of one object literal's members, each given once: a name already taken goes to
 * the next candidate, then to the first one numbered (a model named Trigger has `triggersRecords`).
 */
function namer(reserved: string[] = []): (...candidates: string[]) => string {
  const taken = new Set(reserved);
  return (...candidates) => {
    let name = candidates.find((candidate) => !taken.has(candidate));
    for (let n = 2; name === undefined; n += 1) if (!taken.has(`${candidates[0]}${n}`)) name = `${candidates[0]}${n}`;
    taken.add(name);
    return name;
  };
}

/** The members of `auth` the client adds: `refresh` (with the kept refresh token), and `logOut` where the document has none. */
function authHelpers(operations: Operation[], name: (...candidates: string[]) => string): { lines: string[]; refreshes: boolean } {
  const lines: string[] = [];
  const refresh = operations.find((o) => o.method === 'POST' && o.path === REFRESH_PATH && o.keepsToken && o.hasBody && o.tags.includes('auth'));
  if (refresh) {
    lines.push(
      '      /** Exchanges the kept refresh token for a new pair, and keeps it (throws when none is kept). */\n',
      `      ${name('refresh')}: async () => ${call(refresh, '{ body: { refreshToken: keptRefreshToken() } }')}.then(keepToken),\n`,
    );
  }
  if (!operations.some((o) => endsSession(o) && o.tags.includes('auth'))) {
    lines.push(`      /** Forgets the tokens: later calls are anonymous. */\n      ${name('logOut')}: (): Promise<void> => endSession(() => Promise.resolve()),\n`);
  }
  return { lines, refreshes: refresh !== undefined };
}

/** A resource's `subscribe`: its changes (or one record's, `{ id }`), typed by what its `get` answers. */
function subscribeLine(resource: string): string {
  const event = `RealtimeEvent<RealtimeRecords[${literal(resource)}], ${literal(resource)}>`;
  const topic = `options.id === undefined ? ${literal(resource)} : ${literal(`${resource}/`)} + options.id`;
  return [
    '      /** Its changes the caller may read (one record\'s with `{ id }`) as they commit; answers the function that unsubscribes. */\n',
    `      subscribe: (handler: (event: ${event}) => void, options: SubscribeOptions & { id?: string | undefined } = {}) => subscribe([${topic}], handler, options),\n`,
  ].join('');
}

/** `RealtimeRecords`: each resource with a `get`, and the record it answers (what its changes carry). */
function realtimeRecords(gets: Map<string, Operation>): string {
  const members = [...gets].map(([resource, operation]) => `  ${literal(resource)}: Answer<${op(operation)}>;\n`);
  return `/** The record each resource's changes carry: what its \`get\` answers. */\nexport interface RealtimeRecords {\n${members.join('')}}\n`;
}

function group(name: string, lines: string[]): string {
  return `    ${literal(name)}: {\n${lines.join('')}    },\n`;
}

/** The wrapper's `createClient` with one method per operation of the document. */
function clientFactory(operations: Operation[]): string {
  const topName = namer(['token', 'refreshToken', 'subscribe', 'auth', 'triggers', 'byOperationId']);
  const authName = namer();
  const helpers = authHelpers(operations, authName);
  const triggerName = namer();
  const resources = new Map<string, string[]>();
  const gets = new Map<string, Operation>();
  const auth: string[] = [];
  const triggers: string[] = [];
  for (const operation of operations) {
    const resource = resourceMethod(operation);
    const line = (text: string) => `${doc(docText(operation), '      ')}      ${text}\n`;
    if (resource) {
      const lines = resources.get(resource.resource) ?? [];
      lines.push(line(resourceLine(operation, resource.method)));
      resources.set(resource.resource, lines);
      if (resource.method === 'get') gets.set(resource.resource, operation);
    } else if (operation.tags.includes('auth')) {
      auth.push(line(authLine(authName(operation.operationId), operation)));
    } else if (operation.tags.includes('triggers')) {
      const name = operation.operationId.replace(/^trigger(?=[A-Z])/, '');
      triggers.push(line(genericLine(triggerName(name[0].toLowerCase() + name.slice(1), operation.operationId), operation)));
    }
  }
  const idName = namer();
  const byId = operations.map((operation) => `${doc(docText(operation), '      ')}      ${genericLine(idName(operation.operationId), operation)}\n`);
  for (const [resource, lines] of resources) if (gets.has(resource)) lines.push(subscribeLine(resource));
  const used = ['call', 'endSession', ...(operations.some((o) => o.keepsToken) ? ['keepToken'] : []), ...(helpers.refreshes ? ['keptRefreshToken'] : [])];
  return [
    realtimeRecords(gets),
    'export function createClient(options: ClientOptions) {',
    '  const state: ClientState = { token: options.token ?? null, refreshToken: options.refreshToken ?? null };',
    `  const { ${used.join(', ')} } = transport(options, state);`,
    '  const { subscribe } = realtime(options, state);',
    '  return {',
    '    /** The end user\'s access token sent as `Authorization: Bearer`; kept from every session answered. */',
    '    get token(): string | null {',
    '      return state.token;',
    '    },',
    '    set token(value: string | null) {',
    '      state.token = value;',
    '    },',
    '    /** The refresh token of the same session, which `auth.refresh()` exchanges for a new pair. */',
    '    get refreshToken(): string | null {',
    '      return state.refreshToken;',
    '    },',
    '    set refreshToken(value: string | null) {',
    '      state.refreshToken = value;',
    '    },',
    '    /** Changes of several topics (`"toDos"`, `"users/{id}"`) as they commit, narrowed by `event.resource`; answers the function that unsubscribes. */',
    '    subscribe: (topics: readonly Topic[], handler: (event: AnyRealtimeEvent) => void, options?: SubscribeOptions) => subscribe(topics, handler, options),',
    ...[...resources].map(([name, lines]) => group(topName(name, `${name}Records`), lines).trimEnd()),
    group('auth', [...auth, ...helpers.lines]).trimEnd(),
    ...(triggers.length > 0 ? [group('triggers', triggers).trimEnd()] : []),
    group('byOperationId', byId).trimEnd(),
    '  };',
    '}',
    '',
    '/** The client `createClient` answers. */',
    'export type AppClient = ReturnType<typeof createClient>;',
    '',
  ].join('\n');
}

/** `export type ToDo = components["schemas"]["ToDo"]`… for every schema whose name the wrapper does not use. */
function schemaAliases(document: OpenApiDocument): string {
  const schemas = isObject(document.components) && isObject(document.components.schemas) ? Object.keys(document.components.schemas) : [];
  return schemas
    .filter((name) => IDENTIFIER.test(name) && !RESERVED_NAMES.has(name))
    .map((name) => `export type ${name} = components["schemas"][${literal(name)}];\n`)
    .join('');
}

type OpenApiTypescript = typeof import('openapi-typescript');
let generator: Promise<OpenApiTypescript> | undefined;

/** openapi-typescript (and the TypeScript compiler it drives) is loaded on the first client only, never at start. */
function loadGenerator(): Promise<OpenApiTypescript> {
  if (!generator) {
    generator = import('openapi-typescript');
    // A failed load is not kept: the next client tries again.
    generator.catch(() => (generator = undefined));
  }
  return generator;
}

/**
 * `document` with each "whole record or, with `fields=`, sparse" answer (schemas.ts `recordAnswer`)
 * typed as the whole record: most calls ask for every member and should read them as required; a
 * `fields=` caller narrows to the exported `{Model}Sparse` type itself.
 */
function wholeRecordAnswers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(wholeRecordAnswers);
  if (!isObject(value)) return value;
  const [whole, sparse, ...rest] = Array.isArray(value.anyOf) ? (value.anyOf as Array<{ $ref?: unknown }>) : [];
  if (rest.length === 0 && typeof whole?.$ref === 'string' && sparse?.$ref === `${whole.$ref}Sparse` && Object.keys(value).length === 1) return { $ref: whole.$ref };
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, wholeRecordAnswers(member)]));
}

/** The whole `client.ts` of the version `document` describes. */
export async function buildTypescriptClient(document: OpenApiDocument): Promise<string> {
  const { default: openapiTS, astToString } = await loadGenerator();
  // The host-dependent `servers` does not reach the output: the caller passes `baseUrl`.
  const input = { ...(wholeRecordAnswers(document) as OpenApiDocument), servers: [] };
  // Defaults do not make write-body members required (defaultNonNullable), as openapi.ts means them.
  const ast = await openapiTS(input as unknown as OpenAPI3, { silent: true, defaultNonNullable: false });
  const info = isObject(document.info) ? document.info : {};
  const title = typeof info.title === 'string' ? info.title : 'app';
  const version = typeof info.version === 'string' ? info.version : '';
  return [
    `// ${title.replace(/[\r\n]+/g, ' ')}: the typed client of API version ${version}.`,
    '// Generated by appbuilder from the version\'s OpenAPI document; do not edit (download it again).',
    CLIENT_USAGE,
    '',
    `export const SERVER_VERSION = ${literal(version)};`,
    '',
    astToString(ast),
    schemaAliases(document),
    CLIENT_RUNTIME,
    CLIENT_REALTIME,
    clientFactory(operationsOf(document)),
  ].join('\n');
}

/**
 * The client of a compiled version, as `GET {app api}/client.ts` serves it and the frontend
 * bundle ships it: from the document built with the defaults, so both give the same bytes.
 */
export function versionClient(app: CompiledApp): Promise<string> {
  return buildTypescriptClient(buildOpenApi(app, { serverUrl: '' }));
}
