// The JSON Schema extractor on a real draft-07 schema (test/fixtures/README.md): the CycloneDX
// 1.3 SBOM specification. Expectations come from reading the schema.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractJsonSchema } from '../../src/specifications/extractors/jsonschema.ts';
import { extractorFor } from '../../src/specifications/extractors/index.ts';
import { ExtractionError, type Draft, type DraftField, type DraftModel } from '../../src/specifications/extractors/types.ts';

function model(draft: Draft, name: string): DraftModel {
  const found = draft.models.find((m) => m.name === name);
  if (!found) throw new Error(`no model ${name} among ${draft.models.map((m) => m.name).join(', ')}`);
  return found;
}

function field(draft: Draft, modelName: string, name: string): DraftField {
  const found = model(draft, modelName).fields.find((f) => f.name === name);
  if (!found) throw new Error(`no field ${modelName}.${name}`);
  return found;
}

describe('CycloneDX 1.3 (JSON Schema draft-07)', () => {
  let draft: Draft;
  beforeAll(async () => {
    const bytes = readFileSync(new URL('../fixtures/jsonschema/cyclonedx-bom-1.3.schema.json', import.meta.url));
    draft = await extractJsonSchema({ attachmentId: 'att-1', name: 'cyclonedx-bom-1.3.schema.json', kind: 'jsonschema', bytes });
  });

  it('is the extractor registered for jsonschema attachments', () => {
    expect(extractorFor('jsonschema')).toBe(extractJsonSchema);
  });

  it('does not make the root a model: named after the file, it only holds the definitions (metadata, components, services…) and says what the document is (bomFormat, specVersion, serialNumber, version)', () => {
    expect(draft.title).toBe('CycloneDX Software Bill-of-Material Specification');
    expect(draft.models.map((m) => m.name)).not.toContain('cyclonedx-bom');
    expect(draft.models.some((m) => m.locator === '#')).toBe(false);
    expect(draft.warnings.find((w) => w.locator === '#')?.message).toBe(
      'the root schema (cyclonedx-bom) only holds the definitions and says what the document is: it is not made a model, its definitions are.',
    );
    // What it holds are models of their own.
    expect(field(draft, 'metadata', 'component')).toMatchObject({ type: { model: 'component' }, many: false });
    expect(field(draft, 'dependency', 'ref')).toMatchObject({ type: 'p_TEXT', required: true });
  });

  it('makes the object definitions models, and the string definitions (refType, hash-alg) values', () => {
    const names = draft.models.map((m) => m.name);
    for (const name of ['metadata', 'tool', 'organizationalEntity', 'organizationalContact', 'component', 'swid', 'hash', 'license', 'externalReference', 'dependency', 'service']) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('refType');
    expect(names).not.toContain('hash-alg');
    expect(model(draft, 'component').locator).toBe('#/definitions/component');
  });

  it('reads component: required type/name/version, the type enum, to-one supplier, to-many hashes, nested components', () => {
    expect(field(draft, 'component', 'type')).toMatchObject({
      type: 'p_TEXT',
      required: true,
      enum: ['application', 'framework', 'library', 'container', 'operating-system', 'device', 'firmware', 'file'],
    });
    expect(field(draft, 'component', 'name').required).toBe(true);
    expect(field(draft, 'component', 'version').required).toBe(true);
    expect(field(draft, 'component', 'description').required).toBe(false);
    expect(field(draft, 'component', 'scope')).toMatchObject({ enum: ['required', 'optional', 'excluded'], defaultValue: 'required' });
    expect(field(draft, 'component', 'supplier')).toMatchObject({ type: { model: 'organizationalEntity' }, many: false });
    expect(field(draft, 'component', 'hashes')).toMatchObject({ type: { model: 'hash' }, many: true });
    expect(field(draft, 'component', 'components')).toMatchObject({ type: { model: 'component' }, many: true });
    expect(field(draft, 'component', 'modified').type).toBe('p_BOOLEAN');
  });

  it('follows $refs to string definitions into typed, enum fields', () => {
    expect(field(draft, 'hash', 'alg')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'hash', 'alg').enum).toContain('SHA-256');
    expect(field(draft, 'dependency', 'ref')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'dependency', 'dependsOn')).toMatchObject({ type: 'p_TEXT', many: true });
  });

  it('maps formats: date-time, iri-reference → link, idn-email stays text; integer and boolean defaults', () => {
    expect(field(draft, 'metadata', 'timestamp').type).toBe('p_DATE_TIME');
    expect(field(draft, 'externalReference', 'url')).toMatchObject({ type: 'p_LINK', required: true });
    expect(field(draft, 'identifiableAction', 'email').type).toBe('p_TEXT');
    expect(field(draft, 'swid', 'tagVersion')).toMatchObject({ type: 'p_NUMBER', defaultValue: 0 });
    expect(field(draft, 'swid', 'patch')).toMatchObject({ type: 'p_BOOLEAN', defaultValue: false });
  });

  it('never fetches the external spdx.schema.json $ref: it warns and reads license.id as text', () => {
    expect(field(draft, 'license', 'id').type).toBe('p_TEXT');
    const warning = draft.warnings.find((w) => w.locator === '#/definitions/license/properties/id');
    expect(warning?.message).toMatch(/spdx\.schema\.json/);
  });
});

describe('a document that is no schema of data', () => {
  it('fails with a clear message', async () => {
    const bytes = new TextEncoder().encode('{"type": "string"}');
    await expect(extractJsonSchema({ attachmentId: 'x', name: 'x.json', kind: 'jsonschema', bytes })).rejects.toThrow(ExtractionError);
  });
});

describe('Open Contracting Data Standard 1.1 release schema (JSON Schema draft-04, 31 definitions)', () => {
  let draft: Draft;
  beforeAll(async () => {
    const bytes = readFileSync(new URL('../fixtures/jsonschema/release-schema.json', import.meta.url));
    draft = await extractJsonSchema({ attachmentId: 'att-1', name: 'release-schema.json', kind: 'jsonschema', bytes });
  });

  it('makes each object definition a model', () => {
    const names = draft.models.map((m) => m.name);
    for (const name of ['Planning', 'Tender', 'Award', 'Contract', 'Implementation', 'Milestone', 'Document', 'Budget', 'Transaction', 'Organization', 'Item', 'Amendment', 'Address', 'ContactPoint', 'Value', 'Period', 'RelatedProcess']) {
      expect(names).toContain(name);
    }
    expect(model(draft, 'Award').locator).toBe('#/definitions/Award');
    expect(field(draft, 'Award', 'items')).toMatchObject({ type: { model: 'Item' }, many: true });
    expect(field(draft, 'Tender', 'tenderPeriod')).toMatchObject({ type: { model: 'Period' }, many: false });
  });

  it('keeps the root, a release with data of its own (ocid, date, initiationType), as a model named from the file without "-schema"', () => {
    const root = model(draft, 'release');
    expect(root.locator).toBe('#');
    expect(field(draft, 'release', 'ocid')).toMatchObject({ type: 'p_TEXT', required: true });
    expect(field(draft, 'release', 'awards')).toMatchObject({ type: { model: 'Award' }, many: true });
    expect(draft.warnings.some((w) => /only holds the definitions/.test(w.message))).toBe(false);
  });

  it('makes Contract.awardID, the id of the award the contract is for, a relationship to Award', () => {
    expect(field(draft, 'Contract', 'awardID')).toMatchObject({ type: { model: 'Award' }, many: false });
  });
});
