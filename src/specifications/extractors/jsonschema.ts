/**
 * JSON Schema documents, draft 7 (`definitions`) and 2019-09 / 2020-12 (`$defs`), JSON or
 * YAML (DESIGN §13): each named definition that is an object schema is a model, and so is
 * the root when it has properties, named by its `title` (or the file name when the title is
 * a sentence). Fields, relationships, enums and formats follow schema-models.ts.
 */
import { ExtractionError, emptyDraft } from './types.ts';
import type { Extractor } from './types.ts';
import { SchemaModels, isObject, refResolver } from './schema-models.ts';
import type { Json, NamedSchema } from './schema-models.ts';
import { parseDocument } from './openapi.ts';
import { planSchemas, variantWarnings } from './schema-shapes.ts';
import { linkModels } from './schema-links.ts';

const DEFINITION_MEMBERS = ['$defs', 'definitions'] as const;

/** `Pet` from a title, else `cyclonedx-bom` from `cyclonedx-bom-1.3.schema.json`. */
function rootName(title: unknown, fileName: string): string {
  if (typeof title === 'string' && /^\s*\S+(\s+\S+){0,2}\s*$/.test(title)) return title.trim();
  const stem = fileName.replace(/^.*[\\/]/, '').split('.')[0] ?? 'Root';
  return stem.replace(/[-_.]?v?\d+$/, '').replace(/[-_]?schema$/i, '') || 'Root';
}

/** Members that describe the document itself rather than a record: its format, version, schema, serial number. */
const DOCUMENT_MEMBER = /^(\$?schema|\$?id|uri|serialnumber|version|specversion|schemaversion|[a-z]*format|extensions|publisheddate|generatedat|license|licence)$/;

/**
 * Whether the root is a container of the definitions rather than a record: each of its members
 * is a definition (or a list of them) or says what the document is, and one lists definitions.
 */
function isDocumentWrapper(root: Json, schemas: SchemaModels): boolean {
  if (!isObject(root.properties)) return false;
  let lists = 0;
  for (const [key, property] of Object.entries(root.properties)) {
    if (!isObject(property)) return false;
    const items = isObject(property.items) ? property.items : undefined;
    const ref = typeof property.$ref === 'string' ? property.$ref : schemas.wrappedRef(property);
    const itemRef = items ? (typeof items.$ref === 'string' ? items.$ref : schemas.wrappedRef(items)) : undefined;
    if (itemRef && schemas.modelOf(itemRef)) lists += 1;
    else if (ref && schemas.modelOf(ref)) continue;
    else if (!DOCUMENT_MEMBER.test(key.toLowerCase().replace(/[_-]/g, '')) && property.const === undefined && !(Array.isArray(property.enum) && property.enum.length === 1)) return false;
  }
  return lists > 0;
}

function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export const extractJsonSchema: Extractor = async (input) => {
  const document = await parseDocument(new TextDecoder().decode(input.bytes), input.name);
  const named: NamedSchema[] = [];
  for (const member of DEFINITION_MEMBERS) {
    const definitions = document[member];
    if (!isObject(definitions)) continue;
    for (const name of Object.keys(definitions)) named.push({ name, pointer: `#/${member}/${pointerSegment(name)}` });
  }
  const hasRoot = isObject(document.properties) || Array.isArray(document.allOf);
  if (!hasRoot && named.length === 0) {
    throw new ExtractionError(`${input.name} has no properties and no $defs or definitions: not a JSON Schema of data`);
  }
  const draft = emptyDraft();
  if (typeof document.title === 'string') draft.title = document.title;
  if (typeof document.description === 'string') draft.description = document.description;
  const name = rootName(document.title, input.name);
  const resolve = await refResolver(document);
  let withRoot = hasRoot && !named.some((n) => n.name === name);
  if (withRoot && isDocumentWrapper(document, new SchemaModels(named, resolve))) {
    withRoot = false;
    draft.warnings.push({ locator: '#', message: `the root schema (${name}) only holds the definitions and says what the document is: it is not made a model, its definitions are.` });
  }
  // the root first: a `$ref: "#"` anywhere points at it, and it is the document's main record
  const all = withRoot ? [{ name, pointer: '#' }, ...named] : named;
  const schemas = new SchemaModels(all, resolve);
  // The definitions are read as an API's schemas are (envelopes, error shapes, variants); the root is the document's own record.
  const plan = planSchemas(schemas, named, resolve);
  schemas.usePlan(plan);
  draft.models = schemas.models();
  draft.warnings.push(...variantWarnings(plan, named, draft.models), ...schemas.warnings);
  draft.warnings.push(...linkModels(draft.models, new Set()));
  return draft;
};
