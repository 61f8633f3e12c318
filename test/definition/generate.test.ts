import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { generateModelsFromDomainModel } from '../../src/definition/generate.ts';
import { primitiveTypeOf } from '../../src/definition/generate/primitive-types.ts';
import type { AppDefinition, DomainModel, Model } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { acceptAll, todo } from './fixtures/index.ts';

type DomainModels = NonNullable<DomainModel>['models'];
const valid = (def: AppDefinition) => validateDefinition(def, { expressions: acceptAll });
const withDomain = (models: DomainModels, existing: Model[] = []): AppDefinition => ({
  ...todo(),
  actions: [],
  triggers: [],
  domainModel: { models },
  models: existing,
});
const dm = (name: string, fields: DomainModels[number]['fields'], isUserModel = false) => ({ name, fields, requirements: [], isUserModel });
/** name, to, owner, max of every field: what the API is made of. */
const skeleton = (def: AppDefinition) =>
  def.models.map((m) => ({ id: m.id, name: m.name, fields: m.fields.map((f) => [f.id, f.name, f.to, f.relationshipOwner, f.max]) }));

describe('generateModelsFromDomainModel on the to-do example', () => {
  it('from scratch: the example models in names, types, relationships and ids', () => {
    const example = todo();
    const fresh = { ...todo(), models: [], userModelId: 'urn:svc:model:none' };
    const generated = generateModelsFromDomainModel(fresh);
    expect(skeleton(generated)).toEqual(skeleton(example));
    expect(generated.userModelId).toBe('urn:svc:model:user');
    expect(generated.models.map((m) => m.referenceRequirements)).toEqual([['@requirement/track-todos'], []]);
    // New models are closed by default, new fields optional.
    expect(generated.models[0].accessControl).toEqual({ rules: [], defaultAccess: 'deny' });
    expect(generated.models.flatMap((m) => m.fields.map((f) => f.min))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(fresh.models).toEqual([]);
    valid(generated);
  });

  it('over the example models: nothing changes (ids, access, min, enum, default kept)', () => {
    const def = todo();
    expect(generateModelsFromDomainModel(def)).toEqual(todo());
  });

  it('is deterministic and idempotent', () => {
    const fresh = { ...todo(), models: [] };
    const once = generateModelsFromDomainModel(fresh);
    expect(JSON.stringify(generateModelsFromDomainModel(fresh))).toBe(JSON.stringify(once));
    expect(JSON.stringify(generateModelsFromDomainModel(once))).toBe(JSON.stringify(once));
  });

  it('keeps ids of existing models and fields by name; new ones never reuse an id', () => {
    const def = todo();
    const todoDomain = def.domainModel!.models[0];
    todoDomain.name = 'Task';
    todoDomain.fields[0].name = 'heading';
    def.domainModel!.models[1].fields[2].type = 'Task';
    const next = generateModelsFromDomainModel(def);
    // ToDo is no longer in the domain model: Task is a new model, and may not take a used id.
    expect(next.models.map((m) => [m.id, m.name])).toEqual([
      ['urn:svc:model:task', 'Task'],
      ['urn:svc:model:user', 'User'],
    ]);
    expect(next.models[1].accessControl).toEqual(todo().models[1].accessControl);
    expect(next.models[1].fields[2]).toMatchObject({ id: 'urn:svc:edge:user-todos', to: 'urn:svc:model:task' });
    const renamed = todo();
    renamed.domainModel!.models[0].fields[0].name = 'heading';
    const fields = generateModelsFromDomainModel(renamed).models[0].fields;
    expect(fields.map((f) => f.id)).toEqual([
      'urn:svc:edge:todo-heading',
      'urn:svc:edge:todo-description',
      'urn:svc:edge:todo-deadline',
      'urn:svc:edge:todo-status',
      'urn:svc:edge:todo-user',
    ]);
    const reuse = todo();
    reuse.domainModel!.models[0].fields[0] = { name: 'Title', type: 'string' };
    // `Title` slugs to `title`, whose id the definition already holds (for `title`): a suffix is added.
    expect(generateModelsFromDomainModel(reuse).models[0].fields[0].id).toBe('urn:svc:edge:todo-title-2');
  });

  it('drops enum and default when the type changes, keeps them otherwise', () => {
    const def = todo();
    def.domainModel!.models[0].fields[3].type = 'int';
    const status = generateModelsFromDomainModel(def).models[0].fields[3];
    expect(status).toMatchObject({ id: 'urn:svc:edge:todo-status', to: 'p_NUMBER', min: 1 });
    expect(status.enum).toBeUndefined();
    expect(status.defaultValue).toBeUndefined();
  });
});

describe('relationships', () => {
  it('creates the missing partner: belongsToOne gets a has-many partner', () => {
    const def = generateModelsFromDomainModel(withDomain([dm('ToDo', [{ name: 'owner', type: 'User', relationshipType: 'belongsToOne' }]), dm('User', [{ name: 'email', type: 'email' }], true)]));
    expect(skeleton(def)).toEqual([
      { id: 'urn:svc:model:todo', name: 'ToDo', fields: [['urn:svc:edge:todo-owner', 'owner', 'urn:svc:model:user', false, 1]] },
      {
        id: 'urn:svc:model:user',
        name: 'User',
        fields: [
          ['urn:svc:edge:user-email', 'email', 'p_TEXT', true, 1],
          ['urn:svc:edge:user-todos', 'toDos', 'urn:svc:model:todo', true, null],
        ],
      },
    ]);
    valid(def);
  });

  it.each([
    ['hasOne', [true, 1], ['project', false, 1]],
    ['hasMany', [true, null], ['project', false, 1]],
    ['belongsToMany', [false, null], ['projects', true, null]],
    ['manyToMany', [true, null], ['projects', false, null]],
  ] as const)('%s: this side and the created partner', (type, side, partner) => {
    const def = generateModelsFromDomainModel(
      withDomain([dm('Project', [{ name: 'tags', type: 'Tag', relationshipType: type }]), dm('Tag', []), dm('User', [{ name: 'email', type: 'string' }], true)]),
    );
    const [project, tag] = def.models;
    expect([project.fields[0].relationshipOwner, project.fields[0].max]).toEqual(side);
    expect([tag.fields[0].name, tag.fields[0].relationshipOwner, tag.fields[0].max]).toEqual(partner);
    expect(tag.fields[0].to).toBe(project.id);
    valid(def);
  });

  it('a self-relationship gets its partner on the same model; X[] is to-many', () => {
    const def = generateModelsFromDomainModel(
      withDomain([dm('Category', [{ name: 'parent', type: 'Category' }, { name: 'labels', type: 'string[]' }]), dm('User', [{ name: 'email', type: 'string' }], true)]),
    );
    expect(def.models[0].fields.map((f) => [f.name, f.to, f.relationshipOwner, f.max])).toEqual([
      ['parent', 'urn:svc:model:category', false, 1],
      ['labels', 'p_TEXT', true, null],
      ['categories', 'urn:svc:model:category', true, null],
    ]);
    valid(def);
  });

  it('settles a declared pair that would be ambiguous (two hasOne)', () => {
    const def = generateModelsFromDomainModel(
      withDomain([
        dm('User', [{ name: 'profile', type: 'Profile', relationshipType: 'hasOne' }, { name: 'email', type: 'string' }], true),
        dm('Profile', [{ name: 'user', type: 'User', relationshipType: 'hasOne' }]),
      ]),
    );
    expect(def.models.map((m) => m.fields[0].relationshipOwner)).toEqual([true, false]);
    valid(def);
  });

  it('no partner is created when several fields point at the same model', () => {
    const def = generateModelsFromDomainModel(
      withDomain([
        dm('Task', [
          { name: 'assignee', type: 'User' },
          { name: 'creator', type: 'User' },
        ]),
        dm('User', [{ name: 'email', type: 'string' }], true),
      ]),
    );
    expect(def.models[1].fields.map((f) => f.name)).toEqual(['email']);
    valid(def);
  });
});

describe('types and refusals', () => {
  it.each([
    ['string', 'p_TEXT'],
    ['Text', 'p_TEXT'],
    ['email', 'p_TEXT'],
    ['int', 'p_NUMBER'],
    ['decimal', 'p_NUMBER'],
    ['bool', 'p_BOOLEAN'],
    ['date', 'p_DATE'],
    ['date-time', 'p_DATE_TIME'],
    ['timestamp', 'p_DATE_TIME'],
    ['time', 'p_TIME'],
    ['phone', 'p_PHONE_NUMBER'],
    ['url', 'p_LINK'],
    ['image', 'p_IMAGE'],
    ['video', 'p_VIDEO'],
    ['file', 'p_FILE'],
    ['address', 'p_ADDRESS'],
    ['money', 'p_CURRENCY_AMOUNT'],
    ['currency', 'p_CURRENCY_AMOUNT'],
    ['rating', 'p_STAR_RATING'],
    ['p_NUMBER', 'p_NUMBER'],
    ['whatever', 'p_TEXT'],
  ])('%s → %s', (type, primitive) => {
    expect(primitiveTypeOf(type)).toBe(primitive);
  });

  it('409 without a domain model, with two user models, with a relationship to nothing', () => {
    const none = { ...todo(), domainModel: null };
    expect(() => generateModelsFromDomainModel(none)).toThrow(Problem);
    let problem: Problem | undefined;
    try {
      generateModelsFromDomainModel(withDomain([dm('A', [{ name: 'b', type: 'Nothing', relationshipType: 'hasOne' }], true), dm('B', [], true)]));
    } catch (error) {
      problem = error as Problem;
    }
    expect(problem?.status).toBe(409);
    expect(problem?.errors.map((e) => e.path)).toEqual(['/domainModel/models/1/isUserModel', '/domainModel/models/0/fields/0/type']);
  });
});
