/**
 * OpenAPI 3.x and Swagger 2 documents, JSON or YAML (DESIGN §13): component (or definition)
 * schemas → models through schema-models.ts, operations → actions (method, path, operationId
 * or summary). Locators are JSON pointers into the document (`#/components/schemas/Pet`).
 */
import { ExtractionError, emptyDraft } from './types.ts';
import type { DraftAction, Extractor } from './types.ts';
import { SchemaModels, isObject, refResolver } from './schema-models.ts';
import type { Json, NamedSchema } from './schema-models.ts';
import { planSchemas, variantWarnings } from './schema-shapes.ts';
import { linkModels } from './schema-links.ts';
import { modelName } from '../names.ts';
import { checkNesting, checkYamlBounds } from './nesting.ts';
import { DOCUMENT_LIMITS, pastLimit } from '../limits.ts';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

// Imported on first use: only an OpenAPI or JSON Schema attachment written in YAML needs it (issue 28).
type Yaml = typeof import('yaml');
let yaml: Promise<Yaml> | undefined;
function loadYaml(): Promise<Yaml> {
  yaml ??= import('yaml');
  return yaml;
}

/**
 * JSON is YAML, but JSON.parse is faster on the large JSON documents vendors publish. YAML is
 * measured before it is parsed (its length and nesting: nesting.ts), and either's value is
 * refused when nested past the limit, before the schema walk recurses into it.
 */
export async function parseDocument(text: string, name: string): Promise<Json> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const yaml = await loadYaml();
    checkYamlBounds(text, yaml);
    try {
      // `uniqueKeys` off: its check compares each key with every other (74,000 keys: 8 minutes); a repeated key keeps its last value, as in JSON.parse.
      parsed = yaml.parse(text, { maxAliasCount: DOCUMENT_LIMITS.yamlAliases, uniqueKeys: false });
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      if (/alias count/i.test(message)) throw pastLimit('the YAML document resolves too many aliases', DOCUMENT_LIMITS.yamlAliases, 'aliases');
      throw new ExtractionError(`${name} is neither JSON nor YAML: ${message}`);
    }
  }
  if (!isObject(parsed)) throw new ExtractionError(`${name} does not hold a JSON or YAML object`);
  checkNesting(parsed);
  return parsed;
}

function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The schema an operation answers with (its first success), else the one its request carries. */
function operationSchemas(operation: Json, resolve: (ref: string) => unknown): unknown[] {
  const deref = (value: unknown): unknown => (isObject(value) && typeof value.$ref === 'string' ? resolve(value.$ref) : value);
  const bodySchemas = (holder: unknown): unknown[] => {
    const body = deref(holder);
    if (!isObject(body)) return [];
    if (isObject(body.content)) return Object.values(body.content).map((media) => (isObject(media) ? media.schema : undefined));
    return [body.schema];
  };
  const responses = isObject(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses).filter((code) => /^2/.test(code)).sort();
  const out = success.flatMap((code) => bodySchemas(responses[code]));
  out.push(...bodySchemas(operation.requestBody));
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    const p = deref(parameter);
    if (isObject(p) && p.in === 'body') out.push(p.schema);
  }
  return out;
}

function actions(document: Json, entityOf: (schema: unknown) => string | undefined, resolve: (ref: string) => unknown): DraftAction[] {
  const found: DraftAction[] = [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const summary = typeof operation.summary === 'string' ? operation.summary : undefined;
      const description = typeof operation.description === 'string' ? operation.description : undefined;
      const action: DraftAction = {
        name: typeof operation.operationId === 'string' ? operation.operationId : summary ?? `${method} ${path}`,
        method: method.toUpperCase() as DraftAction['method'],
        path,
        locator: `#/paths/${pointerSegment(path)}/${method}`,
      };
      const text = summary ?? description;
      if (text) action.description = text;
      const model = operationSchemas(operation, resolve).map(entityOf).find((m) => m !== undefined);
      if (model) action.model = model;
      found.push(action);
    }
  }
  return found;
}

/**
 * Model names of the collections the document serves at its top level: `/api/v2/egg-group/{id}/`
 * → `EggGroup`. A collection under another record (`/Accounts/{AccountID}/Attachments`) holds
 * that record's own children, not records shared by many.
 */
function collectionNames(document: Json): Set<string> {
  const names = new Set<string>();
  for (const path of Object.keys(isObject(document.paths) ? document.paths : {})) {
    for (const segment of path.split('/')) {
      if (segment.startsWith('{')) break;
      if (/^[A-Za-z][\w-]*$/.test(segment)) names.add(modelName(segment));
    }
  }
  return names;
}

export const extractOpenApi: Extractor = async (input) => {
  const document = await parseDocument(new TextDecoder().decode(input.bytes), input.name);
  const swagger2 = typeof document.swagger === 'string' && document.swagger.startsWith('2');
  const openapi3 = typeof document.openapi === 'string' && document.openapi.startsWith('3');
  if (!swagger2 && !openapi3) {
    throw new ExtractionError(`${input.name} has neither an "openapi: 3.x" nor a "swagger: 2.0" member`);
  }
  const draft = emptyDraft();
  const info = isObject(document.info) ? document.info : {};
  if (typeof info.title === 'string') draft.title = info.title;
  if (typeof info.description === 'string') draft.description = info.description;

  const [container, prefix] = swagger2
    ? [document.definitions, '#/definitions/']
    : [isObject(document.components) ? document.components.schemas : undefined, '#/components/schemas/'];
  const named: NamedSchema[] = Object.keys(isObject(container) ? container : {}).map((name) => ({
    name,
    pointer: `${prefix}${pointerSegment(name)}`,
  }));
  const resolve = await refResolver(document);
  const schemas = new SchemaModels(named, resolve);
  const plan = planSchemas(schemas, named, resolve);
  schemas.usePlan(plan);
  draft.models = schemas.models();
  draft.warnings.push(...variantWarnings(plan, named, draft.models), ...schemas.warnings);
  // An operation's entity: the model a schema is, or the records an envelope of it holds.
  const entityOf = (schema: unknown): string | undefined => {
    if (!isObject(schema)) return undefined;
    const items = isObject(schema.items) ? schema.items : {};
    const ref = typeof schema.$ref === 'string' ? schema.$ref : schemas.wrappedRef(schema) ?? (typeof items.$ref === 'string' ? items.$ref : undefined);
    return ref ? schemas.modelOf(plan.envelopeOf.get(ref) ?? ref) : undefined;
  };
  draft.actions = actions(document, entityOf, resolve);
  draft.warnings.push(...linkModels(draft.models, collectionNames(document)));
  if (draft.models.length === 0 && draft.actions.length === 0) {
    draft.warnings.push({ locator: '#', message: 'the document names no schemas and no operations' });
  }
  return draft;
};
