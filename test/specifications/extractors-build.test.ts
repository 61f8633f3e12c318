// Each real document of the OpenAPI, JSON Schema and SQL extractors, through the registry and
// build.ts into a specification's content: the content passes definition validation, and
// what the documents say about relationships survives (Pagila's join tables as many-to-many,
// the to-many partner a foreign key names, Petstore's Pet.tags).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSpecification } from '../../src/specifications/build.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { findPartner } from '../../src/definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';
import type { AttachmentKind } from '../../src/specifications/extractors/types.ts';

const FIXTURES: [AttachmentKind, string][] = [
  ['sql', 'sql/pagila-schema.sql'],
  ['sql', 'sql/sakila-mysql-schema.sql'],
  ['openapi', 'openapi/petstore-swagger2.json'],
  ['openapi', 'openapi/petstore3-openapi.yaml'],
  ['openapi', 'openapi/petstore-expanded-swagger2.yaml'],
  ['openapi', 'openapi/star-trek-stapi.yaml'],
  ['openapi', 'openapi/schema-circular.json'],
  ['jsonschema', 'jsonschema/cyclonedx-bom-1.3.schema.json'],
];

async function build(kind: AttachmentKind, file: string): Promise<AppDefinition> {
  const bytes = readFileSync(new URL(`../fixtures/${file}`, import.meta.url));
  const built = await buildSpecification('Fixture', [{ id: 'att-1', name: file.split('/')[1]!, kind, bytes }]);
  return built.content;
}

function model(def: AppDefinition, name: string): Model {
  const found = (def.models ?? []).find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${(def.models ?? []).map((m) => m.name).join(', ')}`);
  return found;
}

function field(def: AppDefinition, modelName: string, name: string): Field {
  const found = model(def, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} among ${model(def, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
}

describe('extractor drafts built into specification content', () => {
  for (const [kind, file] of FIXTURES) {
    it(`${file} builds content that validates as a definition`, async () => {
      const content = await build(kind, file);
      expect((content.models ?? []).length).toBeGreaterThan(0);
      expect(() => validateDefinition(structuredClone(content))).not.toThrow();
    }, 30_000);
  }

  it('Pagila: film_actor becomes a many-to-many between Film and Actor, address.city_id a to-one with City.addresses', async () => {
    const content = await build('sql', 'sql/pagila-schema.sql');
    const names = (content.models ?? []).map((m) => m.name);
    expect(names).not.toContain('FilmActor');
    const actors = field(content, 'Film', 'actors');
    expect(actors.to).toBe(model(content, 'Actor').id);
    expect(actors.max).toBeNull();
    expect(findPartner(content, model(content, 'Film'), actors)?.name).toBe('films');
    const city = field(content, 'Address', 'city');
    expect(city.to).toBe(model(content, 'City').id);
    expect(findPartner(content, model(content, 'Address'), city)?.name).toBe('addresses');
  }, 30_000);

  it('Petstore: Pet.tags is a to-many relationship to Tag', async () => {
    const content = await build('openapi', 'openapi/petstore-swagger2.json');
    const tags = field(content, 'Pet', 'tags');
    expect(tags.to).toBe(model(content, 'Tag').id);
    expect(tags.max).toBeNull();
  }, 30_000);
});
