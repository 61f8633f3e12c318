// The OpenAPI / Swagger extractor on real public documents (test/fixtures/README.md): the
// Swagger Petstore as Swagger 2 JSON and as OpenAPI 3 YAML, STAPI (222 schemas), and a
// document of circular $refs. Expectations come from reading the documents.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractOpenApi } from '../../src/specifications/extractors/openapi.ts';
import { ExtractionError, type Draft, type DraftField, type DraftModel } from '../../src/specifications/extractors/types.ts';

async function extract(file: string): Promise<Draft> {
  const bytes = readFileSync(new URL(`../fixtures/openapi/${file}`, import.meta.url));
  return extractOpenApi({ attachmentId: 'att-1', name: file, kind: 'openapi', bytes });
}

function model(draft: Draft, name: string): DraftModel {
  const found = draft.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name}`);
  return found;
}

function field(draft: Draft, modelName: string, name: string): DraftField {
  const found = model(draft, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name}`);
  return found;
}

/** The Petstore says the same in both versions; only the pointers differ. */
function petstoreExpectations(load: () => Draft, prefix: string): void {
  it('has the six definitions as models, with JSON-pointer locators', () => {
    const draft = load();
    expect(draft.title).toMatch(/^Swagger Petstore/);
    expect(draft.models.map((m) => m.name).sort()).toEqual(['ApiResponse', 'Category', 'Order', 'Pet', 'Tag', 'User']);
    expect(model(draft, 'Pet').locator).toBe(`${prefix}Pet`);
    expect(field(draft, 'Pet', 'status').locator).toBe(`${prefix}Pet/properties/status`);
  });

  it('reads Pet: required name and photoUrls, category to-one, tags to-many, status enum', () => {
    const draft = load();
    expect(field(draft, 'Pet', 'name')).toMatchObject({ type: 'p_TEXT', required: true, many: false });
    expect(field(draft, 'Pet', 'photoUrls')).toMatchObject({ type: 'p_TEXT', many: true, required: true });
    expect(field(draft, 'Pet', 'category')).toMatchObject({ type: { model: 'Category' }, many: false, required: false });
    expect(field(draft, 'Pet', 'tags')).toMatchObject({ type: { model: 'Tag' }, many: true });
    expect(field(draft, 'Pet', 'status')).toMatchObject({ type: 'p_TEXT', enum: ['available', 'pending', 'sold'], required: false });
    expect(field(draft, 'Pet', 'id').type).toBe('p_NUMBER');
  });

  it('reads formats and types: date-time, int32, boolean, an unformatted email stays text', () => {
    const draft = load();
    expect(field(draft, 'Order', 'shipDate').type).toBe('p_DATE_TIME');
    expect(field(draft, 'Order', 'quantity').type).toBe('p_NUMBER');
    expect(field(draft, 'Order', 'complete').type).toBe('p_BOOLEAN');
    expect(field(draft, 'Order', 'status').enum).toEqual(['placed', 'approved', 'delivered']);
    expect(field(draft, 'User', 'email').type).toBe('p_TEXT');
    expect(field(draft, 'User', 'userStatus').type).toBe('p_NUMBER');
  });

  it('turns operations into actions with method, path and operationId', () => {
    const draft = load();
    const byName = new Map(draft.actions.map((a) => [a.name, a]));
    expect(byName.get('addPet')).toMatchObject({ method: 'POST', path: '/pet' });
    expect(byName.get('getPetById')).toMatchObject({ method: 'GET', path: '/pet/{petId}', locator: '#/paths/~1pet~1{petId}/get' });
    expect(byName.get('deleteOrder')).toMatchObject({ method: 'DELETE', path: '/store/order/{orderId}' });
    expect(byName.get('updatePet')).toMatchObject({ method: 'PUT', path: '/pet' });
  });
}

describe('Swagger Petstore, Swagger 2.0 JSON', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('petstore-swagger2.json');
  });
  petstoreExpectations(() => draft, '#/definitions/');

  it('has the 20 operations of its 14 paths and a default on Order.complete', () => {
    expect(draft.actions).toHaveLength(20);
    expect(field(draft, 'Order', 'complete').defaultValue).toBe(false);
    expect(draft.warnings).toEqual([]);
  });
});

describe('Swagger Petstore, OpenAPI 3.0 YAML', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('petstore3-openapi.yaml');
  });
  petstoreExpectations(() => draft, '#/components/schemas/');

  it('has its 19 operations', () => {
    expect(draft.actions).toHaveLength(19);
  });
});

describe('Petstore Expanded, Swagger 2.0 YAML with allOf', () => {
  it('merges allOf: Pet is NewPet\'s fields (name required, tag) plus its own required id', async () => {
    const draft = await extract('petstore-expanded-swagger2.yaml');
    expect(model(draft, 'Pet').fields.map((f) => f.name).sort()).toEqual(['id', 'name', 'tag']);
    expect(field(draft, 'Pet', 'name')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'Pet', 'tag')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'Pet', 'id')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(field(draft, 'NewPet', 'name').required).toBe(true);
    expect(field(draft, 'Error', 'code')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(draft.actions.map((a) => `${a.method} ${a.path} ${a.name}`).sort()).toEqual([
      'DELETE /pets/{id} deletePet',
      'GET /pets findPets',
      'GET /pets/{id} find pet by id',
      'POST /pets addPet',
    ]);
  });
});

describe('STAPI, a real-world OpenAPI 3.0 document of 222 schemas', () => {
  let draft: Draft;
  beforeAll(async () => {
    draft = await extract('star-trek-stapi.yaml');
  });

  it('makes the object schemas models and keeps enum-only schemas (Gender, BloodType) as values', () => {
    expect(draft.title).toBe('STAPI');
    expect(draft.models.length).toBeGreaterThanOrEqual(200);
    const names = draft.models.map((m) => m.name);
    expect(names).toContain('CharacterFull');
    expect(names).not.toContain('Gender');
    expect(names).not.toContain('BloodType');
  });

  it('follows a $ref to an enum schema into an enum field, and refs to object schemas into relationships', () => {
    expect(field(draft, 'CharacterFull', 'gender')).toMatchObject({ type: 'p_TEXT', enum: ['F', 'M'] });
    expect(field(draft, 'CharacterFull', 'bloodType').enum).toEqual(['B_NEGATIVE', 'O_NEGATIVE', 'T_NEGATIVE']);
    expect(field(draft, 'CharacterFull', 'uid')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'SpacecraftFull', 'owner')).toMatchObject({ type: { model: 'OrganizationBase' }, many: false });
    expect(field(draft, 'SpacecraftFull', 'spacecraftTypes')).toMatchObject({ type: { model: 'SpacecraftType' }, many: true });
    expect(field(draft, 'CharacterRelation', 'source').type).toEqual({ model: 'CharacterHeader' });
    expect(field(draft, 'ResponsePage', 'pageNumber').type).toBe('p_NUMBER');
    expect(field(draft, 'ResponsePage', 'firstPage').type).toBe('p_BOOLEAN');
  });

  it('has its 120 operations, named by method and path where the document gives no operationId', () => {
    expect(draft.actions).toHaveLength(120);
    expect(draft.actions.find((a) => a.path === '/character' && a.method === 'GET')?.name).toBe('get /character');
  });
});

describe('circular $refs', () => {
  it('terminates and keeps each cycle as relationships (self, mutual, through arrays)', async () => {
    const draft = await extract('schema-circular.json');
    expect(field(draft, 'MultiPart', 'parent').type).toEqual({ model: 'MultiPart' });
    expect(field(draft, 'MultiPart', 'bodyParts')).toMatchObject({ type: { model: 'BodyPart' }, many: true });
    expect(field(draft, 'BodyPart', 'parent').type).toEqual({ model: 'MultiPart' });
    expect(field(draft, 'ZoneOffset', 'rules').type).toEqual({ model: 'ZoneRules' });
    expect(field(draft, 'ZoneRules', 'transitions')).toMatchObject({ type: { model: 'ZoneOffsetTransition' }, many: true });
    // inline objects such as MultiPart.headers are named in one warning, not turned into models
    expect(draft.warnings).toHaveLength(1);
    expect(draft.warnings[0]!.message).toMatch(/MultiPart\.headers/);
  });
});

describe('documents it cannot use', () => {
  it('rejects a document that is neither OpenAPI nor Swagger with a clear message', async () => {
    const bytes = new TextEncoder().encode('{"title": "not an API"}');
    await expect(extractOpenApi({ attachmentId: 'x', name: 'x.json', kind: 'openapi', bytes })).rejects.toThrow(ExtractionError);
  });
});
