/**
 * `client.ts` of one served version: a dependency-free TypeScript client generated from
 * the version's OpenAPI document (openapi.ts). The types (`paths`, `components`,
 * `operations`) come from openapi-typescript, the library made for that, loaded on first
 * use only; the small fetch wrapper after them is generated here from the same document:
 * - one group per resource (`client.toDos.list/get/create/update/delete`),
 * - `client.auth` (signUp and logIn keep the token they answer, me, logOut),
 * - `client.triggers` (the HTTP triggers),
 * - `client.byOperationId` (every operation, including ones added to the document later).
 * The output depends on the document only (never on a host), so the copy the frontend
 * bundle ships is byte for byte the one `GET {app api}/client.ts` answers.
 */
import type { OpenAPI3 } from 'openapi-typescript';
import type { CompiledApp } from '../compiled-app.ts';
import { buildOpenApi, type OpenApiDocument } from './openapi.ts';
import { CLIENT_RUNTIME, CLIENT_USAGE, RESERVED_NAMES } from './typescript-client-runtime.ts';

interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary?: string;
  tags: string[];
  hasPathParameters: boolean;
  hasBody: boolean;
  bodyRequired: boolean;
  keepsToken: boolean;
}

const VERBS = ['get', 'post', 'put', 'patch', 'delete'];
const RESOURCE_METHODS: Record<string, string> = { list: 'GET', create: 'POST', get: 'GET', update: 'PATCH', delete: 'DELETE' };
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const literal = (text: string): string => JSON.stringify(text);
/** A JSDoc line that cannot end its comment early. */
const doc = (text: string | undefined, indent: string): string => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ')} */\n` : '');

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a 200/201 answer is the `Session` schema (signUp and logIn answer a token to keep). */
function answersSession(operation: Record<string, unknown>): boolean {
  const responses = isObject(operation.responses) ? operation.responses : {};
  return ['200', '201'].some((status) => {
    const schema = (responses[status] as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.['application/json']?.schema;
    return schema?.$ref === '#/components/schemas/Session';
  });
}

function operationsOf(document: OpenApiDocument): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = Array.isArray(item.parameters) ? (item.parameters as Array<{ in?: string }>) : [];
    for (const verb of VERBS) {
      const operation = item[verb];
      if (!isObject(operation) || typeof operation.operationId !== 'string' || !IDENTIFIER.test(operation.operationId)) continue;
      const own = Array.isArray(operation.parameters) ? (operation.parameters as Array<{ in?: string }>) : [];
      found.push({
        operationId: operation.operationId,
        method: verb.toUpperCase(),
        path,
        ...(typeof operation.summary === 'string' ? { summary: operation.summary } : {}),
        tags: Array.isArray(operation.tags) ? operation.tags.map(String) : [],
        hasPathParameters: [...shared, ...own].some((p) => p.in === 'path'),
        hasBody: isObject(operation.requestBody),
        bodyRequired: isObject(operation.requestBody) && operation.requestBody.required === true,
        keepsToken: answersSession(operation),
      });
    }
  }
  return found;
}

/** `list`/`get`/… of a resource when the operation is one of a model's five (`/toDos`, `/toDos/{id}`). */
function resourceMethod(operation: Operation): { resource: string; method: string } | null {
  const match = /^\/([A-Za-z_$][A-Za-z0-9_$]*)(\/\{id\})?$/.exec(operation.path);
  const verb = /^(list|create|get|update|delete)[A-Z_]/.exec(operation.operationId)?.[1];
  if (!match || !verb || RESOURCE_METHODS[verb] !== operation.method) return null;
  const onRecord = match[2] !== undefined;
  if (onRecord !== ['get', 'update', 'delete'].includes(verb)) return null;
  return { resource: match[1], method: verb };
}

const op = (operation: Operation) => `operations[${literal(operation.operationId)}]`;
const call = (operation: Operation, args: string) => `call<${literal(operation.operationId)}>(${literal(operation.method)}, ${literal(operation.path)}, ${args})`;

function resourceLine(operation: Operation, method: string): string {
  const o = op(operation);
  switch (method) {
    case 'list':
      return `${method}: (query?: Args<${o}>["query"]) => ${call(operation, '{ query }')},`;
    case 'create':
      return `${method}: (body: Args<${o}>["body"]) => ${call(operation, '{ body }')},`;
    case 'update':
      return `${method}: (id: string, body: Args<${o}>["body"]) => ${call(operation, '{ path: { id }, body }')},`;
    default:
      return `${method}: (id: string) => ${call(operation, '{ path: { id } }')},`;
  }
}

/** An auth method: the body alone (`signUp({name, email, password})`), or nothing (`me()`). */
function authLine(operation: Operation): string {
  if (operation.hasPathParameters) return genericLine(operation.operationId, operation);
  const [parameter, args] = operation.hasBody ? [`body: Args<${op(operation)}>["body"]`, '{ body }'] : ['', '{}'];
  const answer = operation.keepsToken ? `keepToken(await ${call(operation, args)})` : call(operation, args);
  return `${operation.operationId}: ${operation.keepsToken ? 'async ' : ''}(${parameter}) => ${answer},`;
}

/** A method taking the operation's `{path, query, body}` (optional when nothing in it is required). */
function genericLine(name: string, operation: Operation): string {
  const required = operation.hasPathParameters || operation.bodyRequired;
  const args = `args: Args<${op(operation)}>${required ? '' : ` = {} as Args<${op(operation)}>`}`;
  const body = operation.keepsToken ? `keepToken(await ${call(operation, 'args')})` : `${call(operation, 'args')}`;
  return `${name}: ${operation.keepsToken ? 'async ' : ''}(${args}) => ${body},`;
}

function group(name: string, lines: string[]): string {
  return `    ${literal(name)}: {\n${lines.join('')}    },\n`;
}

/** The wrapper's `createClient` with one method per operation of the document. */
function clientFactory(operations: Operation[]): string {
  const resources = new Map<string, string[]>();
  const auth: string[] = [];
  const triggers: string[] = [];
  for (const operation of operations) {
    const resource = resourceMethod(operation);
    const line = (text: string) => `${doc(operation.summary, '      ')}      ${text}\n`;
    if (resource) {
      const lines = resources.get(resource.resource) ?? [];
      lines.push(line(resourceLine(operation, resource.method)));
      resources.set(resource.resource, lines);
    } else if (operation.tags.includes('auth')) {
      auth.push(line(authLine(operation)));
    } else if (operation.tags.includes('triggers')) {
      const name = operation.operationId.replace(/^trigger(?=[A-Z])/, '');
      triggers.push(line(genericLine(name[0].toLowerCase() + name.slice(1), operation)));
    }
  }
  auth.push('      /** Forgets the token: later calls are anonymous. */\n      logOut: (): void => {\n        state.token = null;\n      },\n');
  const byId = operations.map((operation) => `${doc(operation.summary, '      ')}      ${genericLine(operation.operationId, operation)}\n`);
  return [
    'export function createClient(options: ClientOptions) {',
    '  const state: ClientState = { token: options.token ?? null };',
    `  const { ${['call', ...(operations.some((o) => o.keepsToken) ? ['keepToken'] : [])].join(', ')} } = transport(options, state);`,
    '  return {',
    '    /** The end user\'s token sent as `Authorization: Bearer`; signUp and logIn keep the one they answer. */',
    '    get token(): string | null {',
    '      return state.token;',
    '    },',
    '    set token(value: string | null) {',
    '      state.token = value;',
    '    },',
    ...[...resources].map(([name, lines]) => group(name, lines).trimEnd()),
    group('auth', auth).trimEnd(),
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

/** The whole `client.ts` of the version `document` describes. */
export async function buildTypescriptClient(document: OpenApiDocument): Promise<string> {
  const { default: openapiTS, astToString } = await loadGenerator();
  // The host-dependent `servers` does not reach the output: the caller passes `baseUrl`.
  const input = { ...document, servers: [] };
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
