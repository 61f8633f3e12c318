/**
 * The CSV, Markdown, PDF and Figma drafts carried through to a specification's content
 * (buildFromDrafts) and checked with the same validator a definition saved through the API
 * passes: what each fixture gave survives normalisation and validation, and provenance
 * points back into the document with the extractor's locators.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFromDrafts } from '../../src/specifications/build.ts';
import type { BuiltSpecification } from '../../src/specifications/build.ts';
import type { Field } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { extractCsv } from '../../src/specifications/extractors/csv.ts';
import { extractorFor } from '../../src/specifications/extractors/index.ts';
import { detectKind } from '../../src/specifications/kind.ts';
import { extractFigma } from '../../src/specifications/extractors/figma.ts';
import { extractMarkdown } from '../../src/specifications/extractors/markdown.ts';
import { extractPdf } from '../../src/specifications/extractors/pdf.ts';
import type { AttachmentKind, Extractor } from '../../src/specifications/extractors/types.ts';

async function built(path: string, kind: AttachmentKind, extract: Extractor): Promise<BuiltSpecification> {
  const bytes = new Uint8Array(readFileSync(new URL(`../fixtures/${path}`, import.meta.url)));
  const name = path.split('/').pop() ?? path;
  const attachmentId = `att_${kind}`;
  const draft = await extract({ attachmentId, name, kind, bytes });
  return buildFromDrafts(name, [{ attachmentId, name, draft }]);
}

function fieldsOf(spec: BuiltSpecification, model: string): Field[] {
  const found = spec.content.models.find((m) => m.name === model);
  if (!found) throw new Error(`no model ${model} in ${spec.content.models.map((m) => m.name).join(', ')}`);
  return found.fields;
}

describe('extractor drafts as specification content', () => {
  it('these fixtures are detected as their kind from content, whatever content type the upload claims', async () => {
    const cases: [string, AttachmentKind][] = [
      ['csv/congress-terms.csv', 'csv'],
      ['markdown/simpler-grants-get-opportunities.md', 'markdown'],
      ['markdown/simpler-grants-api-keys-schema.md', 'markdown'],
      ['pdf/nus-user-stories.pdf', 'pdf'],
      ['figma/figmagic-design-system-template.json', 'figma'],
    ];
    for (const [path, kind] of cases) {
      const bytes = new Uint8Array(readFileSync(new URL(`../fixtures/${path}`, import.meta.url)));
      expect(await detectKind(bytes, path.split('/').pop() ?? path, 'application/octet-stream'), path).toBe(kind);
    }
  });

  it('the registry reads csv, markdown, pdf and figma attachments with these extractors', () => {
    expect(extractorFor('csv')).toBe(extractCsv);
    expect(extractorFor('markdown')).toBe(extractMarkdown);
    expect(extractorFor('pdf')).toBe(extractPdf);
    expect(extractorFor('figma')).toBe(extractFigma);
  });

  it('congress-terms.csv: one valid model with its enums and required fields', async () => {
    const spec = await built('csv/congress-terms.csv', 'csv', extractCsv);
    expect(() => validateDefinition(spec.content)).not.toThrow();
    const fields = fieldsOf(spec, 'CongressTerm');
    expect(fields.map((f) => f.name)).toContain('termstart');
    // `L` is in one term only: an enum needs each value twice, so party is required text
    expect(fields.find((f) => f.name === 'party')).toMatchObject({ to: 'p_TEXT', min: 1 });
    expect(fields.find((f) => f.name === 'party')?.enum).toBeUndefined();
    expect(fields.find((f) => f.name === 'middlename')?.min).toBe(0);
    const chamber = Object.entries(spec.provenance).find(([, source]) => source.locator === 'column "chamber"');
    expect(chamber?.[1].attachmentId).toBe('att_csv');
  });

  it('the Simpler.Grants.gov deliverable: its personas and stories survive validation', async () => {
    const spec = await built('markdown/simpler-grants-get-opportunities.md', 'markdown', extractMarkdown);
    expect(() => validateDefinition(spec.content)).not.toThrow();
    expect(spec.summary).toMatchObject({ personas: 4, requirements: 11, pages: 0 });
    // The "project maintainer" lead-in is line 54 of the document.
    const maintainer = Object.entries(spec.provenance).find(([, source]) => source.locator === 'line 54');
    expect(maintainer?.[1].attachmentId).toBe('att_markdown');
  });

  it('the user API keys table: one valid model; its key to a user table no attachment describes points at the added User, said so', async () => {
    const spec = await built('markdown/simpler-grants-api-keys-schema.md', 'markdown', extractMarkdown);
    expect(() => validateDefinition(spec.content)).not.toThrow();
    const fields = fieldsOf(spec, 'UserApiKey');
    expect(fields.map((f) => f.name)).toEqual(['keyName', 'keyId', 'lastUsed', 'isActive', 'createdAt', 'updatedAt', 'user']);
    expect(fields.find((f) => f.name === 'user')?.to).toBe(spec.content.userModelId);
    expect(fields.find((f) => f.name === 'isActive')).toMatchObject({ to: 'p_BOOLEAN', min: 1, defaultValue: true });
    expect(fields.find((f) => f.name === 'lastUsed')).toMatchObject({ to: 'p_DATE_TIME', min: 0 });
    expect(spec.warnings.map((w) => w.message)).toContain('UserApiKey.user_id points at user, which no attachment describes; the field is left out.');
  });

  it('the NUS story PDF and the Figmagic file: requirements and pages with their locators', async () => {
    const pdf = await built('pdf/nus-user-stories.pdf', 'pdf', extractPdf);
    expect(() => validateDefinition(pdf.content)).not.toThrow();
    expect(pdf.summary).toMatchObject({ personas: 6, requirements: 10 });
    const figma = await built('figma/figmagic-design-system-template.json', 'figma', extractFigma);
    expect(() => validateDefinition(figma.content)).not.toThrow();
    expect(figma.summary.pages).toBe(21);
    expect(Object.values(figma.provenance).some((s) => s.locator === 'node 3022:700')).toBe(true);
  });
});
