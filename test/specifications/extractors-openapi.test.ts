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
  it('has the five entity definitions as models (ApiResponse, an error shape, left out), with JSON-pointer locators', () => {
    const draft = load();
    expect(draft.title).toMatch(/^Swagger Petstore/);
    expect(draft.models.filter((m) => !m.joinOf).map((m) => m.name).sort()).toEqual(['Category', 'Order', 'Pet', 'Tag', 'User']);
    expect(draft.warnings.find((w) => w.locator === `${prefix}ApiResponse`)?.message).toMatch(/ApiResponse is the shape of an error answer/);
    expect(model(draft, 'Pet').locator).toBe(`${prefix}Pet`);
    expect(field(draft, 'Pet', 'status').locator).toBe(`${prefix}Pet/properties/status`);
  });

  it('reads Pet: required name and photoUrls, category to-one, tags to-many, status enum', () => {
    const draft = load();
    expect(field(draft, 'Pet', 'name')).toMatchObject({ type: 'p_TEXT', required: true, many: false });
    expect(field(draft, 'Pet', 'photoUrls')).toMatchObject({ type: 'p_TEXT', many: true, required: true });
    expect(field(draft, 'Pet', 'category')).toMatchObject({ type: { model: 'Category' }, many: false, required: false });
    // Tags have their own id and are no part of one Pet: a many-to-many, written as a join of the two.
    expect(model(draft, 'Pet').fields.map((f) => f.name)).not.toContain('tags');
    expect(draft.models.find((m) => m.joinOf)?.joinOf).toEqual(['Pet', 'Tag']);
    expect(field(draft, 'Order', 'petId')).toMatchObject({ type: { model: 'Pet' }, many: false });
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
    expect(draft.warnings.map((w) => w.message.split(':')[0])).toEqual([
      'ApiResponse is the shape of an error answer',
      'key properties beside a model of their name made relationships to it',
      'lists of shared records with their own identity made many-to-many relationships (a record is listed by many)',
    ]);
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
  it('merges allOf: Pet is NewPet\'s fields (name required, tag) plus its own required id; NewPet is a variant of Pet, Error an error shape', async () => {
    const draft = await extract('petstore-expanded-swagger2.yaml');
    expect(model(draft, 'Pet').fields.map((f) => f.name).sort()).toEqual(['id', 'name', 'tag']);
    expect(field(draft, 'Pet', 'name')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'Pet', 'tag')).toMatchObject({ type: 'p_TEXT', required: false });
    expect(field(draft, 'Pet', 'id')).toMatchObject({ type: 'p_NUMBER', required: true });
    expect(draft.models.map((m) => m.name)).toEqual(['Pet']);
    expect(draft.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining(['Pet, NewPet are shapes of one entity: merged into the model Pet.', 'Error is the shape of an error answer: not made a model.']),
    );
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

  it('makes each entity one model (its Header, Base and Full shapes merged, its response envelopes left out) and keeps enum-only schemas (Gender, BloodType) as values', () => {
    expect(draft.title).toBe('STAPI');
    const names = draft.models.filter((m) => !m.joinOf).map((m) => m.name);
    expect(names.length).toBeGreaterThanOrEqual(50);
    expect(names).toContain('Character');
    for (const gone of ['CharacterFull', 'CharacterBase', 'CharacterHeader', 'CharacterBaseResponse', 'CharacterFullResponse', 'ResponsePage', 'Error']) expect(names).not.toContain(gone);
    expect(names).not.toContain('Gender');
    expect(names).not.toContain('BloodType');
  });

  it('follows a $ref to an enum schema into an enum field, and refs to object schemas into relationships', () => {
    expect(field(draft, 'Character', 'gender')).toMatchObject({ type: 'p_TEXT', enum: ['F', 'M'] });
    expect(field(draft, 'Character', 'bloodType').enum).toEqual(['B_NEGATIVE', 'O_NEGATIVE', 'T_NEGATIVE']);
    expect(field(draft, 'Character', 'uid')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'Spacecraft', 'owner')).toMatchObject({ type: { model: 'Organization' }, many: false });
    // Spacecraft types are shared records of their own: a many-to-many.
    expect(draft.models.find((m) => m.joinOf?.[0] === 'Spacecraft' && m.joinOf[1] === 'SpacecraftType')).toBeDefined();
    expect(field(draft, 'CharacterRelation', 'source').type).toEqual({ model: 'Character' });
    expect(draft.warnings.find((w) => w.locator === '#/components/schemas/ResponsePage')?.message).toMatch(/paging metadata/);
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
    expect(draft.warnings.filter((w) => /inline objects/.test(w.message))).toHaveLength(1);
    expect(draft.warnings.find((w) => /inline objects/.test(w.message))!.message).toMatch(/MultiPart\.headers/);
    // MessageBodyWorkers is an object with no properties: left out, with the fields pointing at it.
    expect(draft.models.map((m) => m.name)).not.toContain('MessageBodyWorkers');
    expect(draft.warnings.find((w) => w.locator === '#/components/schemas/MessageBodyWorkers')?.message).toBe(
      'MessageBodyWorkers is an object schema with no properties (an empty object): not made a model; the fields pointing at it left out too: BodyPart.messageBodyWorkers, FormDataBodyPart.messageBodyWorkers, MultiPart.messageBodyWorkers.',
    );
  });
});

describe('documents it cannot use', () => {
  it('rejects a document that is neither OpenAPI nor Swagger with a clear message', async () => {
    const bytes = new TextEncoder().encode('{"title": "not an API"}');
    await expect(extractOpenApi({ attachmentId: 'x', name: 'x.json', kind: 'openapi', bytes })).rejects.toThrow(ExtractionError);
  });
});
