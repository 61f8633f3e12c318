// Real vendor API documents (test/fixtures/README.md) read for what they mean, not schema by
// schema: PokeAPI (OpenAPI 3.0, 271 schemas: `Paginated…List` pages, `…Summary`/`…Detail`
// shapes), Xero Accounting (OpenAPI 3.0, 140 schemas: plural wrappers `Accounts: {Accounts:
// [Account]}`), Harbor (Swagger 2.0: `ProjectReq`, `RobotCreate`/`RobotCreated`, `UserCreationReq`/
// `UserResp`/`UserEntity`/`UserProfile`, `Error`, `PasswordReq`) and the Swagger Petstore.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSpecification, type BuiltSpecification } from '../../src/specifications/build.ts';
import { extractOpenApi } from '../../src/specifications/extractors/openapi.ts';
import { stemOf } from '../../src/specifications/extractors/schema-shapes.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { findPartner } from '../../src/definition/relationships.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';
import type { Draft } from '../../src/specifications/extractors/types.ts';

const bytesOf = (file: string) => readFileSync(new URL(`../fixtures/openapi/${file}`, import.meta.url));
const build = (file: string) => buildSpecification('Vendor', [{ id: 'att-1', name: file, kind: 'openapi', bytes: bytesOf(file) }]);
const extract = (file: string) => extractOpenApi({ attachmentId: 'att-1', name: file, kind: 'openapi', bytes: bytesOf(file) });

function model(def: AppDefinition, name: string): Model {
  const found = def.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${def.models.map((m) => m.name).join(', ')}`);
  return found;
}
function field(def: AppDefinition, modelName: string, name: string): Field {
  const found = model(def, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name} among ${model(def, modelName).fields.map((f) => f.name).join(', ')}`);
  return found;
}
const names = (def: AppDefinition) => def.models.map((m) => m.name);
const schemaNames = (file: string) => {
  const text = bytesOf(file).toString('utf8');
  return [...text.matchAll(/^ {4}(\w+):\s*$/gm)].map((m) => m[1]!);
};

describe('PokeAPI (OpenAPI 3.0, 271 schemas)', () => {
  let built: BuiltSpecification;
  let def: AppDefinition;
  beforeAll(async () => {
    built = await build('pokeapi.yml');
    def = built.content;
  }, 60_000);

  it('builds content that validates', () => {
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
  });

  it('leaves out its 49 Paginated…List pages, each named in a warning, and makes no model of any', () => {
    const pages = schemaNames('pokeapi.yml').filter((n) => /^Paginated\w+List$/.test(n));
    expect(pages).toHaveLength(49);
    expect(names(def).filter((n) => /Paginated|List$/.test(n))).toEqual([]);
    for (const page of pages) {
      const warning = built.warnings.find((w) => w.locator === `#/components/schemas/${page}`);
      expect(warning?.message, page).toMatch(new RegExp(`^${page} is a list envelope \\(a page of \\w+Summary in 'results'\\): not made a model`));
    }
  });

  it('merges each entity\'s Summary and Detail shapes into one model, naming them in a warning', () => {
    expect(names(def)).toEqual(expect.arrayContaining(['Ability', 'Berry', 'Pokemon', 'PokemonSpecies', 'Generation', 'Language', 'Move', 'Type']));
    expect(names(def).filter((n) => /Summary$/.test(n))).toEqual([]);
    for (const gone of ['AbilityDetail', 'AbilitySummary', 'PokemonDetail', 'PokemonSummary', 'MachineDetail', 'MachineSummary']) expect(names(def)).not.toContain(gone);
    expect(built.warnings.map((w) => w.message)).toContain('AbilityDetail, AbilitySummary are shapes of one entity: merged into the model Ability.');
    // The union of the two shapes: the summary's url beside the detail's fields; the detail's generation points at the merged Generation.
    expect(field(def, 'Ability', 'url').to).toBe('p_LINK');
    expect(field(def, 'Ability', 'isMainSeries').to).toBe('p_BOOLEAN');
    expect(field(def, 'Ability', 'generation').to).toBe(model(def, 'Generation').id);
  });

  it('makes a list of shared records with their own identity a many-to-many: an egg group lists many species, a species many egg groups', () => {
    const eggGroups = field(def, 'PokemonSpecies', 'eggGroups');
    expect(eggGroups).toMatchObject({ to: model(def, 'EggGroup').id, max: null });
    const partner = findPartner(def, model(def, 'PokemonSpecies'), eggGroups);
    expect(partner?.name).toBe('pokemonSpecies');
    expect(partner?.max).toBeNull();
  });

  it('maps its CRUD operations onto the generated routes and makes no trigger', () => {
    expect(def.triggers).toEqual([]);
    const messages = built.warnings.map((w) => w.message);
    expect(messages).toContain('GET /api/v2/ability/{id}/ (ability_retrieve) → the generated `GET /abilities/{id}` of Ability.');
    expect(messages).toContain('GET /api/v2/ability/ (ability_list) → the generated `GET /abilities` of Ability.');
    expect(messages).toContain('GET /api/v2/move-ailment/ (move_ailment_list) → the generated `GET /moveMetaAilments` of MoveMetaAilment.');
    // 98 of its 100 operations; the others are its deployment's metadata and a pokemon's encounters (a shape of no entity).
    expect(messages.filter((m) => / → the generated /.test(m))).toHaveLength(98);
    expect(messages.filter((m) => /is no create, read, update or delete of a model/.test(m)).map((m) => m.split(' (')[0])).toEqual([
      'GET /api/v2/meta/',
      'GET /api/v2/pokemon/{pokemon_id}/encounters',
    ]);
    expect(messages).toContain(
      'GET /api/v2/meta/ (meta_retrieve) is no create, read, update or delete of a model: no route was made for it (write an action with an HTTP trigger if the app needs it).',
    );
  });
});

describe('Xero Accounting (OpenAPI 3.0, 140 schemas)', () => {
  let built: BuiltSpecification;
  let def: AppDefinition;
  beforeAll(async () => {
    built = await build('xero-accounting.yaml');
    def = built.content;
  }, 60_000);

  it('builds content that validates', () => {
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
  });

  it('leaves out the plural wrappers (Accounts: {Accounts: [Account]}) instead of folding them into self-relationships', () => {
    const warning = built.warnings.find((w) => w.locator === '#/components/schemas/Accounts');
    expect(warning?.message).toBe("Accounts is a list envelope (a page of Account in 'Accounts'): not made a model.");
    expect(built.warnings.find((w) => w.locator === '#/components/schemas/Invoices')?.message).toMatch(/^Invoices is a list envelope \(a page of Invoice in 'Invoices'\)/);
    const account = model(def, 'Account');
    expect(account.fields.filter((f) => f.to === account.id)).toEqual([]);
    const invoice = model(def, 'Invoice');
    expect(invoice.fields.filter((f) => f.to === invoice.id)).toEqual([]);
  });

  it('leaves out the error shapes and the paging metadata, each named', () => {
    expect(names(def)).not.toContain('Error');
    expect(names(def)).not.toContain('ValidationError');
    expect(names(def)).not.toContain('Pagination');
    expect(built.warnings.find((w) => w.locator === '#/components/schemas/ValidationError')?.message).toMatch(/^ValidationError is the shape of an error answer: not made a model; the fields pointing at it left out too: Account\.ValidationErrors/);
  });

  it('makes an ID property beside a model of its name a relationship: LineItem.AccountID → Account', () => {
    expect(field(def, 'LineItem', 'account')).toMatchObject({ to: model(def, 'Account').id, max: 1 });
  });

  it('maps /Accounts and /Accounts/{AccountID} onto the generated routes of Account', () => {
    const messages = built.warnings.map((w) => w.message);
    expect(messages).toContain('GET /Accounts (getAccounts) → the generated `GET /accounts` of Account.');
    expect(messages).toContain('GET /Accounts/{AccountID} (getAccount) → the generated `GET /accounts/{id}` of Account.');
    expect(messages).toContain('DELETE /Accounts/{AccountID} (deleteAccount) → the generated `DELETE /accounts/{id}` of Account.');
    expect(messages).toContain('POST /Accounts/{AccountID} (updateAccount) → the generated `PATCH /accounts/{id}` of Account (the generated update changes the fields it is sent).');
    expect(def.triggers).toEqual([]);
  });
});

describe('Harbor (Swagger 2.0, vendor Req/Resp/Entity naming)', () => {
  let draft: Draft;
  let built: BuiltSpecification;
  let def: AppDefinition;
  beforeAll(async () => {
    draft = await extract('harbor-swagger2.yaml');
    built = await build('harbor-swagger2.yaml');
    def = built.content;
  }, 60_000);

  it('builds content that validates', () => {
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
  });

  it('merges request and response shapes of one entity: User, Project, Robot, Tag', () => {
    const messages = built.warnings.map((w) => w.message);
    expect(messages).toContain('UserEntity, UserProfile, UserCreationReq, UserResp are shapes of one entity: merged into the model User; only a request shape has password: write-only.');
    expect(messages).toContain('Robot, RobotCreate, RobotCreated, RobotCreateV1 are shapes of one entity: merged into the model Robot; only a request shape has access: write-only.');
    expect(messages.some((m) => m.startsWith('ProjectReq, Project are shapes of one entity: merged into the model Project'))).toBe(true);
    expect(messages).toContain('Tag, NewTag are shapes of one entity: merged into the model Tag.');
    for (const gone of ['UserCreationReq', 'UserResp', 'UserEntity', 'UserProfile', 'ProjectReq', 'RobotCreate', 'RobotCreated', 'NewTag']) expect(names(def)).not.toContain(gone);
    // The union of the shapes' fields.
    expect(model(def, 'User').fields.map((f) => f.name)).toEqual(expect.arrayContaining(['email', 'realname', 'username', 'sysadminFlag', 'creationTime']));
    // User is the user model: its request-only password is the account password, not a field.
    expect(def.userModelId).toBe(model(def, 'User').id);
    expect(model(def, 'User').fields.map((f) => f.name)).not.toContain('password');
    expect(messages).toContain('User.password is not made a field: the account password takes its place (sent at sign-up, hashed by the account system, never returned).');
    // ProjectSummary shares almost nothing with Project: counts of a project, not a shape of it.
    expect(names(def)).toContain('ProjectSummary');
  });

  it('marks a property only a request shape has as write-only in the draft (UserCreationReq.password), and no other of User', () => {
    const user = draft.models.find((m) => m.name === 'User')!;
    expect(user.fields.filter((f) => f.writeOnly).map((f) => f.name)).toEqual(['password']);
    // ProjectReq.project_name is Project.name under the entity's name, not a write-only field of its own.
    const project = draft.models.find((m) => m.name === 'Project')!;
    expect(project.fields.map((f) => f.name)).not.toContain('project_name');
    expect(project.fields.find((f) => f.name === 'name')?.writeOnly).toBeUndefined();
  });

  it('leaves out the error shapes and the request shapes of no entity, each named', () => {
    const byLocator = (name: string) => built.warnings.find((w) => w.locator === `#/definitions/${name}`)?.message;
    expect(byLocator('Error')).toBe('Error is the shape of an error answer: not made a model.');
    expect(byLocator('Errors')).toBe('Errors is the shape of an error answer: not made a model.');
    expect(byLocator('PasswordReq')).toBe('PasswordReq is a request shape of no entity of the document (no Password schema to merge it into): not made a model.');
    for (const gone of ['Error', 'Errors', 'PasswordReq', 'Password']) expect(names(def)).not.toContain(gone);
  });

  it('makes …_id properties beside a model of that name relationships: Artifact.project_id → Project, Tag.repository_id → Repository', () => {
    expect(field(def, 'Artifact', 'project')).toMatchObject({ to: model(def, 'Project').id, max: 1 });
    expect(field(def, 'Tag', 'repository')).toMatchObject({ to: model(def, 'Repository').id, max: 1 });
    // owner_id names no model: it stays a number.
    expect(field(def, 'Project', 'ownerId').to).toBe('p_NUMBER');
  });

  it('makes the labels an artifact lists a many-to-many: a label is on many artifacts', () => {
    const labels = field(def, 'Artifact', 'labels');
    expect(labels).toMatchObject({ to: model(def, 'Label').id, max: null });
    expect(findPartner(def, model(def, 'Artifact'), labels)?.max).toBeNull();
  });

  it('maps /projects and /projects/{project_name_or_id} onto the generated routes of Project', () => {
    const messages = built.warnings.map((w) => w.message);
    expect(messages).toContain('GET /projects (listProjects) → the generated `GET /projects` of Project.');
    expect(messages).toContain('POST /projects (createProject) → the generated `POST /projects` of Project.');
    expect(messages).toContain('GET /projects/{project_name_or_id} (getProject) → the generated `GET /projects/{id}` of Project.');
    expect(messages).toContain('DELETE /projects/{project_name_or_id} (deleteProject) → the generated `DELETE /projects/{id}` of Project.');
    expect(messages.some((m) => m.startsWith('GET /projects/{project_name_or_id}/members (listProjectMembers) → the generated `GET /projectMembers` of ProjectMember'))).toBe(true);
    expect(def.triggers).toEqual([]);
  });
});

describe('Swagger Petstore (OpenAPI 3.0)', () => {
  let def: AppDefinition;
  beforeAll(async () => {
    def = (await build('petstore3-openapi.yaml')).content;
  }, 60_000);

  it('makes the integer petId beside the Pet model a relationship: Order.pet → Pet, with Pet.orders', () => {
    const pet = field(def, 'Order', 'pet');
    expect(pet).toMatchObject({ to: model(def, 'Pet').id, max: 1 });
    expect(findPartner(def, model(def, 'Order'), pet)?.name).toBe('orders');
  });

  it('makes Pet.tags a many-to-many: a Tag belongs to many Pets', () => {
    const tags = field(def, 'Pet', 'tags');
    expect(tags).toMatchObject({ to: model(def, 'Tag').id, max: null });
    const partner = findPartner(def, model(def, 'Pet'), tags);
    expect(partner).toMatchObject({ name: 'pets', max: null });
  });
});

describe('the names of an entity\'s shapes', () => {
  it('strips request, response and summary suffixes, versions and request prefixes at word ends only', () => {
    expect(stemOf('UserCreationReq')).toEqual({ stem: 'User', request: true, weak: false });
    expect(stemOf('RobotCreated')).toEqual({ stem: 'Robot', request: false, weak: false });
    expect(stemOf('RobotCreateV1')).toEqual({ stem: 'Robot', request: true, weak: false });
    expect(stemOf('NewTag')).toEqual({ stem: 'Tag', request: true, weak: false });
    expect(stemOf('AbilitySummary')).toEqual({ stem: 'Ability', request: false, weak: true });
    expect(stemOf('user_response')).toEqual({ stem: 'user', request: false, weak: false });
    expect(stemOf('new_pet')).toEqual({ stem: 'pet', request: true, weak: false });
    for (const plain of ['Pet', 'Database', 'Newsletter', 'Freq', 'Base']) expect(stemOf(plain).stem).toBe(plain);
  });
});
