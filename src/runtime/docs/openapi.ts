/**
 * The OpenAPI 3.1 document of one served version (DESIGN §6), generated from the
 * compiled app: every resource's five operations with their query parameters, the
 * end-user auth routes and the bearer scheme, the routes of HTTP triggers, the realtime
 * transports (realtime-paths.ts), and the problem+json errors. Built once per compiled app and kept with it.
 */
import type { HttpTrigger, Trigger } from '../../definition/schema.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { modelSchemas, recordAnswer, safeName, schemaRef, type JsonSchema } from './schemas.ts';
import { fieldsParameter, subCollectionPaths } from './relation-paths.ts';
import { addAggregatePaths, searchParameter } from './aggregate-paths.ts';
import { addImportPaths } from './import-paths.ts';
import { filePaths, UPLOADED_FILE } from './file-paths.ts';
import { addAccountFactorPaths } from './account-factor-paths.ts';
import { addAccountSessionPaths } from './account-session-paths.ts';
import { addRealtimePaths } from './realtime-paths.ts';
import { addBulkPaths } from './bulk-paths.ts';

/** One path's operations by verb (and shared `parameters`). */
export type PathItem = Record<string, unknown>;

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, PathItem> };

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string', description: 'JSON pointer to what is wrong.' }, message: { type: 'string' } }, required: ['path', 'message'] },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'errors'],
};

const ERROR_TEXT: Record<number, string> = {
  400: 'The request is malformed (a bad query parameter or filter).',
  401: 'The credentials are missing or not valid.',
  403: 'The access rules refuse the change.',
  404: 'No such record, or the caller may not see it.',
  409: 'The change conflicts with the stored data.',
  413: 'The body is larger than the limit (APPBUILDER_BODY_LIMIT).',
  415: 'The body is not of a media type the route reads.',
  422: 'A value is not valid; each error names its field.',
};

/** Anyone may call (the access rules decide what they see), end users with their token, builders as administrators. */
const OPEN_SECURITY = [{}, { endUser: [] }, { builderBearer: [], apiClient: [] }];
const USER_SECURITY = [{ endUser: [] }, { builderBearer: [], apiClient: [] }];

function errors(...statuses: number[]): Record<string, JsonSchema> {
  return Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Problem${s}` }]));
}

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const ID_PARAMETER = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

function listParameters(model: CompiledModel): JsonSchema[] {
  const sortable = ['id', 'createdAt', 'updatedAt', ...model.fields.filter((f) => f.column && !f.many && !f.relation && !['p_ADDRESS', 'p_CURRENCY_AMOUNT'].includes(f.to)).map((f) => f.name)];
  return [
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1000, default: 20 }, description: 'Records per page; 0 answers the exact total alone.' },
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Records to skip.' },
    {
      name: 'sort',
      in: 'query',
      schema: { type: 'string' },
      example: `-${sortable.at(-1)},id`,
      description: `Comma-separated field names, \`-\` for descending. Sortable: ${sortable.join(', ')}.`,
    },
    {
      name: 'filter',
      in: 'query',
      schema: { type: 'string' },
      description: `A CEL expression over \`record\` (the ${model.name}'s fields by name), e.g. \`record.${model.fields[0]?.name ?? 'id'} != null\`.`,
    },
    fieldsParameter(model),
    searchParameter(model),
  ];
}

function resourcePaths(model: CompiledModel): Record<string, PathItem> {
  const name = safeName(model.name);
  const tags = [model.name];
  return {
    [`/${model.resource}`]: {
      get: {
        operationId: `list${name}`,
        summary: `List ${model.name} records`,
        tags,
        security: OPEN_SECURITY,
        parameters: listParameters(model),
        responses: { 200: { description: `A page of ${model.name} records.`, content: json(schemaRef(`${name}Page`)) }, ...errors(400, 401) },
      },
      post: {
        operationId: `create${name}`,
        summary: `Create a ${model.name}`,
        tags,
        security: OPEN_SECURITY,
        requestBody: { required: true, content: json(schemaRef(`${name}Create`)) },
        responses: { 201: { description: `The created ${model.name}.`, content: json(schemaRef(name)) }, ...errors(400, 401, 403, 409, 422) },
      },
    },
    [`/${model.resource}/{id}`]: {
      parameters: [ID_PARAMETER],
      get: {
        operationId: `get${name}`,
        summary: `Read one ${model.name}`,
        tags,
        security: OPEN_SECURITY,
        parameters: [fieldsParameter(model)],
        responses: { 200: { description: `The ${model.name} (with \`fields\`, sparse).`, content: json(recordAnswer(name)) }, ...errors(400, 401, 404) },
      },
      patch: {
        operationId: `update${name}`,
        summary: `Change fields of a ${model.name}`,
        tags,
        security: OPEN_SECURITY,
        requestBody: { required: true, content: json(schemaRef(`${name}Update`)) },
        responses: { 200: { description: `The updated ${model.name}.`, content: json(schemaRef(name)) }, ...errors(400, 401, 403, 404, 409, 422) },
      },
      delete: {
        operationId: `delete${name}`,
        summary: `Delete a ${model.name}`,
        tags,
        security: OPEN_SECURITY,
        responses: { 204: { description: 'Deleted.' }, ...errors(401, 404, 409) },
      },
    },
  };
}

function authPaths(app: CompiledApp): Record<string, PathItem> {
  const user = app.userModel;
  if (!user) return {};
  const name = safeName(user.name);
  const session = json(schemaRef('Session'));
  const tags = ['auth'];
  return {
    '/auth/signup': {
      post: {
        operationId: 'signUp',
        summary: `Create a ${user.name} with a password and get a token`,
        tags,
        security: [{}],
        requestBody: {
          required: true,
          content: json(schemaRef('SignUp')),
        },
        description:
          'A registered email is refused with 409. With the app variable SIGNUP_NEUTRAL=true the answer says nothing about the email: 202 `{message}` whether or not it is registered (a new account is mailed a verification link, a registered address a notice; log in afterwards), 503 when the app sends no mail.',
        responses: {
          201: { description: 'Signed up.', content: session },
          202: { description: 'SIGNUP_NEUTRAL: the same answer whether or not the email is registered; check the mail, then log in.', content: json(schemaRef('MailQueued')) },
          ...errors(400, 409, 422),
        },
      },
    },
    '/auth/login': {
      post: {
        operationId: 'logIn',
        summary: 'Exchange email and password for a token',
        tags,
        security: [{}],
        requestBody: {
          required: true,
          content: json({ type: 'object', properties: { email: { type: 'string' }, password: { type: 'string' } }, required: ['email', 'password'] }),
        },
        responses: { 200: { description: 'Logged in.', content: session }, ...errors(400, 401) },
      },
    },
    '/auth/me': {
      get: {
        operationId: 'me',
        summary: `The signed-in ${user.name}`,
        tags,
        security: [{ endUser: [] }],
        responses: { 200: { description: `The ${user.name} the token names.`, content: json(schemaRef(`${name}Embedded`)) }, ...errors(401) },
      },
    },
  };
}

function isHttp(trigger: Trigger): trigger is Trigger & { trigger: HttpTrigger } {
  return trigger.trigger.type === 'http';
}

/** `urn:svc:trigger:complete-todo` → `completeTodo`. */
function triggerOperationId(id: string): string {
  const words = id.replace(/^urn:svc:trigger:/, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `trigger${words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`;
}

function addTriggerPaths(app: CompiledApp, paths: Record<string, PathItem>): void {
  for (const t of app.definition.triggers.filter(isHttp)) {
    const { method, path, id } = t.trigger;
    const template = path.replace(/\/:([^/]+)/g, '/{$1}');
    const params = [...path.matchAll(/\/:([^/]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const item = (paths[template] ??= {});
    const verb = method.toLowerCase();
    if (item[verb]) continue;
    const validation = t.validation.length > 0 ? ` Checked before it runs: ${t.validation.map((v) => `\`${v}\``).join(', ')}.` : '';
    item[verb] = {
      operationId: triggerOperationId(id),
      summary: `Runs the action ${t.actionId}`,
      description: `HTTP trigger ${id}.${validation}${t.trigger.matchSelectors?.length ? ` Chosen among triggers of the same route by: ${t.trigger.matchSelectors.join(', ')}.` : ''}`,
      tags: ['triggers'],
      security: t.isPublic === false ? USER_SECURITY : OPEN_SECURITY,
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(method === 'GET' || method === 'DELETE' ? {} : { requestBody: { required: false, content: json({}) } }),
      responses: {
        200: { description: "The action's return value (`bindReturnValue`); an effect may set another status.", content: json({}) },
        ...errors(400, 401, 404, 422),
      },
    };
  }
}

const VERBS = ['get', 'put', 'post', 'patch', 'delete'];

/**
 * Answers every route can give, whatever it declares: every route reads an `Authorization` header
 * when one is sent, even where none is needed, so a malformed, expired or revoked token answers
 * 401 anywhere; a route that reads a body refuses one over the limit (413) or of another type (415).
 */
function documentUniversalRefusals(paths: Record<string, PathItem>): void {
  for (const item of Object.values(paths)) {
    for (const verb of VERBS) {
      const operation = item[verb] as { responses?: Record<string, unknown>; requestBody?: unknown } | undefined;
      if (!operation?.responses) continue;
      for (const status of ['401', ...(operation.requestBody ? ['413', '415'] : [])]) {
        operation.responses[status] ??= { $ref: `#/components/responses/Problem${status}` };
      }
    }
  }
}

export interface OpenApiOptions {
  /** The URL path of the version, `{appsPath}/{applicationId}/api/v{serverVersion}`. */
  serverUrl: string;
  /** APPBUILDER_RELATION_LIMIT, stated on every to-many member (default 100). */
  relationLimit?: number;
  /** APPBUILDER_EMBEDDED_ID_LIMIT, stated on every to-many member of an embedded record (default 10). */
  embeddedIdLimit?: number;
}

export function buildOpenApi(app: CompiledApp, options: OpenApiOptions): OpenApiDocument {
  const def = app.definition;
  const paths: Record<string, PathItem> = {};
  for (const model of app.models) Object.assign(paths, resourcePaths(model), subCollectionPaths(app, model, listParameters, OPEN_SECURITY, errors));
  Object.assign(paths, authPaths(app));
  addTriggerPaths(app, paths);
  const files = filePaths(app);
  Object.assign(paths, files);
  addBulkPaths(app, paths, { listParameters, security: OPEN_SECURITY, errors });

  const responses = Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, description]) => [`Problem${status}`, { description, content: { 'application/problem+json': { schema: schemaRef('Problem') } } }]),
  );
  const schemas: Record<string, JsonSchema> = { Problem: PROBLEM, ...(files['/files'] ? { UploadedFile: UPLOADED_FILE } : {}), ...modelSchemas(app, options) };
  if (app.userModel) {
    const create = schemas[`${safeName(app.userModel.name)}Create`] as { properties: Record<string, JsonSchema>; required?: string[] };
    // Sign-up refuses relationship fields (end-user-auth.ts, refuseRelationships): not offered here.
    const relations = new Set(app.userModel.fields.filter((f) => f.relation).map((f) => f.name));
    const offered = Object.fromEntries(Object.entries(create.properties).filter(([name]) => !relations.has(name)));
    schemas.SignUp = {
      ...create,
      properties: { ...offered, password: { type: 'string', minLength: 8, writeOnly: true } },
      required: [...(create.required ?? []).filter((name) => !relations.has(name)), 'password'],
    };
    schemas.Session = {
      type: 'object',
      properties: { token: { type: 'string', description: 'A JWT; send it as `Authorization: Bearer <token>`.' }, user: schemaRef(`${safeName(app.userModel.name)}Embedded`) },
      required: ['token', 'user'],
    };
  }
  addAggregatePaths(app, paths, schemas, listParameters, OPEN_SECURITY, errors);
  addImportPaths(app, paths, schemas, errors);
  addAccountFactorPaths(app, { paths }, schemas);
  addAccountSessionPaths(app, { paths }, schemas);
  const realtime = addRealtimePaths(app, { paths }, schemas);
  documentUniversalRefusals(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: def.appOverview?.name ?? def.appId,
      version: app.serverVersion,
      description: `${def.appDescription}\n\nGenerated API of version ${app.serverVersion}. Records are read and changed under the access rules of their model.`,
    },
    servers: [{ url: options.serverUrl }],
    tags: [...app.models.map((m) => ({ name: m.name })), ...(files['/files'] ? [{ name: 'files' }] : []), ...(app.userModel ? [{ name: 'auth' }] : []), ...(def.triggers.some(isHttp) ? [{ name: 'triggers' }] : []), ...(realtime ? [{ name: 'realtime' }] : [])],
    paths,
    components: {
      schemas,
      responses,
      securitySchemes: {
        endUser: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token from /auth/signup or /auth/login.' },
        builderBearer: { type: 'http', scheme: 'bearer', description: "A management access token or builder token; with apiClient the caller acts as the app administrator (access rules bypassed) within its role and projects: a viewer may only read (GET, realtime), writes need the editor role (403), an application outside the token's projects is not found (404). Every write is in the customer's audit trail." },
        apiClient: { type: 'apiKey', in: 'header', name: 'x-svc-api-client' },
      },
    },
  };
}
