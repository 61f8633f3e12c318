import { STATUS_CODES } from 'node:http';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { TSchema } from '@sinclair/typebox';
import { NO_NUL_PATTERN } from '../tools/text-rules.ts';

/**
 * How the management OpenAPI document names its schemas, for every route group, present or
 * future, with nothing to do in the group itself:
 * - a schema named here (`nameComponents`), or carrying an `$id` or a `title` that reads as a
 *   type name, is published once, under `components.schemas.<name>`, and every use of it
 *   becomes a `$ref` (a second, different schema under a taken name stays inline);
 * - the problem answers are `components.responses` (`NotFound`…), referenced by each operation;
 * - keywords only our validator reads (`errorMessage` and friends) never reach the document;
 * - tags carry descriptions, `info` a license.
 * The route schemas themselves are never changed: Ajv still validates what it validated.
 */

const REF = '#/components/schemas/';
/** A name a user could import: `Application`, `AssistantMessage`. */
const NAME = /^[A-Z][A-Za-z0-9]*$/;

const names = new WeakMap<object, string>();
/** A named schema by one of its object members, to recognise its shallow copies (`Type.Optional` makes one). */
const byMember = new WeakMap<object, object>();

/** Publishes these schemas as components under these names (whatever `$id` they carry). */
export function nameComponents(named: Record<string, TSchema>): void {
  for (const [name, schema] of Object.entries(named)) {
    names.set(schema, name);
    for (const value of Object.values(schema)) if (isObject(value)) byMember.set(value, schema);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function componentName(node: Record<string, unknown>): string | undefined {
  const direct = names.get(node);
  if (direct) return direct;
  for (const value of Object.values(node)) {
    const original = isObject(value) ? byMember.get(value) : undefined;
    if (original && isShallowCopy(node, original)) return names.get(original);
  }
  for (const candidate of [node.$id, node.title]) if (typeof candidate === 'string' && NAME.test(candidate)) return candidate;
  return undefined;
}

function isShallowCopy(node: Record<string, unknown>, original: object): boolean {
  const a = Object.keys(node);
  const b = Object.keys(original);
  return a.length === b.length && a.every((key) => (original as Record<string, unknown>)[key] === node[key]);
}

/** Members holding data, not schemas: never searched for named schemas. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'example']);

export class Components {
  /** The named schemas, each with its own named members already turned into references. */
  readonly schemas: Record<string, unknown> = {};

  /** `node` (a schema, or an object holding schemas) with every named schema replaced by a reference. */
  withRefs(node: unknown, keepRoot = false): unknown {
    if (Array.isArray(node)) return node.map((item) => this.withRefs(item));
    if (!isObject(node)) return node;
    const name = keepRoot ? undefined : componentName(node);
    if (name && this.add(name, node)) return { $ref: `${REF}${name}` };
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) out[key] = DATA.has(key) ? value : this.withRefs(value);
    return out;
  }

  /** False when `name` already names a different schema: this one then stays inline. */
  private add(name: string, schema: Record<string, unknown>): boolean {
    const body = this.withRefs(schema, true) as Record<string, unknown>;
    delete body.$id;
    const existing = this.schemas[name];
    if (existing === undefined) this.schemas[name] = body;
    return existing === undefined || JSON.stringify(existing) === JSON.stringify(body);
  }

  /** The parts of a route schema that hold schemas of bodies; parameters stay as they are (Fastify expands them). */
  routeSchema(schema: Record<string, unknown>): Record<string, unknown> {
    const out = { ...schema };
    if (schema.body !== undefined) out.body = this.withRefs(schema.body);
    if (schema.response !== undefined) out.response = this.withRefs(schema.response, true);
    return out;
  }
}

// ------------------------------------------------------------ the published keywords

/** JSON Schema 2020-12 and OpenAPI 3.1 schema keywords; anything else (bar `x-…`) is a validator's own. */
const KEYWORDS = new Set([
  '$schema', '$id', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$comment', '$defs',
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains',
  'maxProperties', 'minProperties', 'required', 'dependentRequired', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema',
  'title', 'description', 'default', 'deprecated', 'readOnly', 'writeOnly', 'examples',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'prefixItems', 'items', 'contains',
  'properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
  'discriminator', 'xml', 'externalDocs', 'example',
]);
const SUBSCHEMA = new Set(['not', 'if', 'then', 'else', 'items', 'contains', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/** `anyOf` of one-value branches of one type (TypeBox's union of literals) as the `enum` it means. */
function literalUnion(schema: Record<string, unknown>): Record<string, unknown> | null {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2 || schema.type !== undefined || schema.enum !== undefined) return null;
  const type = (branches[0] as { type?: unknown }).type;
  const literal = (branch: unknown) =>
    isObject(branch) && 'const' in branch && branch.type === type && Object.keys(branch).every((key) => key === 'const' || key === 'type');
  if (typeof type !== 'string' || !branches.every(literal)) return null;
  const { anyOf: _anyOf, ...rest } = schema;
  return { ...rest, type, enum: branches.map((branch) => (branch as { const: unknown }).const) };
}

/** `schema` with the keywords no OpenAPI tool knows removed, at every depth; free strings say they hold no NUL. */
export function publishedSchema(input: unknown): unknown {
  if (!isObject(input) || Array.isArray(input)) return input;
  const schema = literalUnion(input) ?? input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEYWORDS.has(key) && !key.startsWith('x-')) continue;
    if (SUBSCHEMA.has(key)) out[key] = publishedSchema(value);
    else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(publishedSchema);
    else if (SUBSCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, publishedSchema(member)]));
    else out[key] = value;
  }
  if (out.type === 'string' && !['pattern', 'format', 'enum', 'const'].some((key) => key in out)) out.pattern = NO_NUL_PATTERN;
  return out;
}

type Doc = Record<string, unknown>;
type MediaMap = Record<string, { schema?: unknown }> | undefined;

function cleanMedia(content: MediaMap): void {
  for (const media of Object.values(content ?? {})) if (media.schema !== undefined) media.schema = publishedSchema(media.schema);
}

const PROBLEM_REF = `${REF}Problem`;

type ResponseObject = { description?: string; content?: MediaMap; headers?: Record<string, { schema?: unknown }>; $ref?: string };

/**
 * An error answer that is a bare problem (DESIGN §9: `application/problem+json`) becomes a reference
 * to one shared response per status, `#/components/responses/NotFound`: written once, not per operation.
 */
function problemResponse(status: string, response: ResponseObject, shared: Record<string, ResponseObject>): ResponseObject {
  const json = response.content?.['application/json'];
  const bare = Object.keys(response.content ?? {}).length === 1 && response.headers === undefined;
  if (!/^[45]\d\d$/.test(status) || !json || !bare || (json.schema as { $ref?: string } | undefined)?.$ref !== PROBLEM_REF) return response;
  const name = (STATUS_CODES[status] ?? `Status ${status}`).replace(/[^A-Za-z0-9]/g, '');
  const described = response.description && response.description !== 'Default Response' ? response.description : null;
  if (described && shared[name] && shared[name].description !== described) {
    return { description: described, content: { 'application/problem+json': json } };
  }
  shared[name] ??= { description: described ?? `${STATUS_CODES[status] ?? status}: problem details (RFC 9457).`, content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF } } } };
  return { $ref: `#/components/responses/${name}` };
}

interface OperationObject {
  tags?: string[];
  security?: unknown[];
  parameters?: { in?: string; required?: boolean; schema?: unknown }[];
  requestBody?: { content?: MediaMap };
  responses?: Record<string, ResponseObject>;
}

function operationsOf(document: Doc): OperationObject[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.values(paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method))
      .map(([, operation]) => operation as OperationObject),
  );
}

/** A shared problem response for `status`, made when first needed. */
function sharedProblem(status: string, shared: Record<string, ResponseObject>): ResponseObject {
  return problemResponse(status, { content: { 'application/json': { schema: { $ref: PROBLEM_REF } } } }, shared);
}

/**
 * Answers every operation of a kind can give, whatever its route declares: a body larger than
 * APPBUILDER_BODY_LIMIT (413) or of another media type (415) where a body is read, and bad
 * credentials (401) where credentials are needed.
 */
function addUniversalRefusals(operation: OperationObject, shared: Record<string, ResponseObject>): void {
  const responses = (operation.responses ??= {});
  const needed = [
    ...(operation.requestBody ? ['413', '415'] : []),
    ...(Array.isArray(operation.security) && operation.security.length === 0 ? [] : ['401']),
  ];
  for (const status of needed) responses[status] ??= sharedProblem(status, shared);
}

// --------------------------------------------------------------------- tags, license

/** The spec's endpoint groups (interface "What the service does") and ours, with what each holds. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Access tokens for API clients (OAuth 2 client credentials).',
  customers: 'Customers of the service and their API clients (platform administrators).',
  projects: 'Top-level containers for applications, specifications and collaboration.',
  specifications: 'Generated from attachments; they describe data models, actions and UI structure.',
  applications: 'Generation, versions and core settings.',
  attachments: 'Uploaded files such as design files and documents.',
  'data-models': 'Models and their fields.',
  'actions-effects': 'An action is made up of effects.',
  triggers: 'Start workflows from schedules, webhooks or data changes.',
  'figma-integration': 'Import designs and generate static code from frames.',
  'deployments-assets': 'Deploy versions and download generated bundles.',
  'secrets-configuration': 'Encrypted secrets and environment variables injected at runtime.',
  'ai-assistant': 'Change an application with natural language; messages are stored per project.',
  builders: 'End users or clients who build and run apps that integrate with the service.',
  storage: 'Files scoped to the authenticated customer, optionally tied to a builder.',
  runs: "The recorded runs of an application's actions, and test runs.",
  audit: 'Who changed what, and when.',
  monitoring: 'The health, traffic and errors of running applications.',
  'data-imports': "Rows of a customer's documents (SQL, CSV, JSON) imported into a published version.",
  backups: 'Verified archives of one application, restored in place or as a new application.',
};

export const LICENSE = { name: 'Proprietary (UNLICENSED)', url: 'https://docs.npmjs.com/cli/configuring-npm/package-json#license' };

/** The document as published: validator keywords out, tags declared (in use only) with their descriptions. */
export function publishedDocument(document: Doc): Doc {
  const schemas = ((document.components as Doc | undefined)?.schemas ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(schemas)) schemas[name] = publishedSchema(schemas[name]);
  const used = new Set<string>();
  const components = (document.components ??= {}) as Doc;
  const sharedResponses = ((components.responses ??= {}) as Record<string, ResponseObject>);
  for (const operation of operationsOf(document)) {
    for (const tag of operation.tags ?? []) used.add(tag);
    for (const parameter of operation.parameters ?? []) {
      if (parameter.schema !== undefined) parameter.schema = publishedSchema(parameter.schema);
      // A query parameter with a default (`limit`, `offset`) may be left out by the caller.
      if (parameter.in === 'query' && isObject(parameter.schema) && 'default' in parameter.schema) parameter.required = false;
    }
    cleanMedia(operation.requestBody?.content);
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      cleanMedia(response.content);
      for (const header of Object.values(response.headers ?? {})) if (header.schema !== undefined) header.schema = publishedSchema(header.schema);
      (operation.responses as Record<string, ResponseObject>)[status] = problemResponse(status, response, sharedResponses);
    }
    addUniversalRefusals(operation, sharedResponses);
  }
  document.tags = [...used].sort().map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
  return document;
}

/**
 * The @fastify/swagger options that apply the above; `app` is the root instance, before any
 * route group is registered (its onRoute hook collects the named schemas of every route).
 */
export function namedSchemaOptions(app: FastifyInstance) {
  const components = new Components();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema && !(route.schema as { hide?: boolean }).hide) components.routeSchema(route.schema as Record<string, unknown>);
  });
  const options: Pick<FastifyDynamicSwaggerOptions, 'convertConstToEnum' | 'refResolver' | 'transform' | 'transformObject'> = {
    // OpenAPI 3.1 has `const`; no need to turn it into a one-value `enum`.
    convertConstToEnum: false,
    // Shared schemas (`app.addSchema`) keep their `$id` as their name instead of `def-N`.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' && NAME.test(json.$id) ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url }) => ({ schema: components.routeSchema(schema as Record<string, unknown>) as FastifySchema, url }),
    transformObject: (document) => publishedDocument(('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Doc),
  };
  // `schemas` is the same object, filled as the routes are added; the plugin reads it when it builds the document.
  return { schemas: components.schemas as Record<string, OpenAPIV3_1.SchemaObject>, options };
}
