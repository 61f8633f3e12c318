/**
 * The operations of the OpenAPI document the server publishes, for tests that
 * walk every operation (authentication, tenant isolation): a route added later
 * is walked without touching the tests.
 */

import SwaggerParser from '@apidevtools/swagger-parser';

type Schema = Record<string, unknown>;

export interface Operation {
  method: string;
  /** The OpenAPI path, with `{name}` parameters. */
  path: string;
  operationId: string;
  /** False for the open operations (`security: []`). */
  secured: boolean;
  /** The names of the path parameters, in order. */
  params: string[];
  /** The JSON schema of the request body, when the operation takes one. */
  bodySchema: Schema | null;
}

interface OperationObject {
  operationId: string;
  security?: unknown[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

/** Every operation of `{baseUrl}/v1/openapi.json`. */
export async function listOperations(baseUrl: string, documentPath = '/v1/openapi.json'): Promise<Operation[]> {
  const response = await fetch(`${baseUrl}${documentPath}`);
  if (response.status !== 200) throw new Error(`${documentPath} answered ${response.status}`);
  const document = (await response.json()) as Parameters<typeof SwaggerParser.dereference>[0];
  // Shared schemas are `$ref`s to named components: resolved, so each body schema reads whole.
  const spec = (await SwaggerParser.dereference(document)) as unknown as { paths: Record<string, Record<string, OperationObject>> };
  return Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      secured: !(Array.isArray(op.security) && op.security.length === 0),
      params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
      bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
    })),
  );
}

/** The path with its parameters filled from `values`, else `fallback`. */
export function concretePath(path: string, values: Record<string, string>, fallback = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'): string {
  return path.replace(/\{(\w+)\}/g, (_all, name: string) => encodeURIComponent(values[name] ?? fallback));
}

/** Candidate strings for a `pattern`: the definition's id prefixes and versions. */
const PATTERNED = [
  'urn:svc:model:todo',
  'urn:svc:edge:todo-title',
  'urn:svc:action:complete-todo',
  'urn:svc:trigger:complete-todo',
  '@requirement/track-todos',
  '1.0.1',
  'p_TEXT',
  'sample',
];

/**
 * A small value that satisfies `schema` (required members only, first branch of
 * a union). Good enough for the bodies of operations a test has no sample for;
 * a test that needs a specific body passes its own.
 */
export function sampleOf(schema: Schema | undefined): unknown {
  if (!schema) return {};
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as Schema[] | undefined;
    if (branches?.length) return sampleOf(branches.find((b) => b.type !== 'null') ?? branches[0]);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => sampleOf(s)));
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, sampleOf(properties[name])]));
    }
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sampleOf(schema.items as Schema));
    case 'string': {
      if (schema.format === 'uuid') return '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
      const plain = 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
      if (typeof schema.pattern === 'string') {
        const pattern = new RegExp(schema.pattern, 'u');
        // A pattern that only rules characters out (no NUL) takes the plain sample.
        if (pattern.test(plain)) return plain;
        return PATTERNED.find((s) => pattern.test(s)) ?? 'sample';
      }
      return plain;
    }
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 0);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** Sends one operation with `body` (JSON) or none; `headers` carry the credentials. */
export async function send(
  baseUrl: string,
  op: Operation,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; contentType: string; text: string }> {
  const withBody = body !== undefined;
  const response = await fetch(`${baseUrl}${path}`, {
    method: op.method,
    headers: { ...headers, ...(withBody ? { 'content-type': 'application/json' } : {}) },
    body: withBody ? JSON.stringify(body) : undefined,
  });
  const raw = Buffer.from(await response.arrayBuffer());
  const text = response.headers.get('content-type')?.includes('zip') ? `<zip of ${raw.length} bytes>` : raw.toString('utf8');
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
}
