/**
 * JSON Schema documents, draft 7 (`definitions`) and 2019-09 / 2020-12 (`$defs`), JSON or
 * YAML (DESIGN §13): each named definition that is an object schema is a model, and so is
 * the root when it has properties, named by its `title` (or the file name when the title is
 * a sentence). Fields, relationships, enums and formats follow schema-models.ts.
 */
import { ExtractionError, emptyDraft } from './types.ts';
import type { Extractor } from './types.ts';
import { SchemaModels, isObject, refResolver } from './schema-models.ts';
import type { NamedSchema } from './schema-models.ts';
import { parseDocument } from './openapi.ts';

const DEFINITION_MEMBERS = ['$defs', 'definitions'] as const;

/** `Pet` from a title, else `cyclonedx-bom` from `cyclonedx-bom-1.3.schema.json`. */
function rootName(title: unknown, fileName: string): string {
  if (typeof title === 'string' && /^\s*\S+(\s+\S+){0,2}\s*$/.test(title)) return title.trim();
  const stem = fileName.replace(/^.*[\\/]/, '').split('.')[0] ?? 'Root';
  return stem.replace(/[-_.]?v?\d+$/, '') || 'Root';
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
  // the root first: a `$ref: "#"` anywhere points at it, and it is the document's main record
  const schemas = new SchemaModels(hasRoot && !named.some((n) => n.name === name) ? [{ name, pointer: '#' }, ...named] : named, await refResolver(document));
  draft.models = schemas.models();
  draft.warnings.push(...schemas.warnings);
  return draft;
};
