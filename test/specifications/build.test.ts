// Building a specification from drafts made here (the extractors are tested on their own with
// real documents): names normalised, drafts merged, relationships with partners, join tables
// as many-to-many, operations mapped onto the generated routes, content that validates, provenance.
import { describe, expect, it } from 'vitest';
import { buildFromDrafts, buildSpecification } from '../../src/specifications/build.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { findPartner } from '../../src/definition/relationships.ts';
import { emptyDraft, ExtractionError, type Draft, type DraftField } from '../../src/specifications/extractors/types.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';

const col = (name: string, type: DraftField['type'], extra: Partial<DraftField> = {}): DraftField => ({
  name,
  type,
  many: false,
  required: false,
  locator: `column ${name}`,
  ...extra,
});

/** A schema shaped like a rental shop's: two keys to one table, a join table, tables pointing at each other. */
function shopDraft(): Draft {
  return {
    ...emptyDraft(),
    models: [
      { name: 'language', locator: 'table language', fields: [col('language_id', 'p_NUMBER', { required: true }), col('name', 'p_TEXT', { required: true })] },
      {
        name: 'films',
        locator: 'table films',
        fields: [
          col('film_id', 'p_NUMBER', { required: true }),
          col('title', 'p_TEXT', { required: true }),
          col('rating', 'p_TEXT', { enum: ['G', 'PG', 'R'], defaultValue: 'G' }),
          col('special_features', 'p_TEXT', { many: true }),
          col('language_id', { model: 'language' }, { required: true }),
          col('original_language_id', { model: 'language' }),
        ],
      },
      { name: 'actor', locator: 'table actor', fields: [col('actor_id', 'p_NUMBER'), col('first_name', 'p_TEXT', { required: true })] },
      { name: 'film_actor', locator: 'table film_actor', joinOf: ['actor', 'films'], fields: [col('actor_id', { model: 'actor' }), col('film_id', { model: 'films' })] },
      { name: 'store', locator: 'table store', fields: [col('manager_staff_id', { model: 'staff' }, { required: true })] },
      { name: 'staff', locator: 'table staff', fields: [col('first_name', 'p_TEXT'), col('store_id', { model: 'store' }, { required: true, partner: 'staff_members' })] },
      { name: 'customer', locator: 'table customer', fields: [col('email', 'p_TEXT'), col('store_id', { model: 'store' })] },
    ],
    warnings: [{ locator: 'line 900', message: 'CREATE FUNCTION skipped' }],
  };
}

function petDraft(): Draft {
  return {
    ...emptyDraft(),
    title: 'Pet store',
    models: [
      {
        name: 'Pet',
        locator: '#/components/schemas/Pet',
        fields: [
          col('id', 'p_NUMBER'),
          col('name', 'p_TEXT', { required: true, locator: '#/components/schemas/Pet/properties/name' }),
          col('status', 'p_TEXT', { enum: ['available', 'sold'] }),
          col('tags', { model: 'Tag' }, { many: true }),
        ],
      },
      { name: 'Tag', locator: '#/components/schemas/Tag', fields: [col('name', 'p_TEXT')] },
      // The same table as the SQL draft's `films`, with a field typed otherwise.
      { name: 'Film', locator: '#/components/schemas/Film', fields: [col('title', 'p_NUMBER'), col('length', 'p_NUMBER')] },
    ],
    actions: [
      { name: 'getPetById', method: 'GET', path: '/pet/{petId}', locator: '#/paths/~1pet~1{petId}/get' },
      { name: 'findByStatus', method: 'GET', path: '/pet/findByStatus', description: 'Finds pets by status', locator: '#/paths/~1pet~1findByStatus/get' },
      // The generated API serves this route itself.
      { name: 'listPets', method: 'GET', path: '/pets', locator: '#/paths/~1pets/get' },
    ],
    personas: [{ name: 'Shop owner', locator: 'line 3' }],
    requirements: [{ description: 'As a shop owner, I want to list pets by status, so that I can sell them.', persona: 'Shop owner', locator: 'line 4' }],
    pages: [{ title: 'Home', locator: 'node 1:2' }, { title: 'Pet details', locator: 'node 1:3' }],
  };
}

const model = (def: AppDefinition, name: string): Model => {
  const found = def.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} in ${def.models.map((m) => m.name).join(', ')}`);
  return found;
};
const field = (def: AppDefinition, modelName: string, name: string): Field => {
  const found = model(def, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} in ${model(def, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
};
const partnerOf = (def: AppDefinition, modelName: string, name: string) => findPartner(def, model(def, modelName), field(def, modelName, name))?.name;

describe('building a specification from drafts', () => {
  const built = buildFromDrafts('Shop', [
    { attachmentId: 'a-sql', name: 'shop.sql', draft: shopDraft() },
    { attachmentId: 'a-api', name: 'pets.yaml', draft: petDraft() },
  ]);
  const def = built.content;

  it('produces content that passes the validation of a saved definition', () => {
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
  });

  it('normalises names and merges the same model from two sources, warning about the conflicting type', () => {
    expect(def.models.map((m) => m.name).sort()).toEqual(['Actor', 'Customer', 'Film', 'Language', 'Pet', 'Staff', 'Store', 'Tag']);
    expect(field(def, 'Actor', 'firstName').to).toBe('p_TEXT');
    // Film from both sources: the SQL title (first) kept, the OpenAPI length added.
    expect(field(def, 'Film', 'title').to).toBe('p_TEXT');
    expect(field(def, 'Film', 'length').to).toBe('p_NUMBER');
    expect(built.warnings.some((w) => w.attachmentId === 'a-api' && /Film\.title/.test(w.message))).toBe(true);
    // A warning about a place that produced an element names the element.
    const specialFeatures = model(def, 'Film').fields.findIndex((f) => f.name === 'specialFeatures');
    const filmIndex = def.models.findIndex((m) => m.name === 'Film');
    const extra = buildFromDrafts('Shop', [
      { attachmentId: 'a-sql', name: 'shop.sql', draft: { ...shopDraft(), warnings: [{ locator: 'column special_features', message: 'array of text' }] } },
      { attachmentId: 'a-api', name: 'pets.yaml', draft: petDraft() },
    ]);
    expect(extra.warnings).toContainEqual({ attachmentId: 'a-sql', locator: 'column special_features', message: 'array of text', path: `/models/${filmIndex}/fields/${specialFeatures}` });
    // Own keys are every record's id.
    expect(model(def, 'Film').fields.map((f) => f.name)).not.toContain('filmId');
    expect(model(def, 'Pet').fields.map((f) => f.name)).not.toContain('id');
    // The extractor's own warning is passed on with its attachment.
    expect(built.warnings).toContainEqual({ attachmentId: 'a-sql', locator: 'line 900', message: 'CREATE FUNCTION skipped' });
  });

  it('keeps required, enums, defaults and many values', () => {
    expect(field(def, 'Film', 'title').min).toBe(1);
    expect(field(def, 'Film', 'rating')).toMatchObject({ enum: ['G', 'PG', 'R'], defaultValue: 'G', min: 0 });
    expect(field(def, 'Film', 'specialFeatures')).toMatchObject({ to: 'p_TEXT', max: null });
    expect(field(def, 'Pet', 'status').enum).toEqual(['available', 'sold']);
  });

  it('turns foreign keys into relationships with partners, and a join table into a many-to-many', () => {
    const language = model(def, 'Language').id;
    expect(field(def, 'Film', 'language')).toMatchObject({ to: language, max: 1, min: 1, relationshipOwner: false });
    expect(field(def, 'Film', 'originalLanguage')).toMatchObject({ to: language, max: 1 });
    // Two keys to one table: each with its own partner on Language, paired by id.
    expect(partnerOf(def, 'Film', 'language')).toBe('filmsAsLanguage');
    expect(partnerOf(def, 'Film', 'originalLanguage')).toBe('filmsAsOriginalLanguage');
    expect(field(def, 'Film', 'language').partner).toBe(field(def, 'Language', 'filmsAsLanguage').id);
    expect(field(def, 'Language', 'filmsAsOriginalLanguage')).toMatchObject({ partner: field(def, 'Film', 'originalLanguage').id, max: null, relationshipOwner: true });
    expect(built.warnings.some((w) => w.message.includes('Film.language ↔ Language.filmsAsLanguage, Film.originalLanguage ↔ Language.filmsAsOriginalLanguage'))).toBe(true);
    // The join table is gone; Film and Actor list each other.
    expect(def.models.map((m) => m.name)).not.toContain('FilmActor');
    expect(field(def, 'Film', 'actors')).toMatchObject({ to: model(def, 'Actor').id, max: null });
    expect(partnerOf(def, 'Film', 'actors')).toBe('films');
    expect(field(def, 'Actor', 'films').max).toBeNull();
    // A named partner is used: staff.store_id → Store.staffMembers.
    expect(partnerOf(def, 'Staff', 'store')).toBe('staffMembers');
    expect(field(def, 'Store', 'staffMembers').max).toBeNull();
    // Store.manager points back the other way: kept, with its own partner, both pairs stated by id.
    // Both required, each of the other: the one not named after its target is optional, or neither could be created first.
    expect(field(def, 'Store', 'managerStaff')).toMatchObject({ to: model(def, 'Staff').id, max: 1, min: 0, relationshipOwner: false });
    expect(field(def, 'Staff', 'store').min).toBe(1);
    expect(built.warnings.some((w) => /^Store\.managerStaff and Staff\.store each require a record of the other model.*Store\.managerStaff is optional/.test(w.message))).toBe(true);
    expect(partnerOf(def, 'Store', 'managerStaff')).toBe('storesAsManagerStaff');
    expect(field(def, 'Staff', 'store').partner).toBe(field(def, 'Store', 'staffMembers').id);
    // Customer.store without a partner named: Store.customers.
    expect(partnerOf(def, 'Customer', 'store')).toBe('customers');
    // An array of $ref: to-many, with a to-one partner.
    expect(field(def, 'Pet', 'tags').max).toBeNull();
    expect(partnerOf(def, 'Pet', 'tags')).toBe('pet');
  });

  it('chooses the model with an email as the user model', () => {
    expect(def.userModelId).toBe(model(def, 'Customer').id);
  });

  it('maps operations onto the generated routes in warnings, and makes no action or trigger of them', () => {
    expect(def.triggers).toEqual([]);
    expect(def.actions).toEqual([]);
    const messages = built.warnings.map((w) => w.message);
    expect(messages).toContain('GET /pet/{petId} (getPetById) → the generated `GET /pets/{id}` of Pet.');
    expect(messages).toContain('GET /pet/findByStatus (findByStatus) → the generated `GET /pets` of Pet with a filter on its fields.');
    expect(messages).toContain('GET /pets (listPets) → the generated `GET /pets` of Pet.');
  });

  it('keeps personas, requirements and pages', () => {
    expect(def.personas).toEqual([{ name: 'Shop owner' }]);
    expect(def.requirements).toHaveLength(1);
    expect(def.requirements[0].description).toMatch(/list pets by status/);
    expect(def.appDraft?.sitemap.nodes.map((n) => n.route)).toEqual(['/', '/pet-details']);
    expect(def.appOverview?.name).toBe('Pet store');
  });

  it('maps each produced element to its attachment and locator', () => {
    const petIndex = def.models.findIndex((m) => m.name === 'Pet');
    expect(built.provenance[`/models/${petIndex}`]).toEqual({ attachmentId: 'a-api', locator: '#/components/schemas/Pet' });
    const nameIndex = def.models[petIndex].fields.findIndex((f) => f.name === 'name');
    expect(built.provenance[`/models/${petIndex}/fields/${nameIndex}`]).toEqual({ attachmentId: 'a-api', locator: '#/components/schemas/Pet/properties/name' });
    const filmIndex = def.models.findIndex((m) => m.name === 'Film');
    expect(built.provenance[`/models/${filmIndex}`]).toEqual({ attachmentId: 'a-sql', locator: 'table films' });
    expect(built.warnings.find((w) => /getPetById/.test(w.message))).toMatchObject({ attachmentId: 'a-api', locator: '#/paths/~1pet~1{petId}/get' });
    expect(built.provenance['/requirements/0']).toEqual({ attachmentId: 'a-api', locator: 'line 4' });
    expect(built.summary).toMatchObject({ attachments: 2, models: 8, triggers: 0, requirements: 1, personas: 1, pages: 2 });
  });

  it('adds a User model when no source describes users, and leaves out what cannot validate', () => {
    const odd: Draft = {
      ...emptyDraft(),
      models: [
        { name: 'thing', locator: 'table thing', fields: [col('size', 'p_NUMBER', { defaultValue: 'big' }), col('kind', 'p_TEXT', { enum: ['a', 'b'], defaultValue: 'c' })] },
      ],
      actions: [{ name: 'weird', method: 'GET', path: '/we ird/{x}', locator: '#/paths/weird' }],
    };
    const result = buildFromDrafts('Odd', [{ attachmentId: 'a1', name: 'odd.sql', draft: odd }]);
    expect(() => validateDefinition(structuredClone(result.content))).not.toThrow();
    expect(result.content.models.map((m) => m.name).sort()).toEqual(['Thing', 'User']);
    expect(field(result.content, 'Thing', 'size').defaultValue).toBeUndefined();
    expect(field(result.content, 'Thing', 'kind').defaultValue).toBeUndefined();
    expect(result.content.triggers).toEqual([]);
    expect(result.warnings.filter((w) => w.message.startsWith('Left out')).length).toBeGreaterThanOrEqual(2);
    expect(result.warnings.some((w) => /GET \/we ird\/\{x\} \(weird\) is no create, read, update or delete of a model/.test(w.message))).toBe(true);
    expect(result.warnings.some((w) => /User model/.test(w.message))).toBe(true);
  });
});

describe('running extractors', () => {
  it('fails with a clear message when no attachment gives anything, and warns about a kind no extractor reads', async () => {
    const none = () => undefined;
    await expect(buildSpecification('X', [{ id: 'i1', name: 'logo.png', kind: 'image', bytes: new Uint8Array([1]) }], none)).rejects.toThrow(
      /Nothing could be read from the attachments\. logo\.png is an attachment of kind image/,
    );
    const failing = async (): Promise<Draft> => {
      throw new ExtractionError('not a SQL file');
    };
    await expect(buildSpecification('X', [{ id: 'i2', name: 'x.sql', kind: 'sql', bytes: new Uint8Array([1]) }], () => failing)).rejects.toThrow(/x\.sql \(sql\) could not be read: not a SQL file/);
    const good = async (): Promise<Draft> => ({ ...emptyDraft(), models: [{ name: 'note', locator: 'l1', fields: [col('text', 'p_TEXT')] }] });
    const mixed = await buildSpecification(
      'X',
      [
        { id: 'i3', name: 'logo.png', kind: 'image', bytes: new Uint8Array([1]) },
        { id: 'i4', name: 'notes.csv', kind: 'csv', bytes: new Uint8Array([1]) },
      ],
      (kind) => (kind === 'csv' ? good : undefined),
    );
    expect(mixed.content.models.map((m) => m.name)).toContain('Note');
    expect(mixed.warnings).toContainEqual({ attachmentId: 'i3', message: expect.stringMatching(/logo\.png is an attachment of kind image/) });
  });
});
