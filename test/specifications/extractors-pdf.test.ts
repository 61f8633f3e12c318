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
