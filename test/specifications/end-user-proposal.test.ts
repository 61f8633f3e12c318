// What a specification proposes for the app's end users, on real documents (Pagila, Sakila, the
// Petstore and CycloneDX schemas) and on drafts shaped like the documents that went wrong: the
// user model chosen by evidence with its reasons and runner-up, never an integration's record, a
// request variant or a root schema named after its file; sign-up possible by construction;
// access proposed per model with its reason; secret-like properties write-only; the user
// model's password the account password.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFromDrafts, buildSpecification, type BuiltSpecification } from '../../src/specifications/build.ts';
import type { AccessMode } from '../../src/specifications/access-proposal.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { emptyDraft, type AttachmentKind, type Draft, type DraftField } from '../../src/specifications/extractors/types.ts';
import type { AppDefinition, Field, Model } from '../../src/definition/schema.ts';
import type { Problem } from '../../src/errors.ts';

async function build(kind: AttachmentKind, file: string, access?: AccessMode): Promise<BuiltSpecification> {
  const bytes = readFileSync(new URL(`../fixtures/${file}`, import.meta.url));
  return buildSpecification('Fixture', [{ id: 'att-1', name: file.split('/')[1]!, kind, bytes }], undefined, undefined, access ? { access } : {});
}

function model(def: AppDefinition, name: string): Model {
  const found = def.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${def.models.map((m) => m.name).join(', ')}`);
  return found;
}

const field = (def: AppDefinition, m: string, name: string): Field | undefined => model(def, m).fields.find((f) => f.name === name);
const criteria = (def: AppDefinition, m: string) => model(def, m).accessControl.rules.map((r) => r.criteria);
const warningAbout = (built: BuiltSpecification, pattern: RegExp) => built.warnings.find((w) => pattern.test(w.message));

const col = (name: string, type: DraftField['type'], extra: Partial<DraftField> = {}): DraftField => ({ name, type, many: false, required: false, locator: `column ${name}`, ...extra });
const fromDraft = (draft: Draft, file = 'doc.yaml') => buildFromDrafts('Doc', [{ attachmentId: 'att-1', name: file, draft }]);

describe('the user model, by evidence', () => {
  it('Pagila: Customer (name, email, payments and rentals point at it), Staff the runner-up as the business’s operators', async () => {
    const built = await build('sql', 'sql/pagila-schema.sql');
    const def = built.content;
    expect(def.userModelId).toBe(model(def, 'Customer').id);
    const choice = warningAbout(built, /is the user model/)!;
    expect(choice.message).toMatch(/^Customer is the user model/);
    expect(choice.message).toMatch(/its name \(Customer\) says end users; it has an email field; Payment, Rental point at it/);
    expect(choice.message).toMatch(/Runner-up: Staff \(score \d+: .*operators.*password field \(password\)/);
    // The warning carries the place in the document and the element's pointer.
    expect(choice.attachmentId).toBe('att-1');
    expect(choice.path).toBe(`/models/${def.models.indexOf(model(def, 'Customer'))}`);
  });

  it('Sakila (MySQL): Customer; its required store and address become optional so that sign-up can work', async () => {
    const built = await build('sql', 'sql/sakila-mysql-schema.sql');
    const def = built.content;
    expect(def.userModelId).toBe(model(def, 'Customer').id);
    expect(field(def, 'Customer', 'store')).toMatchObject({ min: 0, max: 1 });
    expect(field(def, 'Customer', 'address')).toMatchObject({ min: 0, max: 1 });
    expect(warningAbout(built, /Customer\.store, Customer\.address are required in the document but optional here: sign-up takes the user's own fields only/)).toBeDefined();
  });

  it('Petstore: User, whose password property is the account password and not a field', async () => {
    for (const file of ['openapi/petstore-swagger2.json', 'openapi/petstore3-openapi.yaml']) {
      const built = await build('openapi', file);
      const def = built.content;
      expect(def.userModelId).toBe(model(def, 'User').id);
      expect(field(def, 'User', 'password')).toBeUndefined();
      expect(field(def, 'User', 'email')).toBeDefined();
      expect(warningAbout(built, /User\.password is not made a field: the account password takes its place/)).toBeDefined();
    }
  });

  it('CycloneDX (JSON Schema): neither the root schema named after the file nor a vendor’s …Contact; a User is added and linked', async () => {
    const built = await build('jsonschema', 'jsonschema/cyclonedx-bom-1.3.schema.json');
    const def = built.content;
    const user = model(def, 'User');
    expect(def.userModelId).toBe(user.id);
    expect(user.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['name', 'email']));
    const added = warningAbout(built, /a User model \(name, email\) was added/)!;
    expect(added.message).toMatch(/OrganizationalContact is an integration's record/);
    // The root is a document wrapper, not a model; what records something happening (nothing points at
    // it, it points at others) belongs to the user who made it.
    expect(def.models.map((m) => m.name)).not.toContain('CyclonedxBom');
    expect(added.message).toMatch(/Metadatum, Commit, Patch record something happening/);
    expect(field(def, 'Metadatum', 'user')).toMatchObject({ to: user.id, max: 1, defaultValue: { expression: 'auth.id' } });
    expect(criteria(def, 'Metadatum')).toEqual(["auth != null && (record.user == auth.id)"]);
  });

  it('Simpler Grants (Markdown): the users table it names without describing is the added User, owning the API keys', async () => {
    const built = await build('markdown', 'markdown/simpler-grants-api-keys-schema.md');
    const def = built.content;
    const user = model(def, 'User');
    expect(def.userModelId).toBe(user.id);
    expect(field(def, 'UserApiKey', 'user')).toMatchObject({ to: user.id, max: 1, defaultValue: { expression: 'auth.id' } });
    expect(warningAbout(built, /UserApiKey\.user \(pointing at users the documents do not describe\) now points at User/)).toBeDefined();
    expect(criteria(def, 'UserApiKey')).toEqual(["auth != null && (record.user == auth.id)"]);
  });

  it('never an integration’s record, a request variant or the root schema named after the file', () => {
    const user = (name: string, locator = `#/components/schemas/${name}`) => ({ name, locator, fields: [col('email', 'p_TEXT'), col('username', 'p_TEXT'), col('password', 'p_TEXT')] });
    const draft: Draft = {
      ...emptyDraft(),
      models: [user('LdapUser'), user('UserCreationReq'), user('AccountContact'), user('Person', '#'), { name: 'Note', locator: '#/definitions/Note', fields: [col('text', 'p_TEXT')] }],
    };
    const built = fromDraft(draft, 'person.schema.json');
    const def = built.content;
    expect(model(def, 'User').id).toBe(def.userModelId);
    const added = warningAbout(built, /was added as the user model/)!.message;
    expect(added).toMatch(/LdapUser is an integration's record/);
    expect(added).toMatch(/UserCreationReq is a request or response variant/);
    expect(added).toMatch(/AccountContact is an integration's record/);
    expect(added).toMatch(/Person is the root schema named after the file person\.schema\.json/);
    // The same Person from a document named otherwise is the user model, its password not a field.
    const other = fromDraft(draft, 'people-api.yaml').content;
    expect(other.userModelId).toBe(model(other, 'Person').id);
    expect(field(other, 'Person', 'password')).toBeUndefined();
  });

  it('a login-only user model gets an email (end users sign in by email); the orders nothing owned become the user’s', () => {
    const draft: Draft = {
      ...emptyDraft(),
      models: [
        { name: 'Account', locator: 'table account', fields: [col('login', 'p_TEXT'), col('passwd', 'p_TEXT')] },
        { name: 'Product', locator: 'table product', fields: [col('title', 'p_TEXT')] },
        { name: 'Order', locator: 'table order', fields: [col('product_id', { model: 'Product' }, { required: true })] },
      ],
    };
    const built = fromDraft(draft);
    const def = built.content;
    expect(def.userModelId).toBe(model(def, 'Account').id);
    expect(field(def, 'Account', 'email')?.to).toBe('p_TEXT');
    expect(field(def, 'Account', 'passwd')).toBeUndefined();
    expect(warningAbout(built, /an email field was added to Account/)).toBeDefined();
    expect(field(def, 'Order', 'user')).toMatchObject({ to: model(def, 'Account').id, defaultValue: { expression: 'auth.id' } });
  });
});

describe('access proposed from the shape of the data', () => {
  it('Pagila: the user model for itself, owned models for their owners, reference data for anyone; each with its reason', async () => {
    const built = await build('sql', 'sql/pagila-schema.sql');
    const def = built.content;
    expect(criteria(def, 'Customer')).toEqual(["auth != null && operation != 'delete' && record.id == auth.id"]);
    for (const owned of ['Payment', 'Rental']) {
      expect(criteria(def, owned)).toEqual(["auth != null && (record.customer == auth.id)"]);
      expect(field(def, owned, 'customer')?.defaultValue).toEqual({ expression: 'auth.id' });
      expect(warningAbout(built, new RegExp(`^Access of ${owned}: owned through ${owned}\\.customer`))).toBeDefined();
    }
    for (const reference of ['Language', 'Film', 'Category', 'Country']) {
      expect(criteria(def, reference)).toEqual(["operation == 'read'"]);
      expect(warningAbout(built, new RegExp(`^Access of ${reference}: reference data`))).toBeDefined();
    }
    for (const m of def.models) expect(m.accessControl.defaultAccess).toBe('deny');
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
  });

  it('Sakila: a model nothing points at and no user owns is for signed-in readers', async () => {
    const built = await build('sql', 'sql/sakila-mysql-schema.sql');
    expect(criteria(built.content, 'FilmText')).toEqual(["auth != null && operation == 'read'"]);
    expect(warningAbout(built, /^Access of FilmText: no user owns it and no model points at it: signed-in users read it/)).toBeDefined();
  });

  it('a model reaching the user only through another is not owned, and says why', () => {
    const draft: Draft = {
      ...emptyDraft(),
      models: [
        { name: 'Customer', locator: 'table customer', fields: [col('email', 'p_TEXT')] },
        { name: 'Invoice', locator: 'table invoice', fields: [col('customer_id', { model: 'Customer' }, { required: true })] },
        { name: 'InvoiceLine', locator: 'table invoice_line', fields: [col('invoice_id', { model: 'Invoice' }, { required: true }), col('quantity', 'p_NUMBER')] },
      ],
    };
    const built = fromDraft(draft);
    expect(criteria(built.content, 'Invoice')).toEqual(["auth != null && (record.customer == auth.id)"]);
    expect(criteria(built.content, 'InvoiceLine')).toEqual(["auth != null && operation == 'read'"]);
    expect(warningAbout(built, /^Access of InvoiceLine: .*only through InvoiceLine\.invoice\.customer: a rule can compare only the record's own fields/)).toBeDefined();
  });

  it('private keeps the app closed; public-read lets anyone read but the users’ records', async () => {
    const closed = await build('sql', 'sql/pagila-schema.sql', 'private');
    for (const m of closed.content.models) expect(m.accessControl).toEqual({ rules: [], defaultAccess: 'deny' });
    expect(warningAbout(closed, /^Access: private\. No rule is proposed/)).toBeDefined();
    expect(field(closed.content, 'Rental', 'customer')?.defaultValue).toBeUndefined();

    const open = await build('sql', 'sql/pagila-schema.sql', 'public-read');
    expect(criteria(open.content, 'Rental')).toEqual(["operation == 'read'", "auth != null && (record.customer == auth.id)"]);
    expect(criteria(open.content, 'Customer')).toEqual(["auth != null && operation != 'delete' && record.id == auth.id"]);
    expect(criteria(open.content, 'Language')).toEqual(["operation == 'read'"]);
  });
});

describe('secret-like properties', () => {
  it('Pagila: Staff.password is a write-only field, with a warning', async () => {
    const built = await build('sql', 'sql/pagila-schema.sql');
    expect(field(built.content, 'Staff', 'password')).toMatchObject({ to: 'p_TEXT', writeOnly: true });
    expect(warningAbout(built, /^Staff\.password is a write-only field \(its name says it holds a secret\)/)).toBeDefined();
    // Ordinary fields are not.
    expect(field(built.content, 'Staff', 'username')?.writeOnly).toBeUndefined();
  });

  it('secret names and request-only properties become write-only; a relationship never does', () => {
    const draft: Draft = {
      ...emptyDraft(),
      models: [
        { name: 'Member', locator: 'm', fields: [col('email', 'p_TEXT')] },
        {
          name: 'Integration',
          locator: 'i',
          fields: [col('api_key', 'p_TEXT'), col('client_secret', 'p_TEXT'), col('access_token', 'p_TEXT'), col('pin_code', 'p_TEXT', { writeOnly: true }), col('label', 'p_TEXT'), col('member_id', { model: 'Member' })],
        },
      ],
    };
    const built = fromDraft(draft);
    const def = built.content;
    const writeOnly = model(def, 'Integration').fields.filter((f) => f.writeOnly).map((f) => f.name);
    expect(writeOnly.sort()).toEqual(['accessToken', 'apiKey', 'clientSecret', 'pinCode']);
    expect(warningAbout(built, /Integration\.pinCode is a write-only field \(the document sends it only in requests\)/)).toBeDefined();
  });

  it('the definition refuses a write-only relationship or computed field', () => {
    const def = structuredClone(buildFromDrafts('Doc', [{ attachmentId: 'a', name: 'd', draft: { ...emptyDraft(), models: [{ name: 'Member', locator: 'm', fields: [col('email', 'p_TEXT')] }] } }]).content);
    const member = model(def, 'Member');
    const email = member.fields.find((f) => f.name === 'email')!;
    email.writeOnly = true;
    expect(() => validateDefinition(structuredClone(def))).not.toThrow();
    email.computed = "'x'";
    const refusal = (() => {
      try {
        validateDefinition(structuredClone(def));
        return null;
      } catch (error) {
        return error as Problem;
      }
    })();
    expect(refusal?.errors).toContainEqual(expect.objectContaining({ path: expect.stringMatching(/\/writeOnly$/), message: 'A computed field is only read: it cannot be write-only.' }));
  });
});
