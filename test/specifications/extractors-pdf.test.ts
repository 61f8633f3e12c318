/**
 * The PDF extractor on a real one-page PDF (test/fixtures/README.md): "User Stories (NUS
 * Population)", a table with the columns Priority / As a ... / I want to ... / So that I
 * can..., ten rows. Read from the document: the personas are Student, Professor,
 * Professor / Tutor, Tutor, Toilet cleaner and Bus; e.g. the first row is "*** | Student |
 * I want to see my friends' location | So that I can organize meetings for group projects".
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdf } from '../../src/specifications/extractors/pdf.ts';
import { ExtractionError } from '../../src/specifications/extractors/types.ts';

describe('PDF extractor: NUS user stories', () => {
  const bytes = new Uint8Array(readFileSync(new URL('../fixtures/pdf/nus-user-stories.pdf', import.meta.url)));
  const drafted = extractPdf({ attachmentId: 'att_pdf', name: 'User Stories.pdf', kind: 'pdf', bytes });

  it('reads the text of its one page and takes the first line as the title', async () => {
    const draft = await drafted;
    expect(draft.title).toBe('User Stories (NUS Population)');
    expect(draft.description).toBe('1 page');
    expect(draft.warnings).toEqual([]);
  });

  it('finds the six personas of the story table', async () => {
    const draft = await drafted;
    expect(draft.personas.map((p) => p.name)).toEqual(['Student', 'Professor', 'Professor / Tutor', 'Tutor', 'Toilet cleaner', 'Bus']);
    expect(draft.personas.every((p) => p.locator === 'page 1')).toBe(true);
  });

  it('turns the ten rows into requirements, cells spanning lines joined', async () => {
    const draft = await drafted;
    expect(draft.requirements).toHaveLength(10);
    expect(draft.requirements[0]).toEqual({
      description: 'As a Student, I want to see my friends’ location, so that I can organize meetings for group projects',
      persona: 'Student',
      locator: 'page 1',
    });
    expect(draft.requirements.filter((r) => r.persona === 'Student')).toHaveLength(4);
    expect(draft.requirements.filter((r) => r.persona === 'Tutor')).toHaveLength(2);
    const bus = draft.requirements.find((r) => r.persona === 'Bus');
    expect(bus?.description).toBe(
      'As a Bus, I want to give my location information to students, so that students can decide whether they will take the bus',
    );
  });

  it('leaves the caller’s bytes usable (PDF.js may detach the buffer it reads)', async () => {
    await drafted;
    expect(bytes.byteLength).toBeGreaterThan(60_000);
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
  });
});

describe('PDF extractor: unreadable input', () => {
  it('fails with a clear message on bytes that are no PDF', async () => {
    const bytes = new TextEncoder().encode('# Not a PDF\n');
    const result = extractPdf({ attachmentId: 'att', name: 'notes.pdf', kind: 'pdf', bytes });
    await expect(result).rejects.toThrow(ExtractionError);
    await expect(extractPdf({ attachmentId: 'att', name: 'notes.pdf', kind: 'pdf', bytes })).rejects.toThrow(/notes\.pdf is not a readable PDF/);
  });

  it('fails with the parser’s reason on a PDF cut short (an interrupted upload)', async () => {
    const whole = new Uint8Array(readFileSync(new URL('../fixtures/pdf/nus-user-stories.pdf', import.meta.url)));
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    await expect(extractPdf({ attachmentId: 'att', name: 'cut.pdf', kind: 'pdf', bytes: cut })).rejects.toThrow(/^cut\.pdf is not a readable PDF: \S/);
  });
});

/**
 * A reference manual as a PDF (test/fixtures/README.md): the OMOP Common Data Model v5.3, one
 * numbered section per table followed by its field table (Field / Required / Type / Description).
 * Read from the document: its contents list 37 table sections (`4.1 CONCEPT` … `9.5 CONDITION_ERA`);
 * VISIT_OCCURRENCE (section 6.5, page 40) has 17 fields, its table continued on page 41 under a
 * repeated header, where `admitting_source_value` has `varchar(50) No` in the Required column.
 */
describe('PDF extractor: a reference manual with field tables (OMOP CDM v5.3)', () => {
  const bytes = new Uint8Array(readFileSync(new URL('../fixtures/pdf/omop-cdm-v5.3.pdf', import.meta.url)));
  const drafted = extractPdf({ attachmentId: 'att_omop', name: 'OMOP_CDM_v5_3.pdf', kind: 'pdf', bytes });

  it('gives one model per table section of the contents, named by its heading', async () => {
    const draft = await drafted;
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    const pages = (await extractText(pdf, { mergePages: false })).text;
    // the contents (pages 1-2): "6.5 VISIT_OCCURRENCE . . . 40"
    const sections = [...pages.slice(0, 2).join('\n').matchAll(/^\d+\.\d+ ([A-Z][A-Z_]+) [. ]+\d+$/gm)].map((m) => m[1]);
    expect(sections).toHaveLength(37);
    expect(draft.models.map((m) => m.name)).toEqual(sections);
    expect(draft.warnings).toContainEqual({ locator: 'document', message: expect.stringMatching(/^37 field tables read from the pages' layout as 37 models \(CONCEPT, page 12; VOCABULARY, page 14;/) });
  }, 60_000);

  it('reads fields, types and required marks across a page break and cells set a column off', async () => {
    const draft = await drafted;
    const visit = draft.models.find((m) => m.name === 'VISIT_OCCURRENCE')!;
    expect(visit.locator).toBe('page 40');
    expect(visit.fields).toHaveLength(17);
    const field = (name: string) => visit.fields.find((f) => f.name === name);
    expect(field('person_id')).toMatchObject({ type: 'p_NUMBER', required: true, locator: 'page 40, person_id' });
    expect(field('visit_start_date')).toMatchObject({ type: 'p_DATE', required: true });
    expect(field('visit_start_datetime')).toMatchObject({ type: 'p_DATE_TIME', required: false });
    expect(field('admitting_source_concept_id')).toMatchObject({ type: 'p_NUMBER', required: false });
    expect(field('admitting_source_value')).toMatchObject({ type: 'p_TEXT', required: false, locator: 'page 41, admitting_source_value' });
    expect(field('preceding_visit_occurrence_id')).toMatchObject({ type: 'p_NUMBER', required: false });
    // the only type the manual writes that is none of ours: CDM_SOURCE.source_description CLOB
    expect(draft.warnings.filter((w) => /is not one we know/.test(w.message))).toEqual([
      { locator: 'page 33, source_description', message: 'type "CLOB" of "source_description" is not one we know: read as text' },
    ]);
  }, 60_000);
});
